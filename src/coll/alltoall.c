/* All-to-all: after a sync (every source ready, every dest free) each
 * member copies its block out of every member's source, starting with the
 * member after itself so that the readers of one source are spread; a
 * closing sync keeps the sources unchanged until all have copied. */
#include <stdint.h>

#include "arch/copy.h"
#include "coll/team.h"
#include "core/runtime.h"
#include "rma/block_copy.h"

/* Bytes spanned by n elements of esize bytes every `stride` elements. */
static int strided_extent(size_t n, size_t stride, size_t esize, size_t *extent)
{
    if (n == 0) {
        *extent = 0;
        return AOS_OK;
    }
    if (stride > SIZE_MAX / esize || n - 1 > (SIZE_MAX - esize) / (stride * esize))
        return AOS_ERR_SIZE;
    *extent = (n - 1) * stride * esize + esize;
    return AOS_OK;
}

/* The local argument checks; *src_off = where the source is. */
static int check_args(const aos_team_t *team, void *dest, const void *source, size_t nelems,
                      size_t dst, size_t sst, size_t esize, uint64_t *src_off)
{
    if (dst == 0 || sst == 0 || (esize & (esize - 1)) != 0 || esize == 0 || esize > 16)
        return AOS_ERR_INVALID;
    size_t n = (size_t)team->size, dext, sext;
    if (nelems > SIZE_MAX / n)
        return AOS_ERR_SIZE;
    int rc = strided_extent(n * nelems, dst, esize, &dext);
    if (rc == AOS_OK)
        rc = strided_extent(n * nelems, sst, esize, &sext);
    uint64_t dest_off;
    if (rc == AOS_OK)
        rc = aos__coll_locate(dest, dext, &dest_off);
    if (rc == AOS_OK)
        rc = aos__coll_locate(source, sext, src_off);
    if (rc == AOS_OK && aos__overlap(dest, dext, source, sext))
        rc = AOS_ERR_OVERLAP;
    return rc;
}

/* The shared part: checks, then for each rank r its block via copy_block. */
static int alltoall_run(aos_team_t *team, int kind, void *dest, const void *source,
                        size_t nelems, size_t dst, size_t sst, size_t esize)
{
    int rc = aos__coll_check(team);
    if (rc != AOS_OK)
        return rc;
    uint64_t src_off = 0;
    rc = check_args(team, dest, source, nelems, dst, sst, esize, &src_off);
    /* Members read each other's sources with their own sst: it must agree
     * too; dst shapes only the local dest. */
    rc = aos__coll_agree(team, kind, rc, (const uint64_t[]){nelems, esize, sst});
    if (rc != AOS_OK || nelems == 0)
        return rc;
    rc = aos__team_sync(team);
    if (rc != AOS_OK)
        return rc;
    size_t n = (size_t)team->size;
    int crc = AOS_OK;
    aos_block_t b = {.run = esize,
                     .count = {nelems, 1},
                     .local_stride = {dst * esize, 0},
                     .remote_stride = {sst * esize, 0}};
    size_t me = (size_t)team->me;
    for (size_t i = 0; crc == AOS_OK && i < n; i++) {
        size_t r = (me + i) % n;
        char *to = (char *)dest + r * nelems * dst * esize;
        uint64_t from_off = src_off + me * nelems * sst * esize;
        int pe = team->pes[r];
        if (!aos__on_node(pe)) /* a block get (one get when contiguous) */
            crc = aos__tp(pe)->get_block(to, pe, from_off, &b, NULL);
        else if (dst == 1 && sst == 1)
            aos__copy(to, aos__team_peer(team, (int)r, from_off), nelems * esize);
        else
            aos__block_copy(to, b.local_stride, aos__team_peer(team, (int)r, from_off),
                            b.remote_stride, &b);
    }
    rc = aos__team_sync(team); /* the sources stay unchanged until everyone has read */
    return crc != AOS_OK ? crc : rc;
}

int aos_alltoall(aos_team_t *team, void *dest, const void *source, size_t nbytes)
{
    return alltoall_run(team, AOS__AGREE_ALLTOALL, dest, source, nbytes, 1, 1, 1);
}

int aos_alltoalls(aos_team_t *team, void *dest, const void *source, size_t dst, size_t sst,
                  size_t nelems, size_t elem_size)
{
    return alltoall_run(team, AOS__AGREE_ALLTOALLS, dest, source, nelems, dst, sst, elem_size);
}
