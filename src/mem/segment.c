/* Segments: named regions of a PE's arena that any PE attaches to by
 * (owner, key) by reading the owner's directory, with no help from the owner. */
#include "mem/segment.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "arch/atomics.h"
#include "mem/memory.h"

/* The owner's handles by directory index, to release them at finalize. */
static aos_seg_t *owned[AOS__MAX_SEGMENTS];

static struct aos__seg_entry *directory(int pe)
{
    return aos__rt.peers[pe].header->segments;
}

static int key_is_live(uint64_t key)
{
    struct aos__seg_entry *dir = directory(aos__rt.me);
    for (int i = 0; i < AOS__MAX_SEGMENTS; i++)
        if ((dir[i].state & 1u) && dir[i].key == key) /* owner's own words: no race */
            return 1;
    return 0;
}

static int free_slot(void)
{
    struct aos__seg_entry *dir = directory(aos__rt.me);
    for (int i = 0; i < AOS__MAX_SEGMENTS; i++)
        if ((dir[i].state & 1u) == 0)
            return i;
    return -1;
}

/* Fills a directory slot and publishes it; returns the owner's handle. */
static int publish(uint64_t key, uint64_t arena_off, uint64_t size, unsigned protocols,
                   struct aos__remap *remap, aos_seg_t **out)
{
    int slot = free_slot();
    if (slot < 0)
        return AOS_ERR_TOO_MANY;
    aos_seg_t *s = calloc(1, sizeof *s);
    if (s == NULL)
        return AOS_ERR_NO_MEMORY;
    struct aos__seg_entry *e = &directory(aos__rt.me)[slot];
    e->key = key;
    e->offset = arena_off;
    e->size = size;
    e->protocols = protocols;
    uint64_t state = e->state + 1;
    /* Release: pairs with the acquire in attach; the fields above are seen
     * by any PE that sees the odd state. */
    aos__store_release(&e->state, state);
    *s = (aos_seg_t){.magic = AOS__SEG_MAGIC,
                     .owner = aos__rt.me,
                     .created = 1,
                     .index = (uint32_t)slot,
                     .state = state,
                     .key = key,
                     .arena_off = arena_off,
                     .size = size,
                     .protocols = protocols,
                     .entry_state = &e->state,
                     .remap = remap};
    owned[slot] = s;
    *out = s;
    return AOS_OK;
}

static int check_create(uint64_t key, size_t size, unsigned protocols, aos_seg_t **seg)
{
    AOS__CHECK_INIT();
    if (seg == NULL)
        return AOS_ERR_NULL;
    if (protocols == 0 || (protocols & ~AOS_PROTO_ALL) != 0)
        return AOS_ERR_INVALID;
    if (size == 0)
        return AOS_ERR_SIZE;
    if (key_is_live(key))
        return AOS_ERR_EXISTS;
    return AOS_OK;
}

int aos__seg_create_any(uint64_t key, size_t size, unsigned protocols, aos_seg_t **seg)
{
    int rc = check_create(key, size, protocols, seg);
    if (rc != AOS_OK)
        return rc;
    if (size > aos__rt.segspace_size)
        return AOS_ERR_SIZE;
    uint64_t len = (size + aos__rt.page_size - 1) & ~(uint64_t)(aos__rt.page_size - 1);
    uint64_t off;
    rc = aos__range_alloc(&aos__rt.segspace, len, aos__rt.page_size, &off);
    if (rc != AOS_OK)
        return rc;
    /* Fresh ranges are zero: destroy punches its pages out of the memfd. */
    rc = publish(key, off, size, protocols, NULL, seg);
    if (rc != AOS_OK)
        aos__range_free(&aos__rt.segspace, off);
    return rc;
}

/* The calling thread's stack cannot be moved: the page copy would miss what
 * the very calls that move it push onto it. */
static int on_my_stack(uintptr_t lo, uintptr_t hi)
{
    pthread_attr_t attr;
    void *base = NULL;
    size_t size = 0;
    if (pthread_getattr_np(pthread_self(), &attr) != 0)
        return 0;
    int ok = pthread_attr_getstack(&attr, &base, &size) == 0;
    pthread_attr_destroy(&attr);
    uintptr_t s = (uintptr_t)base;
    return ok && lo < s + size && s < hi;
}

static int overlaps_remap(uintptr_t lo, uintptr_t hi)
{
    for (struct aos__remap *r = aos__rt.remaps; r != NULL; r = r->next)
        if (lo < r->hi && r->lo < hi)
            return 1;
    return 0;
}

int aos_seg_create(uint64_t key, size_t size, unsigned protocols, aos_seg_t **seg)
{
    if (aos__key_reserved(key))
        return AOS_ERR_INVALID;
    return aos__seg_create_any(key, size, protocols, seg);
}

int aos_seg_create_from(uint64_t key, void *buf, size_t size, unsigned protocols,
                        aos_seg_t **seg)
{
    if (aos__key_reserved(key))
        return AOS_ERR_INVALID;
    int rc = check_create(key, size, protocols, seg);
    if (rc != AOS_OK)
        return rc;
    if (buf == NULL)
        return AOS_ERR_NULL;
    uintptr_t a = (uintptr_t)buf;
    if (a + size < a)
        return AOS_ERR_SIZE;
    uint64_t off;
    if (aos__sym_locate(buf, size, &off) == AOS_OK) /* already shared memory */
        return publish(key, off, size, protocols, NULL, seg);

    uintptr_t page = aos__rt.page_size;
    uintptr_t lo = a & ~(page - 1);
    uintptr_t hi = (a + size + page - 1) & ~(page - 1);
    if (overlaps_remap(lo, hi))
        return AOS_ERR_OVERLAP;
    if (on_my_stack(lo, hi))
        return AOS_ERR_INVALID;
    if (hi - lo > aos__rt.segspace_size)
        return AOS_ERR_SIZE;
    struct aos__remap *r = malloc(sizeof *r);
    if (r == NULL)
        return AOS_ERR_NO_MEMORY;
    rc = aos__range_alloc(&aos__rt.segspace, hi - lo, page, &off);
    if (rc != AOS_OK)
        goto fail_remap;
    rc = aos__remap_into_arena(&aos__rt, lo, hi, off);
    if (rc != AOS_OK)
        goto fail_range;
    *r = (struct aos__remap){.lo = lo, .hi = hi, .arena_off = off, .next = aos__rt.remaps};
    rc = publish(key, off + (a - lo), size, protocols, r, seg);
    if (rc != AOS_OK)
        goto fail_mapped;
    aos__rt.remaps = r;
    return AOS_OK;

fail_mapped:
    aos__remap_out_of_arena(&aos__rt, lo, hi, off);
fail_range:
    aos__range_free(&aos__rt.segspace, off);
fail_remap:
    free(r);
    return rc;
}

int aos__seg_attach_any(int owner, uint64_t key, aos_seg_t **seg)
{
    AOS__CHECK_INIT();
    AOS__CHECK_PE(owner);
    if (seg == NULL)
        return AOS_ERR_NULL;
    void *p;
    int rc = aos__rt.tp->local_ptr(owner, 0, &p);
    if (rc != AOS_OK)
        return rc == AOS_ERR_NOT_LOCAL ? AOS_ERR_UNSUPPORTED : rc;
    struct aos__seg_entry *dir = ((struct aos__arena_header *)p)->segments;
    for (int i = 0; i < AOS__MAX_SEGMENTS; i++) {
        /* Acquire: pairs with the release in publish(), so the fields read
         * below are those published with this state. */
        uint64_t state = aos__load_acquire(&dir[i].state);
        if ((state & 1u) == 0 || aos__load_relaxed(&dir[i].key) != key)
            continue;
        aos_seg_t tmp = {.magic = AOS__SEG_MAGIC,
                         .owner = owner,
                         .index = (uint32_t)i,
                         .state = state,
                         .key = key,
                         .arena_off = aos__load_relaxed(&dir[i].offset),
                         .size = aos__load_relaxed(&dir[i].size),
                         .protocols = aos__load_relaxed(&dir[i].protocols),
                         .entry_state = &dir[i].state};
        /* Seqlock check: fields are rewritten only after the state changes. */
        aos__fence_acquire();
        if (aos__load_relaxed(&dir[i].state) != state)
            continue;
        aos_seg_t *s = malloc(sizeof *s);
        if (s == NULL)
            return AOS_ERR_NO_MEMORY;
        *s = tmp;
        *seg = s;
        return AOS_OK;
    }
    return AOS_ERR_NO_KEY;
}

int aos_seg_attach(int owner, uint64_t key, aos_seg_t **seg)
{
    if (aos__key_reserved(key))
        return AOS_ERR_INVALID;
    return aos__seg_attach_any(owner, key, seg);
}

int aos_seg_detach(aos_seg_t *seg)
{
    if (seg == NULL)
        return AOS_ERR_NULL;
    if (seg->magic != AOS__SEG_MAGIC)
        return AOS_ERR_INVALID;
    if (seg->created)
        return AOS_ERR_INVALID; /* the owner destroys instead */
    seg->magic = 0;
    free(seg);
    return AOS_OK;
}

static void unpublish(aos_seg_t *s)
{
    struct aos__seg_entry *e = &directory(aos__rt.me)[s->index];
    /* Release: an attacher that sees the even state finds no segment; the
     * memory is reclaimed only after this store. */
    aos__store_release(&e->state, s->state + 1);
    owned[s->index] = NULL;
    if (s->remap != NULL) {
        struct aos__remap **pp = &aos__rt.remaps;
        while (*pp != s->remap)
            pp = &(*pp)->next;
        *pp = s->remap->next;
        aos__remap_out_of_arena(&aos__rt, s->remap->lo, s->remap->hi, s->remap->arena_off);
        madvise(aos__rt.my_base + s->remap->arena_off, s->remap->hi - s->remap->lo,
                MADV_REMOVE);
        aos__range_free(&aos__rt.segspace, s->remap->arena_off);
        free(s->remap);
    } else if (s->arena_off >= aos__rt.segspace_off) {
        uint64_t len = aos__range_length(&aos__rt.segspace, s->arena_off);
        madvise(aos__rt.my_base + s->arena_off, len, MADV_REMOVE);
        aos__range_free(&aos__rt.segspace, s->arena_off);
    }
    s->magic = 0;
    free(s);
}

int aos_seg_destroy(aos_seg_t *seg)
{
    if (seg == NULL)
        return AOS_ERR_NULL;
    if (seg->magic != AOS__SEG_MAGIC)
        return AOS_ERR_INVALID;
    AOS__CHECK_INIT();
    if (!seg->created || seg->owner != aos__rt.me)
        return AOS_ERR_INVALID;
    unpublish(seg);
    return AOS_OK;
}

void aos__segments_stop(struct aos__runtime *rt)
{
    (void)rt;
    for (int i = 0; i < AOS__MAX_SEGMENTS; i++)
        if (owned[i] != NULL)
            unpublish(owned[i]);
}

int aos_seg_size(const aos_seg_t *seg, size_t *size)
{
    if (seg == NULL || size == NULL)
        return AOS_ERR_NULL;
    if (seg->magic != AOS__SEG_MAGIC)
        return AOS_ERR_INVALID;
    *size = seg->size;
    return AOS_OK;
}

int aos_seg_owner(const aos_seg_t *seg, int *owner)
{
    if (seg == NULL || owner == NULL)
        return AOS_ERR_NULL;
    if (seg->magic != AOS__SEG_MAGIC)
        return AOS_ERR_INVALID;
    *owner = seg->owner;
    return AOS_OK;
}

int aos_seg_ptr(const aos_seg_t *seg, size_t offset, void **ptr)
{
    if (ptr == NULL)
        return AOS_ERR_NULL;
    uint64_t off;
    int rc = aos__seg_access(seg, offset, 0, AOS_PROTO_LOADSTORE, &off);
    if (rc != AOS_OK)
        return rc;
    return aos__rt.tp->local_ptr(seg->owner, off, ptr);
}
