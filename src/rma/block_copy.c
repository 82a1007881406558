#include "rma/block_copy.h"

int aos__block_extent(const aos_block_t *b, const size_t stride[2], size_t *extent)
{
    if (b->run == 0 || b->count[0] == 0 || b->count[1] == 0) {
        *extent = 0;
        return AOS_OK;
    }
    size_t a0, a1, sum;
    if (__builtin_mul_overflow(b->count[0] - 1, stride[0], &a0) ||
        __builtin_mul_overflow(b->count[1] - 1, stride[1], &a1) ||
        __builtin_add_overflow(a0, a1, &sum) || __builtin_add_overflow(sum, b->run, &sum))
        return AOS_ERR_SIZE;
    *extent = sum;
    return AOS_OK;
}

/* Rows written must not overlap each other, or the result would depend on the
 * copy order: rows need stride0 >= run (or one row), and planes need
 * stride1 >= the extent of one plane (or one plane). */
static int rows_disjoint(const aos_block_t *b, const size_t stride[2])
{
    if (b->count[0] > 1 && stride[0] < b->run)
        return 0;
    if (b->count[1] > 1) {
        size_t plane = (b->count[0] - 1) * stride[0] + b->run;
        if (stride[1] < plane)
            return 0;
    }
    return 1;
}

int aos__block_check(const aos_block_t *b, int remote_is_destination)
{
    if (b == NULL)
        return AOS_ERR_NULL;
    const size_t *written = remote_is_destination ? b->remote_stride : b->local_stride;
    if (b->run == 0 || b->count[0] == 0 || b->count[1] == 0)
        return AOS_OK;
    return rows_disjoint(b, written) ? AOS_OK : AOS_ERR_OVERLAP;
}
