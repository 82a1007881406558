/* Symmetric memory: the program's static data, the symmetric heap, and the
 * translation of symmetric addresses to arena offsets. */
#ifndef AOS_MEM_MEMORY_H
#define AOS_MEM_MEMORY_H

#include <stddef.h>
#include <stdint.h>

#include "arch/atomics.h"
#include "core/runtime.h"

/* The page-aligned range of the main program's writable data (.data, .bss);
 * len 0 when there is none. */
void aos__static_data_range(uintptr_t *lo, uint64_t *len);

/* Moves static data into the arena and sets up the heap and segment-space
 * allocators. aos__memory_stop undoes what remains (buffers published with
 * aos_seg_create_from are made private again). */
int aos__memory_start(struct aos__runtime *rt);
void aos__memory_stop(struct aos__runtime *rt);

/* aos__sym_locate for addresses outside the heap: static data. */
int aos__sym_locate_static(const void *addr, size_t len, uint64_t *off);

/* The heap case of aos__sym_locate alone: 1 and *off when [addr, addr+len)
 * lies in the symmetric heap's allocated part (below heap_top), else 0.
 * Fast paths use it directly and hand everything else to the checked
 * path. */
static inline int aos__heap_locate(const void *addr, size_t len, uint64_t *off)
{
    const struct aos__runtime *rt = &aos__rt;
    uintptr_t rel = (uintptr_t)addr - ((uintptr_t)rt->my_base + rt->heap_off);
    /* Relaxed: the block's allocation happened before its address reached
     * this thread; a thread that guesses addresses beyond is in error. */
    uint64_t top = aos__load_relaxed(&rt->heap_top);
    if (rel >= top || len > top - rel) /* below the heap wraps */
        return 0;
    *off = rt->heap_off + rel;
    return 1;
}

/* Translates [addr, addr+len) in my symmetric memory to an arena offset valid
 * on every PE. AOS_ERR_NOT_SYMMETRIC if addr is not symmetric, AOS_ERR_BOUNDS
 * if the range runs off the end of its region. Inline, with the heap tested
 * first: it is on the path of every symmetric put, get and atomic. */
static inline int aos__sym_locate(const void *addr, size_t len, uint64_t *off)
{
    if (aos__heap_locate(addr, len, off))
        return AOS_OK;
    const struct aos__runtime *rt = &aos__rt;
    if ((uintptr_t)addr - ((uintptr_t)rt->my_base + rt->heap_off) < rt->heap_size)
        return AOS_ERR_BOUNDS; /* in the heap, past the end of what it ever gave */
    return aos__sym_locate_static(addr, len, off);
}

/* Where local memory at p lives in my arena, if it does: the symmetric heap
 * and static data, buffers published in place, or my own arena view.
 * Returns 1 and sets *off, else 0. */
int aos__local_arena_off(const void *p, uint64_t *off);

/* Moves the pages holding [lo, hi) (page aligned) into my arena at arena_off:
 * their contents are kept, their address stays the same. */
int aos__remap_into_arena(struct aos__runtime *rt, uintptr_t lo, uintptr_t hi,
                          uint64_t arena_off);
/* Whether arena range [off, off + len) of mine lies in one live segment of
 * mine with a user's key that holds no object of aos's (a queue under a
 * user's key does): AOS_OK; AOS_ERR_BOUNDS when it starts in one and
 * runs past its end; else AOS_ERR_NOT_SYMMETRIC (segment.c). */
int aos__own_segment_range(uint64_t off, uint64_t len);
/* Where local memory [p, p + len) lies in my arena, if all of it lies in
 * one object a user may hand to other PEs to write: the symmetric heap's
 * allocated part, static data, or one of my segments (its arena view or
 * the buffer it was created from). AOS_OK and *off; AOS_ERR_BOUNDS when the
 * range starts in one and runs past its end; else AOS_ERR_NOT_SYMMETRIC
 * (aos's own objects in my arena included). */
int aos__local_user_range(const void *p, size_t len, uint64_t *off);
/* Where buffer address a, published in place (aos_seg_create_from), lives
 * in my arena: 1 and *off, else 0 (segment.c, under its lock). */
int aos__remap_find(uintptr_t a, uint64_t *off);

/* Does the part of [a, a + len) that lies in the region of addresses
 * [v, v + vlen), which is arena memory from offset o, meet arena range
 * [off, off + olen)? */
static inline int aos__region_meets(uintptr_t a, size_t len, uintptr_t v, uint64_t vlen,
                                    uint64_t o, uint64_t off, uint64_t olen)
{
    uintptr_t lo = a > v ? a : v;
    uintptr_t end = len > UINTPTR_MAX - a ? UINTPTR_MAX : a + len; /* no wrap */
    uintptr_t hi = end < v + vlen ? end : v + vlen;
    if (lo >= hi || olen == 0)
        return 0;
    uint64_t from = o + (lo - v);
    return from < off + olen && off < from + (hi - lo);
}
/* aos__region_meets over the buffers published in place (segment.c). */
int aos__remap_meets(uintptr_t a, size_t len, uint64_t off, uint64_t olen);
/* 1 when some byte of my memory [p, p + len) is the same memory as my
 * arena's [off, off + olen): the arena's own view, the program's static
 * data and buffers published in place are arena memory under addresses of
 * their own, and a buffer may begin in private memory and end in one of
 * them. */
int aos__local_meets_arena(const void *p, size_t len, uint64_t off, uint64_t olen);
/* The reverse: the pages become private memory again with the same contents. */
int aos__remap_out_of_arena(struct aos__runtime *rt, uintptr_t lo, uintptr_t hi,
                            uint64_t arena_off);

/* AOS_OK when every page of [lo, hi) (page aligned) is mapped readable,
 * writable and private (not shared with another process: no arena, no
 * shared mapping), per one read of /proc/self/maps. Else AOS_ERR_INVALID, or
 * AOS_ERR_SYSTEM when the list cannot be read, with *why saying what is wrong
 * (own_memory.c). */
int aos__check_own_memory(uintptr_t lo, uintptr_t hi, const char **why);

/* Registers the segment layer's message handler (segment.c). */
void aos__segments_start(void);
/* Destroys what is left of my segments at finalize (segment.c). */
void aos__segments_stop(struct aos__runtime *rt);

#endif
