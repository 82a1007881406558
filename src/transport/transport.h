/* The transport contract. The core names remote memory as (pe, arena offset)
 * and calls these operations through the transport that serves pe
 * (aos__tp(pe), core/runtime.h): shared memory for the PEs of my node, the
 * network transport for the others, chosen once at start-up. A transport
 * fills the table with designated initialisers. An operation a transport
 * lacks is a real function returning AOS_ERR_UNSUPPORTED, never a NULL
 * pointer. Arguments arrive already checked (PE in range and served by this
 * transport, offset and length inside the target's arena). docs/transport.md
 * says how to add a transport.
 *
 * Completion: with ev == NULL an operation is complete on return (a put's
 * data is visible at the target, a get's is in dst). Otherwise the transport
 * posts ev (aos__event_post) before returning and completes it once, when
 * the operation is complete: aos__event_complete from the issuing thread
 * during the call, or aos__event_complete_async from any thread later.
 * Either way a put's source buffer may be reused as soon as the call
 * returns (put_held's only once its event completes).
 *
 * Ordering, per initiator and target PE:
 *  - signal_store and amo are applied after this PE's earlier puts to the
 *    target are visible (the transport orders them itself; no user fence);
 *  - am_send is delivered after this PE's earlier puts to the target;
 *  - gets from one target are ordered;
 *  - fence(pe): earlier operations to pe are complete before later ones;
 *    fence_all(): the same for every peer of this transport, each one's
 *    earlier operations before its later ones (no order across peers);
 *    quiet(): every earlier operation of this PE to any of this transport's
 *    peers is complete.
 *
 * Waking: a waiter sleeps on its own bell (core/wait.c). Every write a
 * transport makes into a peer's arena that may end a wait (signal_store,
 * amo, a blocking put; puts with events at the latest by the issuing
 * thread's next fence, quiet, wait or progress) must wake that peer's
 * sleepers watching the range.
 *
 * Progress: every operation completes without the target calling aos. A
 * network transport whose engine needs the target's CPU runs its own thread
 * for that, polling with growing pauses or asleep on descriptors that
 * announce arrivals while idle (AOS_NET_WAKEUP), and standing aside while the
 * program's threads drive the engine themselves. */
#ifndef AOS_TRANSPORT_H
#define AOS_TRANSPORT_H

#include <stddef.h>
#include <stdint.h>

#include "aos.h"

struct aos__runtime;

/* The most bytes one put_signal carries (the largest exchange entry run). */
#define AOS__PUT_SIGNAL_MAX 65536

/* am_send's flag for a message in a stream whose earlier messages pe will
 * answer: the transport may hold it until its next turn of progress (which
 * the first answer's arrival brings, or its own progress thread), so that
 * several leave in one network message. It keeps its place among my
 * operations to pe all the same, and leaves within a bounded time even if
 * the program never calls aos again. */
#define AOS__AM_LATER 1u

struct aos__transport {
    const char *name;
    /* shm: creates this PE's arena and maps those of the PEs of its node.
     * Network: started after shm, for the PEs not on my node; exchanges its
     * addresses through the bootstrap. */
    int (*start)(struct aos__runtime *rt);
    void (*stop)(struct aos__runtime *rt);
    /* Per-thread state for a thread other than the one that called start
     * (the progress thread): set up on it, and torn down on it at its end. */
    int (*thread_start)(void);
    void (*thread_stop)(void);
    int (*put)(int pe, uint64_t off, const void *src, size_t len, aos_event_t *ev);
    /* As put with an event (ev != NULL), except that the caller keeps src
     * unchanged until ev completes, so the transport may go on reading it
     * after returning: on a network, several puts are then on the wire at
     * once instead of each waiting until its data has left src. A put_held
     * that fails returns once nothing reads src any more. A transport
     * that copies src before returning fills it with its put. */
    int (*put_held)(int pe, uint64_t off, const void *src, size_t len, aos_event_t *ev);
    int (*get)(void *dst, int pe, uint64_t off, size_t len, aos_event_t *ev);
    int (*put_block)(int pe, uint64_t off, const void *src, const aos_block_t *b,
                     aos_event_t *ev);
    int (*get_block)(void *dst, int pe, uint64_t off, const aos_block_t *b, aos_event_t *ev);
    /* Stores a 64-bit word with release ordering (earlier operations to pe are
     * visible first) and wakes pe's waiters. off is 8-byte aligned. */
    int (*signal_store)(int pe, uint64_t off, uint64_t value);
    /* A put of len (at most AOS__PUT_SIGNAL_MAX) bytes to [off, off + len)
     * and then signal_store(sig_off, value), the data visible before the
     * word: on a network, one message instead of a put, a flush and a
     * signal. Returns once src may be reused. */
    int (*put_signal)(int pe, uint64_t off, const void *src, size_t len, uint64_t sig_off,
                      uint64_t value);
    /* Atomic op on a width-byte (4 or 8) word at off, aligned and checked.
     * When result != NULL the previous value (width bytes) is written there:
     * before return with ev == NULL, else by the time ev completes. */
    int (*amo)(int pe, uint64_t off, aos_amo_op_t op, unsigned width, uint64_t operand,
               uint64_t compare, void *result, aos_event_t *ev);
    /* Advances deferred work (wakes, network completions); cheap when idle.
     * Events must complete at the progress of a thread with
     * aos__events_wanted set (an event wait or test, aos_progress: see
     * core/wait.h); other progress may leave a completion that costs a
     * network round trip for later, but not for long. Returns non-zero when
     * it applied something for another PE (an operation or message that
     * arrived), so that a waiter keeps spinning while traffic flows instead
     * of going to sleep on it. */
    int (*progress)(void);
    /* A thread of this PE goes to sleep in the kernel until a write wakes
     * it, and wakes. A transport whose own progress thread stands aside
     * while the program drives the engine must have it serve from
     * sleep_begin until sleep_end, since a sleeper's wake may depend on
     * it. Called from any thread. */
    void (*sleep_begin)(void);
    void (*sleep_end)(void);
    int (*fence)(int pe);
    int (*fence_all)(void);
    int (*quiet)(void);
    /* A load/store pointer to pe's arena at off, or AOS_ERR_NOT_LOCAL. */
    int (*local_ptr)(int pe, uint64_t off, void **ptr);
    /* My arena's range [off, off + len) becomes accessible to this
     * transport's peers (memory registration; nothing on a node). Called by
     * the owner before the range is published (heap barrier, segment
     * directory), so accessing it stays one-sided. */
    int (*expose)(uint64_t off, uint64_t len);
    /* An active message: len bytes (at most AOS__AM_MAX) handed to the core
     * handler `id` (core/am.h) at pe, run by whichever of pe's threads drives
     * its progress. Returns once payload may be reused. flags: 0, or
     * AOS__AM_LATER (below). */
    int (*am_send)(int pe, unsigned id, const void *payload, size_t len, unsigned flags);
};

extern const struct aos__transport aos__transport_shm;
/* The network transport of this build: UCX, or, built without it, one whose
 * start explains that PEs on other nodes cannot be reached. */
extern const struct aos__transport aos__transport_net;

#endif
