/* Symmetric memory: the program's static data, the symmetric heap, and the
 * translation of symmetric addresses to arena offsets. */
#ifndef AOS_MEM_MEMORY_H
#define AOS_MEM_MEMORY_H

#include <stddef.h>
#include <stdint.h>

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
 * lies in the symmetric heap, else 0. Fast paths use it directly and hand
 * everything else to the checked path. */
static inline int aos__heap_locate(const void *addr, size_t len, uint64_t *off)
{
    const struct aos__runtime *rt = &aos__rt;
    uintptr_t rel = (uintptr_t)addr - ((uintptr_t)rt->my_base + rt->heap_off);
    if (rel >= rt->heap_size || len > rt->heap_size - rel) /* below the heap wraps */
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
    uint64_t start;
    if (aos__heap_locate(addr, 0, &start))
        return AOS_ERR_BOUNDS; /* starts in the heap, runs off its end */
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
