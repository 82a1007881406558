#ifndef AOS_MEM_SEGMENT_H
#define AOS_MEM_SEGMENT_H

#include <stdint.h>

#include "aos.h"
#include "core/runtime.h"

#define AOS__SEG_MAGIC 0x61736567u

struct aos_seg {
    uint32_t magic;
    int owner;
    int created; /* 1 for the owner's handle from create, 0 for attached ones */
    uint32_t index;
    uint64_t state; /* directory state when created/attached: live iff unchanged */
    uint64_t key;
    uint64_t arena_off;
    uint64_t size;
    unsigned protocols;
    const uint64_t *entry_state; /* the owner's directory entry, read to spot destroy */
    uint64_t *entry_writers;     /* its writers count; NULL off-node (no guard) */
    struct aos__remap *remap;    /* pages moved in by create_from, else NULL */
    int holds_aos_object;        /* owner's: made with an init hook (a queue of aos's) */
};

/* Keys from here up are aos's own segments (notification and RPC queues,
 * RPC records): aos_seg_* and aos_queue_* calls with them get
 * AOS_ERR_INVALID. */
#define AOS__RESERVED_KEYS_FROM AOS_KEY_RESERVED_FROM
#define AOS__RESERVED_KEY UINT64_MAX
static inline int aos__key_reserved(uint64_t key)
{
    return key >= AOS__RESERVED_KEYS_FROM;
}

/* create/attach without the reserved-key check, for aos's own segments */
int aos__seg_create_any(uint64_t key, size_t size, unsigned protocols, aos_seg_t **seg);
/* The same, with init(mem, ctx) run on the segment's fresh (zeroed) memory
 * before any PE can find it: an attacher never sees an object half made.
 * It runs under the segment lock: it must not call aos. */
typedef void (*aos__seg_init_fn)(void *mem, const void *ctx);
int aos__seg_create_init(uint64_t key, size_t size, unsigned protocols, aos__seg_init_fn init,
                         const void *ctx, aos_seg_t **seg);
int aos__seg_attach_any(int owner, uint64_t key, aos_seg_t **seg);
/* 1 when the owner's directory no longer holds this segment (destroyed, or
 * its owner unreachable), read there and then: by load on its node, by get
 * from another (no mirror, which may lag). For an attacher that found the
 * object inside unexpected: gone since, or never what it was taken for. */
int aos__seg_gone(const aos_seg_t *seg);
/* 1 when my directory's entry `index` holds the publication `state` now
 * (a segment of mine found by its name, as the network names it). */
int aos__seg_mine_published(uint32_t index, uint64_t state);

/* Checks an access of len bytes at offset with protocol proto and gives the
 * arena offset. Order of checks: handle, init, protocol, liveness, bounds. */
static inline int aos__seg_access(const aos_seg_t *seg, size_t offset, size_t len,
                                  unsigned proto, uint64_t *arena_off)
{
    if (seg == NULL)
        return AOS_ERR_NULL;
    if (seg->magic != AOS__SEG_MAGIC)
        return AOS_ERR_INVALID;
    if (!aos__rt.initialized)
        return AOS_ERR_NOT_INITIALIZED;
    if ((seg->protocols & proto) != proto)
        return AOS_ERR_PROTOCOL;
    /* Relaxed: a best-effort check for a destroyed segment; an access racing
     * with the owner's destroy is a program error either way. */
    if (__atomic_load_n(seg->entry_state, __ATOMIC_RELAXED) != seg->state)
        return AOS_ERR_DESTROYED;
    if (offset > seg->size || len > seg->size - offset)
        return AOS_ERR_BOUNDS;
    *arena_off = seg->arena_off + offset;
    return AOS_OK;
}

/* A guarded write into seg's memory, for writes that may follow a wait
 * (queue items, notified puts): between a successful enter and the leave,
 * the owner's destroy waits, so nothing is written after it. AOS_ERR_DESTROYED
 * once the owner has begun to destroy it (no leave then). Off-node handles
 * are not guarded (their writes go through the network): enter reports
 * AOS_ERR_DESTROYED once the destroy's message has come in, which is before
 * any later message of the owner (the answer a wait waited for). */
int aos__seg_enter(const aos_seg_t *seg);
void aos__seg_leave(const aos_seg_t *seg);
/* The owner's destroy, waking `bell` (its waiters re-check the segment and
 * leave) once the segment is marked destroyed; NULL: no bell. */
void aos__seg_destroy_waking(aos_seg_t *seg, struct aos__bell *bell);

#endif
