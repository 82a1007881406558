/* Geometry transfers: checking a block against a segment and copying it row
 * by row with no staging buffer. */
#ifndef AOS_RMA_BLOCK_COPY_H
#define AOS_RMA_BLOCK_COPY_H

#include <stddef.h>
#include <stdint.h>

#include "aos.h"
#include "arch/copy.h"

/* Bytes spanned on one side: (count0-1)*stride0 + (count1-1)*stride1 + run.
 * AOS_ERR_SIZE on overflow; a block with a zero count or run spans 0. */
int aos__block_extent(const aos_block_t *b, const size_t stride[2], size_t *extent);
/* Checks the block itself: NULL, overlap of rows on the side written. */
int aos__block_check(const aos_block_t *b, int remote_is_destination);

static inline void aos__block_copy(char *dst, const size_t dst_stride[2], const char *src,
                                   const size_t src_stride[2], const aos_block_t *b)
{
    for (size_t p = 0; p < b->count[1]; p++) {
        char *d = dst + p * dst_stride[1];
        const char *s = src + p * src_stride[1];
        for (size_t r = 0; r < b->count[0]; r++)
            aos__copy(d + r * dst_stride[0], s + r * src_stride[0], b->run);
    }
}

#endif
