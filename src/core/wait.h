/* The waiting engine every blocking call uses: spin, then yield, then sleep on
 * a bell (core/layout.h) until a writer rings it with aos__bell_ring. */
#ifndef AOS_CORE_WAIT_H
#define AOS_CORE_WAIT_H

#include <stdint.h>

#include "aos.h"
#include "core/tls.h"

#define AOS__FOREVER UINT64_MAX

/* Returns non-zero once the awaited condition holds. */
typedef int (*aos__ready_fn)(const void *ctx);

/* The part of my arena whose writes can make a wait's condition true;
 * writers elsewhere do not wake the waiter. A watch of one aligned word
 * promises more: ready() turns true only when that word's value changes
 * (or by the waiter's own progress, which its polls see), so a lone
 * sleeper on it sleeps through network writes that leave it as it was
 * (aos__bell_ring_applied). */
struct aos__watch {
    uint64_t lo, hi; /* arena offsets, [lo, hi) */
};
#define AOS__WATCH_ALL ((struct aos__watch){0, UINT64_MAX})

/* AOS_OK once ready(ctx) is true, AOS_ERR_TIMEOUT after timeout_ns. Sleeps on
 * my doorbell: writers into my arena wake me. */
int aos__wait(aos__ready_fn ready, const void *ctx, uint64_t timeout_ns,
              struct aos__watch watch);
/* The same on any bell in shared memory (a queue's "space" bell, say). */
struct aos__bell;
int aos__wait_bell(struct aos__bell *bell, aos__ready_fn ready, const void *ctx,
                   uint64_t timeout_ns, struct aos__watch watch);
/* The common case: until the 64-bit word at offset `off` of my arena has
 * reached value. Its acquire load pairs with the writer's release
 * (signal_store), so what the writer wrote before is visible on return. */
int aos__wait_arena_word(uint64_t off, uint64_t value);
/* A waiter's spin checks what it waits for this many times per turn of
 * progress (wait.c says why), so AOS_SPIN_COUNT / AOS__POLLS_PER_PAUSE
 * turns go by before it yields its CPU: a transport that waits for a
 * request of its own yields after as many turns without news. */
#define AOS__POLLS_PER_PAUSE 8
/* The writer's half: after its writes to [lo, hi) and a seq_cst barrier,
 * wakes the bell's sleepers if they watch that range (all of them, or one
 * when any one of them can use what was written). */
void aos__bell_ring(struct aos__bell *bell, uint64_t lo, uint64_t hi, int wake_all);
/* aos__bell_ring on my own bell, for every sleeper whatever it watches:
 * what a message handler uses, its write possibly ending any wait of this
 * PE. */
void aos__bell_ring_mine(void);
/* The same, with its fence, by a thread of mine that applied writes whose
 * places it cannot name (the network's, which this CPU applies): a lone
 * sleeper whose one watched word still holds what it saw is left asleep. */
void aos__bell_ring_applied(uint64_t lo, uint64_t hi);
/* My PE's own bell, in my arena's header: writers into my arena ring it. */
struct aos__bell *aos__my_bell(void);

/* Drives everything that completes in the background: the transport's
 * deferred work and pending requests such as asynchronous dequeues. Called
 * by every wait; cheap when idle. */
void aos__progress(void);
/* aos__progress as an event test or aos_progress does it: with
 * aos__events_wanted set (core/event.c). */
void aos__progress_completing(void);

/* Non-zero while this thread waits for or tests events, or calls
 * aos_progress: a transport that completes the events of puts lazily (one
 * network flush for many) completes them at this thread's progress now;
 * other waits (for a word) may leave them for later (transport contract:
 * progress). */
extern AOS__TLS int aos__events_wanted;
/* 1 on the progress thread, whose progress only serves RPCs: everything
 * else belongs to the program's threads. */
extern AOS__TLS int aos__in_progress_thread;
/* 1 while this thread is in the sleeping part of a wait (its polls between
 * futex sleeps). The progress thread, asleep until a request comes, leaves
 * the network to the program's threads and the transport's own thread
 * then (transports.c): when it wakes to look, it takes no turns at the
 * engine with a program thread that drives it. */
extern AOS__TLS int aos__wait_sleeping;
/* Work this thread did for other PEs: RPC handlers it served, network
 * operations and messages its progress applied. A waiter that did some
 * starts spinning afresh, its callers being active. Per thread, so that a
 * thread that does not serve (the program's, when a progress thread serves)
 * does not spin on its peer thread's account. */
extern AOS__TLS uint64_t aos__handlers_run_here;
/* How many RPC handlers are on this thread's stack (rpc/serve.c): those of
 * one chain of nested calls, and those of other callers it served while
 * waiting inside them. Calls that need every PE to take part (barriers,
 * collectives, aos_malloc/aos_free, aos_finalize) refuse to run inside a
 * handler: the peers they wait for may be waiting on this handler's reply,
 * or nowhere near the same call. */
extern AOS__TLS int aos__rpc_depth;
/* The chain depth of the handler running innermost on this thread: 1 for a
 * call made outside handlers, one more for each call from a handler. A
 * handler at AOS_RPC_MAX_DEPTH (aos.h) may not call further. */
extern AOS__TLS uint32_t aos__rpc_chain;
/* The most handlers on one thread's stack: chains that run at once add up
 * on the threads that serve them, so this leaves room for several chains at
 * the limit. A thread this deep serves no more, and a handler this deep
 * may not call (the call could need this thread to serve). */
#define AOS__RPC_STACK_MAX (4 * AOS_RPC_MAX_DEPTH)

static inline int aos__in_rpc_handler(void)
{
    return aos__rpc_depth != 0;
}

#endif
