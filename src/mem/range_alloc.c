#include "mem/range_alloc.h"

#include <stdlib.h>
#include <string.h>

#include "aos.h"

int aos__range_init(struct aos__range_alloc *a, uint64_t base, uint64_t size)
{
    struct aos__range *r = malloc(16 * sizeof *r);
    if (r == NULL)
        return AOS_ERR_NO_MEMORY;
    r[0] = (struct aos__range){.off = base, .len = size, .used = 0};
    *a = (struct aos__range_alloc){
        .base = base, .size = size, .ranges = r, .count = 1, .capacity = 16};
    return AOS_OK;
}

void aos__range_fini(struct aos__range_alloc *a)
{
    free(a->ranges);
    memset(a, 0, sizeof *a);
}

/* Makes room for `more` ranges beyond the current count. */
static int reserve(struct aos__range_alloc *a, size_t more)
{
    while (a->count + more > a->capacity) {
        size_t cap = a->capacity * 2;
        struct aos__range *n = realloc(a->ranges, cap * sizeof *n);
        if (n == NULL)
            return AOS_ERR_NO_MEMORY;
        a->ranges = n;
        a->capacity = cap;
    }
    return AOS_OK;
}

/* Inserts r before index i; the caller has reserved room. */
static void insert_at(struct aos__range_alloc *a, size_t i, struct aos__range r)
{
    memmove(&a->ranges[i + 1], &a->ranges[i], (a->count - i) * sizeof *a->ranges);
    a->ranges[i] = r;
    a->count++;
}

static void remove_at(struct aos__range_alloc *a, size_t i)
{
    memmove(&a->ranges[i], &a->ranges[i + 1], (a->count - i - 1) * sizeof *a->ranges);
    a->count--;
}

int aos__range_alloc(struct aos__range_alloc *a, uint64_t len, uint64_t align, uint64_t *off)
{
    if (len == 0 || align == 0 || (align & (align - 1)) != 0)
        return AOS_ERR_INVALID;
    for (size_t i = 0; i < a->count; i++) {
        struct aos__range r = a->ranges[i];
        if (r.used)
            continue;
        uint64_t start = (r.off + align - 1) & ~(align - 1);
        uint64_t pad = start - r.off;
        if (start < r.off || pad > r.len || r.len - pad < len)
            continue;
        /* Split into [pad][allocation][rest]; reserve room for two inserts
         * first so that a failed insert leaves the table untouched. */
        if (reserve(a, (pad != 0) + (r.len - pad - len != 0)) != AOS_OK)
            return AOS_ERR_NO_MEMORY;
        size_t at = i;
        if (pad != 0) {
            a->ranges[i].len = pad;
            at = i + 1;
            insert_at(a, at, (struct aos__range){.off = start, .len = r.len - pad});
        }
        uint64_t rest = a->ranges[at].len - len;
        a->ranges[at].len = len;
        a->ranges[at].used = 1;
        if (rest != 0)
            insert_at(a, at + 1, (struct aos__range){.off = start + len, .len = rest});
        *off = start;
        return AOS_OK;
    }
    return AOS_ERR_NO_MEMORY;
}

static size_t find_used(const struct aos__range_alloc *a, uint64_t off)
{
    size_t lo = 0, hi = a->count;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (a->ranges[mid].off < off)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo < a->count && a->ranges[lo].off == off && a->ranges[lo].used)
        return lo;
    return (size_t)-1;
}

int aos__range_free(struct aos__range_alloc *a, uint64_t off)
{
    size_t i = find_used(a, off);
    if (i == (size_t)-1)
        return AOS_ERR_INVALID;
    a->ranges[i].used = 0;
    if (i + 1 < a->count && !a->ranges[i + 1].used) {
        a->ranges[i].len += a->ranges[i + 1].len;
        remove_at(a, i + 1);
    }
    if (i > 0 && !a->ranges[i - 1].used) {
        a->ranges[i - 1].len += a->ranges[i].len;
        remove_at(a, i);
    }
    return AOS_OK;
}

uint64_t aos__range_length(const struct aos__range_alloc *a, uint64_t off)
{
    size_t i = find_used(a, off);
    return i == (size_t)-1 ? 0 : a->ranges[i].len;
}
