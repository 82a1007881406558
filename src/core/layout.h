/* The shared layout of one PE's arena: a single memfd of `arena_size` bytes
 * that every PE on the node maps. Offsets into it are how the core names
 * remote memory ("arena offsets"); the transport turns them into addresses.
 *
 *   [0, AOS__HEADER_SIZE)            header below: bell, segment directory
 *   [coll_off, +coll_size)           team slots: the words collectives
 *                                    signal (layout in coll/team.h)
 *   [notify_off, +notify_size)       notification lanes, one per source
 *                                    (layout in queue/notify_lanes.h)
 *   [keys_off, +keys_size)           the network transport's remote keys:
 *                                    struct aos__key_entry, one for the
 *                                    fixed part [0, heap_off), then one per
 *                                    AOS__KEY_GRANULE from heap_off on
 *   [static_off, +static_len)        copy of the program's writable data
 *   [heap_off, +heap_size)           symmetric heap (same offsets on all PEs)
 *   [segspace_off, +segment_space)   memory of aos_seg_create segments
 *
 * Everything but the header is sparse: untouched pages cost nothing. */
#ifndef AOS_CORE_LAYOUT_H
#define AOS_CORE_LAYOUT_H

#include <stddef.h>
#include <stdint.h>

#define AOS__ARENA_MAGIC 0x616f7341524e4131ull /* "aosARNA1" */
#define AOS__MAX_SEGMENTS 1024
#define AOS__MAX_BARRIER_ROUNDS 32 /* ceil(log2(team size)) rounds of dissemination */
#define AOS__LINE 64
#define AOS__HEADER_SIZE (128u * 1024u)

/* One directory entry. `state` is even while the slot is free and odd while
 * a segment lives in it; the owner increments it on every change, so a stale
 * handle (a different state) is detected. The owner writes key/offset/size/
 * protocols only while the state is even and then publishes with a release
 * store of the odd state; attach reads state with acquire.
 * `writers` counts the threads (of any PE) inside a guarded write into the
 * segment (aos__seg_enter/leave: queue items, notified puts); destroy waits
 * until it is 0 after making the state even, so nothing is written after.
 * It lives here, in the header, because the segment's memory is reclaimed. */
struct aos__seg_entry {
    uint64_t state;
    uint64_t key;
    uint64_t offset;
    uint64_t size;
    uint32_t protocols;
    uint32_t reserved0;
    uint64_t writers;
    uint64_t reserved[2];
};
_Static_assert(sizeof(struct aos__seg_entry) == AOS__LINE, "one entry per cache line");

/* A 64-bit word alone on its cache line, so that writers of different words
 * do not contend. */
struct aos__line_word {
    uint64_t value;
    uint64_t pad[AOS__LINE / 8 - 1];
};
_Static_assert(sizeof(struct aos__line_word) == AOS__LINE, "line word is one line");

/* Where waiters sleep (protocol in core/wait.c). `doorbell` is the futex word
 * writers bump to wake sleepers; `sleepers` counts the threads sleeping (or
 * about to), and [watch_lo, watch_hi) is the arena range they wait on, so
 * writers elsewhere need not wake them (several sleepers watch everything).
 * A lone sleeper on one word of its own arena also leaves the value it saw
 * in `watch_seen`, for rings that cannot name what changed (core/wait.c).
 * The doorbell has its own line: every writer reads the sleepers line, only
 * waking writers touch the doorbell. */
struct aos__bell {
    uint32_t doorbell;
    uint32_t pad0[AOS__LINE / 4 - 1];
    uint32_t sleepers;
    uint32_t pad1;
    uint64_t watch_lo;
    uint64_t watch_hi;
    uint64_t watch_seen;
    uint64_t pad2[AOS__LINE / 8 - 4];
};
_Static_assert(sizeof(struct aos__bell) == 2 * AOS__LINE, "a bell is two lines");
_Static_assert(offsetof(struct aos__bell, sleepers) == AOS__LINE, "sleepers on line 2");
_Static_assert(offsetof(struct aos__bell, watch_seen) == AOS__LINE + 24,
               "the watch on the sleepers' line");

/* Remote keys of my arena published for the network transport, read by
 * peers with a get (the fixed part's key comes with the address exchange),
 * so that reaching a newly created segment needs nothing of its owner. The
 * owner writes len and rkey, then publishes with a release store of state 1;
 * it never rewrites a live entry. */
#define AOS__KEY_GRANULE (16ull << 20)
#define AOS__KEY_ENTRY_SIZE 512
struct aos__key_entry {
    uint64_t state; /* 0: not registered; 1: live */
    uint32_t len;   /* bytes of rkey */
    uint32_t reserved;
    unsigned char rkey[AOS__KEY_ENTRY_SIZE - 16];
};
_Static_assert(sizeof(struct aos__key_entry) == AOS__KEY_ENTRY_SIZE, "key entry size");
_Static_assert(AOS__KEY_ENTRY_SIZE % AOS__LINE == 0, "key entries are whole lines");

struct aos__arena_header {
    uint64_t magic;
    uint64_t arena_size;
    uint32_t rank;
    uint32_t pid;
    /* Set (release) by aos_finalize before the arena is unmapped; aosrun maps
     * this page and reads it when the PE ends, so a PE whose program closed
     * its launcher socket is not taken for one that never finalized. */
    uint64_t finalized;
    /* 0, or AOS__ENDED_BY_PEER | status: a PE called aos_global_exit(status)
     * under a launcher whose global exit may not stop every PE and told this PE
     * before it exited (core/peer_loss.c, which says what the other bits
     * mean). */
    uint32_t ended;
    uint32_t pad1;
    uint64_t pad0[AOS__LINE / 8 - 5];
    /* This PE's waiters sleep here; writers into the arena ring it. */
    struct aos__bell bell;
    struct aos__seg_entry segments[AOS__MAX_SEGMENTS];
};
_Static_assert(offsetof(struct aos__arena_header, bell) == 1 * AOS__LINE, "bell lines 1-2");
_Static_assert(offsetof(struct aos__arena_header, segments) % AOS__LINE == 0, "aligned dir");
_Static_assert(sizeof(struct aos__arena_header) <= AOS__HEADER_SIZE, "header fits");

#endif
