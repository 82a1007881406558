/* The symmetric heap and symmetric address translation.
 *
 * Allocation is collective: every PE runs the same deterministic allocator
 * over its own heap region with the same calls, so offsets agree. Each call
 * ends (malloc family) or starts (free, realloc) with a barrier or an
 * exchange, so no PE writes into a block another PE has not allocated yet
 * or has already released. A free or realloc one PE refuses is refused by
 * all, so the heaps never differ. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>

#include "coll/team.h"
#include "core/wait.h"
#include "mem/memory.h"

int aos__memory_start(struct aos__runtime *rt)
{
    int rc = aos__range_init(&rt->heap, rt->heap_off, rt->heap_size);
    if (rc != AOS_OK)
        return rc;
    aos__segments_start();
    rc = aos__range_init(&rt->segspace, rt->segspace_off, rt->segspace_size);
    if (rc != AOS_OK)
        goto fail_heap;
    if (rt->static_len != 0) {
        rc = aos__remap_into_arena(rt, rt->static_lo, rt->static_lo + rt->static_len,
                                   rt->static_off);
        if (rc != AOS_OK)
            goto fail_segspace;
    }
    return AOS_OK;

fail_segspace:
    aos__range_fini(&rt->segspace);
fail_heap:
    aos__range_fini(&rt->heap);
    return rc;
}

void aos__memory_stop(struct aos__runtime *rt)
{
    aos__segments_stop(rt);
    /* Static data stays mapped from the (now unlinked) memfd: the program may
     * go on using its globals after aos_finalize. */
    aos__range_fini(&rt->segspace);
    aos__range_fini(&rt->heap);
}

int aos__sym_locate_static(const void *addr, size_t len, uint64_t *off)
{
    const struct aos__runtime *rt = &aos__rt;
    uintptr_t a = (uintptr_t)addr;
    if (rt->static_len == 0 || a < rt->static_lo || a - rt->static_lo >= rt->static_len)
        return AOS_ERR_NOT_SYMMETRIC;
    uint64_t rel = a - rt->static_lo;
    if (len > rt->static_len - rel)
        return AOS_ERR_BOUNDS;
    *off = rt->static_off + rel;
    return AOS_OK;
}

int aos__local_arena_off(const void *p, uint64_t *off)
{
    uintptr_t a = (uintptr_t)p;
    uintptr_t base = (uintptr_t)aos__rt.my_base;
    if (a >= base && a - base < aos__rt.arena_size) {
        *off = a - base;
        return 1;
    }
    if (aos__sym_locate(p, 0, off) == AOS_OK)
        return 1;
    return aos__remap_find(a, off);
}

int aos__local_user_range(const void *p, size_t len, uint64_t *off)
{
    int rc = aos__sym_locate(p, len, off);
    if (rc != AOS_ERR_NOT_SYMMETRIC)
        return rc;
    uint64_t at; /* my arena view or a published buffer: a segment's, maybe */
    if (!aos__local_arena_off(p, &at))
        return AOS_ERR_NOT_SYMMETRIC;
    rc = aos__own_segment_range(at, len);
    if (rc == AOS_OK)
        *off = at;
    return rc;
}

int aos__local_meets_arena(const void *p, size_t len, uint64_t off, uint64_t olen)
{
    const struct aos__runtime *rt = &aos__rt;
    uintptr_t a = (uintptr_t)p;
    return aos__region_meets(a, len, (uintptr_t)rt->my_base, rt->arena_size, 0, off, olen) ||
           aos__region_meets(a, len, rt->static_lo, rt->static_len, rt->static_off, off, olen) ||
           aos__remap_meets(a, len, off, olen);
}

int aos_sym_accessible(const void *addr)
{
    uint64_t off;
    return aos__rt.initialized && aos__sym_locate(addr, 0, &off) == AOS_OK;
}

int aos_sym_ptr(const void *addr, int pe, void **remote)
{
    AOS__CHECK_INIT();
    AOS__CHECK_PE(pe);
    if (addr == NULL || remote == NULL)
        return AOS_ERR_NULL;
    uint64_t off;
    int rc = aos__sym_locate(addr, 0, &off);
    if (rc != AOS_OK)
        return rc;
    if (pe == aos__rt.me) {
        *remote = (void *)addr;
        return AOS_OK;
    }
    return aos__tp(pe)->local_ptr(pe, off, remote);
}

/* Allocates without a barrier; NULL on failure (the same on every PE). */
static void *heap_alloc(size_t align, size_t size)
{
    if (size == 0)
        return NULL;
    uint64_t off;
    if (aos__range_alloc(&aos__rt.heap, size, align, &off) != AOS_OK)
        return NULL;
    /* Registered for the network before the closing barrier publishes it. */
    if (aos__expose(off, size) != AOS_OK) {
        aos__range_free(&aos__rt.heap, off);
        return NULL;
    }
    /* Relaxed: see aos__heap_locate. */
    aos__raise_relaxed(&aos__rt.heap_top, off - aos__rt.heap_off + size);
    return aos__rt.my_base + off;
}

/* Frees a block heap_owns() accepted. */
static void heap_release(void *ptr)
{
    uint64_t off = (uint64_t)((char *)ptr - aos__rt.my_base);
    uint64_t len = aos__range_length(&aos__rt.heap, off);
    (void)aos__range_free(&aos__rt.heap, off);
    /* Give large blocks' pages back to the system; the next user of the
     * range starts from zero-filled pages. */
    uintptr_t page = aos__rt.page_size;
    uintptr_t lo = ((uintptr_t)ptr + page - 1) & ~(page - 1);
    uintptr_t hi = ((uintptr_t)ptr + len) & ~(page - 1);
    if (hi > lo && hi - lo >= (64u << 10))
        madvise((void *)lo, hi - lo, MADV_REMOVE);
}

/* A block's heap offset, the same on every PE; UINT64_MAX for NULL. */
static uint64_t block_of(const void *ptr)
{
    return ptr == NULL ? UINT64_MAX : (uint64_t)((uintptr_t)ptr - (uintptr_t)aos__rt.my_base);
}

static int heap_owns(const void *ptr)
{
    uint64_t off;
    return aos__sym_locate(ptr, 0, &off) == AOS_OK && off >= aos__rt.heap_off &&
           aos__range_length(&aos__rt.heap, off) != 0;
}

/* AOS_CHECK=1: the PEs compare the call's arguments over the world team
 * first (coll/team.h); 0 when they agree (or the check is off). */
static int agree(int kind, int status, uint64_t a, uint64_t b)
{
    aos_team_t *world = aos_team_world();
    if (world == NULL)
        return status;
    return aos__coll_agree(world, kind, status, (const uint64_t[]){a, b});
}

/* The start of a free or realloc of ptr: my writes are complete, every PE
 * has entered, and all go on only when every PE's block is a live one (the
 * others fail too, so the heaps stay the same). */
static int settle_block(int kind, void *ptr, uint64_t arg)
{
    int rc = ptr == NULL || heap_owns(ptr) ? AOS_OK : AOS_ERR_INVALID;
    int quiet = aos__quiet_all();
    if (rc == AOS_OK)
        rc = quiet;
    return aos__coll_agree_status(aos_team_world(), kind, rc,
                                  (const uint64_t[]){block_of(ptr), arg});
}

/* NULL with errno: the allocation calls' failure. */
static void *fail(int err)
{
    errno = err;
    return NULL;
}

/* errno for a refused call (status rc). */
static int errno_of(int rc)
{
    return rc == AOS_ERR_PE_DIED || rc == AOS_ERR_NETWORK ? EIO : EINVAL;
}

/* The closing barrier of an allocation: p, or NULL when it failed. */
static void *published(void *p, size_t size)
{
    int rc = aos_barrier_all();
    if (rc != AOS_OK)
        return fail(errno_of(rc));
    return p != NULL || size == 0 ? p : fail(ENOMEM);
}

void *aos_align(size_t alignment, size_t size)
{
    /* Inside an RPC handler the closing barrier could wait on PEs that wait
     * on this handler (core/wait.h): refused before anything is taken. */
    if (!aos__rt.initialized || aos__in_rpc_handler())
        return fail(EINVAL);
    int valid = alignment != 0 && (alignment & (alignment - 1)) == 0 && alignment <= AOS_ALIGN_MAX;
    int rc = agree(AOS__AGREE_ALIGN, valid ? AOS_OK : AOS_ERR_ALIGN, size, alignment);
    if (rc != AOS_OK)
        return fail(errno_of(rc));
    return published(heap_alloc(alignment < 16 ? 16 : alignment, size), size);
}

void *aos_malloc(size_t size)
{
    return aos_align(16, size);
}

void *aos_calloc(size_t count, size_t size)
{
    size_t total;
    if (!aos__rt.initialized || aos__in_rpc_handler())
        return fail(EINVAL);
    int overflow = __builtin_mul_overflow(count, size, &total);
    int rc = agree(AOS__AGREE_CALLOC, overflow ? AOS_ERR_SIZE : AOS_OK,
                   overflow ? UINT64_MAX : total, 0);
    if (rc != AOS_OK)
        return fail(errno_of(rc));
    void *p = heap_alloc(64, total);
    if (p != NULL)
        memset(p, 0, total);
    /* The barrier comes after the memset: no peer's put can be overwritten. */
    return published(p, total);
}

/* Says why `fn` refuses ptr: it is not a live block of the heap. */
static void not_a_block(const char *fn, const void *ptr)
{
    fprintf(stderr, "aos: PE %d: %s(%p): not a live block of the symmetric heap (never "
                    "allocated, or freed already)\n",
            aos__rt.me, fn, ptr);
}

int aos_free(void *ptr)
{
    if (!aos__rt.initialized)
        return AOS_ERR_NOT_INITIALIZED;
    if (aos__in_rpc_handler()) { /* its exchange could deadlock (core/wait.h) */
        fprintf(stderr, "aos: PE %d: aos_free(%p) inside an RPC handler: not freed\n",
                aos__rt.me, ptr);
        return AOS_ERR_INVALID;
    }
    if (ptr != NULL && !heap_owns(ptr))
        not_a_block("aos_free", ptr);
    /* Everyone has finished with the block before anyone reuses it. */
    int rc = settle_block(AOS__AGREE_FREE, ptr, 0);
    if (rc == AOS_OK && ptr != NULL)
        heap_release(ptr);
    return rc;
}

void *aos_realloc(void *ptr, size_t size)
{
    if (!aos__rt.initialized || aos__in_rpc_handler()) /* as aos_align */
        return fail(EINVAL);
    if (ptr != NULL && !heap_owns(ptr))
        not_a_block("aos_realloc", ptr);
    /* Everyone stops writing the old block before its contents move. */
    int rc = settle_block(AOS__AGREE_REALLOC, ptr, size);
    if (rc != AOS_OK)
        return fail(errno_of(rc));
    if (ptr == NULL)
        return aos_malloc(size);
    if (size == 0) {
        (void)aos_free(ptr); /* a live block: it cannot refuse it */
        return NULL;
    }
    uint64_t off = (uint64_t)((char *)ptr - aos__rt.my_base);
    size_t old = (size_t)aos__range_length(&aos__rt.heap, off);
    void *n = heap_alloc(16, size);
    if (n != NULL) {
        memcpy(n, ptr, old < size ? old : size);
        heap_release(ptr);
    }
    return published(n, size);
}
