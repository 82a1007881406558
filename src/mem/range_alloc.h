/* First-fit allocator of ranges inside a region [base, base+size). Metadata is
 * private to the process; the same call sequence yields the same offsets on
 * every PE, which is what makes the symmetric heap symmetric. */
#ifndef AOS_MEM_RANGE_ALLOC_H
#define AOS_MEM_RANGE_ALLOC_H

#include <stddef.h>
#include <stdint.h>

struct aos__range {
    uint64_t off;
    uint64_t len;
    int used;
};

/* Invariant: ranges[] is sorted by off, tiles [base, base+size) exactly, and
 * no two adjacent ranges are both free. */
struct aos__range_alloc {
    uint64_t base;
    uint64_t size;
    struct aos__range *ranges;
    size_t count;
    size_t capacity;
};

int aos__range_init(struct aos__range_alloc *a, uint64_t base, uint64_t size);
void aos__range_fini(struct aos__range_alloc *a);
/* Allocates len bytes aligned to align (a power of two); *off on success. */
int aos__range_alloc(struct aos__range_alloc *a, uint64_t len, uint64_t align, uint64_t *off);
/* Frees the allocation starting at off; AOS_ERR_INVALID if there is none. */
int aos__range_free(struct aos__range_alloc *a, uint64_t off);
/* Length of the allocation starting at off, or 0. */
uint64_t aos__range_length(const struct aos__range_alloc *a, uint64_t off);

#endif
