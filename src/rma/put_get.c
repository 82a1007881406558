/* Put and get, contiguous and geometric, on segments and on symmetric
 * addresses. Every entry point checks its arguments, resolves the target to
 * (pe, arena offset) and hands the transfer to the transport. */
#include <stdint.h>

#include "core/event.h"
#include "core/runtime.h"
#include "mem/memory.h"
#include "mem/segment.h"
#include "rma/block_copy.h"
#include "rma/rma.h"
#include "core/progress.h"

int aos__check_self_overlap(int pe, uint64_t remote_off, const void *local, size_t len)
{
    if (pe != aos__rt.me || !aos__local_meets_arena(local, len, remote_off, len))
        return AOS_OK;
    return AOS_ERR_OVERLAP;
}

/* Row-exact check for blocks whose bounding ranges meet; past this many row
 * pairs the bounding test alone decides. */
#define EXACT_ROW_PAIRS (1u << 20)

static int block_self_overlap(int pe, uint64_t remote_off, const void *local,
                              const aos_block_t *b, size_t lext, size_t rext)
{
    if (pe != aos__rt.me || !aos__local_meets_arena(local, lext, remote_off, rext))
        return AOS_OK;
    size_t rows = b->count[0] * b->count[1];
    if (rows > EXACT_ROW_PAIRS / rows)
        return AOS_ERR_OVERLAP;
    for (size_t i = 0; i < rows; i++) {
        const char *l = (const char *)local + (i / b->count[0]) * b->local_stride[1] +
                        (i % b->count[0]) * b->local_stride[0];
        for (size_t j = 0; j < rows; j++) {
            uint64_t r = remote_off + (j / b->count[0]) * b->remote_stride[1] +
                         (j % b->count[0]) * b->remote_stride[0];
            if (aos__local_meets_arena(l, b->run, r, b->run))
                return AOS_ERR_OVERLAP;
        }
    }
    return AOS_OK;
}

/* ---- contiguous ----------------------------------------------------------- */

/* The transport's put, or with `held` and an event its put_held (the
 * caller keeps src until ev completes). */
static inline int issue_put(int pe, uint64_t off, const void *src, size_t len,
                            aos_event_t *ev, int held)
{
    const struct aos__transport *tp = aos__tp(pe);
    return held && ev != NULL ? tp->put_held(pe, off, src, len, ev)
                              : tp->put(pe, off, src, len, ev);
}

static int put_at(int pe, uint64_t off, const void *src, size_t len, aos_event_t *ev,
                  int held)
{
    if (aos__event_bad(ev))
        return AOS_ERR_INVALID;
    int rc = aos__check_self_overlap(pe, off, src, len);
    if (rc != AOS_OK)
        return rc;
    return issue_put(pe, off, src, len, ev, held);
}

int aos__put_at(int pe, uint64_t off, const void *src, size_t len, aos_event_t *ev)
{
    return put_at(pe, off, src, len, ev, 0);
}

int aos__get_at(void *dst, int pe, uint64_t off, size_t len, aos_event_t *ev)
{
    if (aos__event_bad(ev))
        return AOS_ERR_INVALID;
    int rc = aos__check_self_overlap(pe, off, dst, len);
    if (rc != AOS_OK)
        return rc;
    return aos__tp(pe)->get(dst, pe, off, len, ev);
}

/* A transfer of zero bytes is complete at once and counts on its event
 * like any other (aos_event_count sees every operation issued). */
static int empty_done(aos_event_t *ev)
{
    if (aos__event_bad(ev))
        return AOS_ERR_INVALID;
    aos__event_done_at_issue(ev);
    return AOS_OK;
}

static int seg_put(aos_seg_t *seg, size_t offset, const void *src, size_t len,
                   aos_event_t *ev, int held)
{
    uint64_t off;
    int rc = aos__seg_access(seg, offset, len, AOS_PROTO_RMA, &off);
    if (rc != AOS_OK || len == 0)
        return rc == AOS_OK ? empty_done(ev) : rc;
    if (src == NULL)
        return AOS_ERR_NULL;
    if (ev == NULL)
        aos__serve_poll();
    return put_at(seg->owner, off, src, len, ev, held);
}

int aos_put(aos_seg_t *seg, size_t offset, const void *src, size_t len, aos_event_t *ev)
{
    return seg_put(seg, offset, src, len, ev, 0);
}

int aos_put_nbi(aos_seg_t *seg, size_t offset, const void *src, size_t len, aos_event_t *ev)
{
    return seg_put(seg, offset, src, len, ev, 1);
}

int aos_get(void *dst, aos_seg_t *seg, size_t offset, size_t len, aos_event_t *ev)
{
    uint64_t off;
    int rc = aos__seg_access(seg, offset, len, AOS_PROTO_RMA, &off);
    if (rc != AOS_OK || len == 0)
        return rc == AOS_OK ? empty_done(ev) : rc;
    if (dst == NULL)
        return AOS_ERR_NULL;
    return aos__get_at(dst, seg->owner, off, len, ev);
}

/* Checks a symmetric-address transfer and resolves its remote side. */
static int sym_target(int pe, const void *remote, const void *local, size_t len,
                      uint64_t *off)
{
    AOS__CHECK_INIT();
    AOS__CHECK_PE(pe);
    if (len == 0)
        return AOS_OK;
    if (remote == NULL || local == NULL)
        return AOS_ERR_NULL;
    return aos__sym_locate(remote, len, off);
}

/* The common case of a symmetric transfer, decided with no call and no
 * stack: initialised, another PE, a non-empty range inside the heap, both
 * buffers given. Anything else takes the checked path, which finds the
 * error (or the static-data or self case) in the documented order. */
static inline int sym_fast(int pe, const void *remote, const void *local, size_t len,
                           uint64_t *off)
{
    const struct aos__runtime *rt = &aos__rt;
    return rt->initialized && (unsigned)pe < (unsigned)rt->npes && pe != rt->me && len != 0 &&
           local != NULL && aos__heap_locate(remote, len, off);
}

static __attribute__((noinline)) int putmem_checked(int pe, void *dest, const void *src,
                                                    size_t len, aos_event_t *ev, int held)
{
    uint64_t off = 0;
    int rc = sym_target(pe, dest, src, len, &off);
    if (rc != AOS_OK || len == 0)
        return rc == AOS_OK ? empty_done(ev) : rc;
    return put_at(pe, off, src, len, ev, held);
}

static __attribute__((noinline)) int getmem_checked(int pe, void *dst, const void *src,
                                                    size_t len, aos_event_t *ev)
{
    uint64_t off = 0;
    int rc = sym_target(pe, src, dst, len, &off);
    if (rc != AOS_OK || len == 0)
        return rc == AOS_OK ? empty_done(ev) : rc;
    return aos__get_at(dst, pe, off, len, ev);
}

static inline int putmem(int pe, void *dest, const void *src, size_t len, aos_event_t *ev,
                         int held)
{
    uint64_t off;
    if (sym_fast(pe, dest, src, len, &off) && !aos__event_bad(ev)) {
        if (ev == NULL) /* a blocking put serves waiting RPCs; streaming ones do not */
            aos__serve_poll();
        return issue_put(pe, off, src, len, ev, held);
    }
    return putmem_checked(pe, dest, src, len, ev, held);
}

int aos_putmem(int pe, void *dest, const void *src, size_t len, aos_event_t *ev)
{
    return putmem(pe, dest, src, len, ev, 0);
}

int aos_putmem_nbi(int pe, void *dest, const void *src, size_t len, aos_event_t *ev)
{
    return putmem(pe, dest, src, len, ev, 1);
}

int aos_getmem(int pe, void *dst, const void *src, size_t len, aos_event_t *ev)
{
    uint64_t off;
    if (sym_fast(pe, src, dst, len, &off) && !aos__event_bad(ev))
        return aos__tp(pe)->get(dst, pe, off, len, ev);
    return getmem_checked(pe, dst, src, len, ev);
}

/* ---- geometry ------------------------------------------------------------- */

struct block_plan {
    size_t local_extent, remote_extent;
};

static int plan_block(const aos_block_t *b, int remote_written, const void *local,
                      struct block_plan *p)
{
    int rc = aos__block_extent(b, b->local_stride, &p->local_extent);
    if (rc != AOS_OK)
        return rc;
    rc = aos__block_extent(b, b->remote_stride, &p->remote_extent);
    if (rc != AOS_OK)
        return rc;
    rc = aos__block_check(b, remote_written); /* needs the extents not to overflow */
    if (rc != AOS_OK)
        return rc;
    if (p->remote_extent != 0 && local == NULL)
        return AOS_ERR_NULL;
    return AOS_OK;
}

static int do_block(int put, int pe, uint64_t off, void *local, const aos_block_t *b,
                    const struct block_plan *p, aos_event_t *ev)
{
    if (p->remote_extent == 0)
        return empty_done(ev);
    if (aos__event_bad(ev))
        return AOS_ERR_INVALID;
    int rc = block_self_overlap(pe, off, local, b, p->local_extent, p->remote_extent);
    if (rc != AOS_OK)
        return rc;
    if (put)
        return aos__tp(pe)->put_block(pe, off, local, b, ev);
    return aos__tp(pe)->get_block(local, pe, off, b, ev);
}

static int seg_block(int put, aos_seg_t *seg, size_t offset, void *local, const aos_block_t *b,
                     aos_event_t *ev)
{
    if (b == NULL)
        return AOS_ERR_NULL;
    struct block_plan p;
    int rc = plan_block(b, put, local, &p);
    if (rc != AOS_OK)
        return rc;
    uint64_t off;
    rc = aos__seg_access(seg, offset, p.remote_extent, AOS_PROTO_RMA, &off);
    if (rc != AOS_OK)
        return rc;
    return do_block(put, seg->owner, off, local, b, &p, ev);
}

static int sym_block(int put, int pe, const void *remote, void *local, const aos_block_t *b,
                     aos_event_t *ev)
{
    AOS__CHECK_INIT();
    AOS__CHECK_PE(pe);
    if (b == NULL)
        return AOS_ERR_NULL;
    struct block_plan p;
    int rc = plan_block(b, put, local, &p);
    if (rc != AOS_OK)
        return rc;
    if (p.remote_extent == 0)
        return empty_done(ev);
    if (remote == NULL)
        return AOS_ERR_NULL;
    uint64_t off;
    rc = aos__sym_locate(remote, p.remote_extent, &off);
    if (rc != AOS_OK)
        return rc;
    return do_block(put, pe, off, local, b, &p, ev);
}

int aos_put_block(aos_seg_t *seg, size_t offset, const void *src, const aos_block_t *b,
                  aos_event_t *ev)
{
    return seg_block(1, seg, offset, (void *)src, b, ev);
}

int aos_get_block(void *dst, aos_seg_t *seg, size_t offset, const aos_block_t *b,
                  aos_event_t *ev)
{
    return seg_block(0, seg, offset, dst, b, ev);
}

int aos_putmem_block(int pe, void *dest, const void *src, const aos_block_t *b,
                     aos_event_t *ev)
{
    return sym_block(1, pe, dest, (void *)src, b, ev);
}

int aos_getmem_block(int pe, void *dst, const void *src, const aos_block_t *b,
                     aos_event_t *ev)
{
    return sym_block(0, pe, src, dst, b, ev);
}

/* ---- ordering -------------------------------------------------------------- */

int aos_fence(int pe)
{
    AOS__CHECK_INIT();
    AOS__CHECK_PE(pe);
    return aos__tp(pe)->fence(pe);
}

int aos_fence_all(void)
{
    AOS__CHECK_INIT();
    return aos__fence_all();
}

int aos_quiet(void)
{
    AOS__CHECK_INIT();
    return aos__quiet_all();
}
