#include "core/wait.h"

#include <sched.h>

#include "arch/atomics.h"
#include "arch/cpu.h"
#include "arch/futex.h"
#include "core/runtime.h"

AOS__TLS uint64_t aos__handlers_run_here;
AOS__TLS int aos__wait_sleeping;

/* Polls ready() after driving progress (deferred wakes, pending requests). */
static inline int poll_ready(aos__ready_fn ready, const void *ctx)
{
    aos__progress();
    return ready(ctx);
}

struct aos__bell *aos__my_bell(void)
{
    return &aos__rt.peers[aos__rt.me].header->bell;
}

/* The word a lone sleeper on my bell watches, or NULL: the watch is not
 * one aligned word of my arena. */
static const uint64_t *watched_word(const struct aos__bell *h, uint64_t lo, uint64_t hi)
{
    if (h != aos__my_bell() || hi - lo != 8 || lo % 8 != 0)
        return NULL;
    return (const uint64_t *)(void *)(aos__rt.my_base + lo);
}

/* Sleep protocol on a bell: the waiter's half is announce + sleep_until, the
 * writer's half aos__bell_ring.
 *   waiter: sleepers++; watch = range; fence; seq = doorbell;
 *           if ready: leave; futex_wait(seq)
 *   writer: write data; fence; if sleepers and the write meets watch:
 *           doorbell++; futex_wake
 * With both fences seq_cst, either the writer sees the waiter's sleepers and
 * watch and rings, or the waiter's ready() sees the data (a writer reading a
 * stale watch has missed the waiter's stores, so the waiter sees its data).
 * A ring after `seq` was read makes futex_wait return at once. */
static void announce(struct aos__bell *h, struct aos__watch w)
{
    uint32_t before = aos__fetch_add_seq_cst(&h->sleepers, 1);
    if (before != 0)
        w = AOS__WATCH_ALL; /* another thread sleeps too: wake for anything */
    /* Relaxed, all three: published to writers by the seq_cst fence that
     * follows. The value is read before that fence, so the ready() after
     * it sees it or a later one (aos__bell_ring_applied). */
    const uint64_t *word = watched_word(h, w.lo, w.hi);
    if (word != NULL)
        aos__store_relaxed(&h->watch_seen, aos__load_relaxed(word));
    aos__store_relaxed(&h->watch_lo, w.lo);
    aos__store_relaxed(&h->watch_hi, w.hi);
}

/* The sleeper leaves: it first widens the watch to everything, so that a
 * sleeper that stays is never judged by this one's watch. Two announcing
 * at once may leave the later announcer's stores under the earlier one's
 * (relaxed, from two threads), and a departure without this would leave
 * the bell describing a thread that is gone. Relaxed: published by the
 * release of the decrement, which aos__bell_ring_applied acquires. */
static void depart(struct aos__bell *h)
{
    aos__store_relaxed(&h->watch_lo, 0);
    aos__store_relaxed(&h->watch_hi, UINT64_MAX);
    aos__fetch_sub_seq_cst(&h->sleepers, 1);
}

void aos__bell_ring(struct aos__bell *b, uint64_t lo, uint64_t hi, int wake_all)
{
    /* Relaxed: ordered after the caller's writes by its seq_cst barrier, which
     * pairs with the fence in sleep_until. */
    if (aos__load_relaxed(&b->sleepers) == 0)
        return;
    if (hi <= aos__load_relaxed(&b->watch_lo) || lo >= aos__load_relaxed(&b->watch_hi))
        return;
    aos__fetch_add_seq_cst(&b->doorbell, 1);
    if (wake_all)
        aos__futex_wake_all(&b->doorbell);
    else
        aos__futex_wake_one(&b->doorbell);
}

void aos__bell_ring_mine(void)
{
    aos__bell_ring(aos__my_bell(), 0, UINT64_MAX, 1);
}

void aos__bell_ring_applied(uint64_t lo, uint64_t hi)
{
    struct aos__bell *b = aos__my_bell();
    aos__fence_seq_cst(); /* the writer's half of the sleep protocol, as above */
    /* A lone sleeper whose word still holds the value it read before its
     * fence has nothing new to see: either this thread saw its
     * announcement, and then the writes applied before this call came
     * after that read (or it saw them), or its ready() after its fence
     * sees them. A one-word watch promises that only a change of that word
     * can make ready() true (core/wait.h), so an unchanged value leaves it
     * as false as it was. Acquire: pairs with the decrement of a departing
     * sleeper, whose widened watch is then seen (depart); the fields read
     * after it are relaxed, as in aos__bell_ring. Fields that mix two
     * announcements come from a sleeper this thread missed, whose ready()
     * then sees the writes, or from two sleepers, not one. */
    if (aos__load_acquire(&b->sleepers) == 1) {
        const uint64_t *word = watched_word(b, aos__load_relaxed(&b->watch_lo),
                                            aos__load_relaxed(&b->watch_hi));
        if (word != NULL && aos__load_relaxed(word) == aos__load_relaxed(&b->watch_seen))
            return;
    }
    aos__bell_ring(b, lo, hi, 1);
}

/* AOS__POLLS_PER_PAUSE (core/wait.h): spinning checks what it waits for
 * that many times per CPU pause, and drives progress (deferred wakes,
 * RPCs, notification lanes: other PEs' lines) once per pause, as often in
 * time as when it paused before every check. A pause lasts tens of
 * nanoseconds, long against a check of a cached word, and a word that
 * changes during one is seen only after it: a pause before every check
 * delays the end of short waits (small broadcasts and all-reduces), a few
 * checks per pause do not. Progress at that rate still serves posted RPCs
 * as fast as progress at every check. */

/* Internal: the sleeper served others (RPCs, network traffic); they are
 * active, spin again. */
#define SERVED 1

static int sleep_until(struct aos__bell *h, aos__ready_fn ready, const void *ctx,
                       uint64_t deadline, struct aos__watch watch)
{
    uint64_t slice = aos__rt.cfg.sleep_us * 1000u;
    uint64_t served = aos__handlers_run_here;
    for (;;) {
        announce(h, watch);
        aos__fence_seq_cst(); /* pairs with the writer's fence in wake_now/flush */
        uint32_t seq = aos__load_seq_cst(&h->doorbell);
        if (poll_ready(ready, ctx)) {
            depart(h);
            return AOS_OK;
        }
        uint64_t now = aos__now_ns();
        if (now >= deadline) {
            depart(h);
            return AOS_ERR_TIMEOUT;
        }
        uint64_t left = deadline - now;
        aos__futex_wait(&h->doorbell, seq, left < slice ? left : slice);
        depart(h);
        if (poll_ready(ready, ctx))
            return AOS_OK;
        if (aos__handlers_run_here != served)
            return SERVED;
    }
}

/* Internal: spinning and yielding ran out, sleep next. */
#define KEEP_WAITING 2

/* The waiter's busy part: spin, then yield, driving progress all along. */
static int spin_then_yield(aos__ready_fn ready, const void *ctx, uint64_t deadline)
{
    uint64_t served = aos__handlers_run_here;
    for (uint64_t i = 0; i < aos__rt.cfg.spin_count; i++) {
        if (i % AOS__POLLS_PER_PAUSE != AOS__POLLS_PER_PAUSE - 1) {
            if (ready(ctx)) /* my own lines, until a writer changes them */
                return AOS_OK;
            continue;
        }
        aos__cpu_relax();
        if (poll_ready(ready, ctx))
            return AOS_OK;
        if (aos__handlers_run_here != served) { /* serving others: they are active */
            served = aos__handlers_run_here;
            i = 0;
            if (deadline != UINT64_MAX && aos__now_ns() >= deadline)
                return AOS_ERR_TIMEOUT; /* callers that never stop must not void it */
        }
    }
    for (uint64_t i = 0; i < aos__rt.cfg.yield_count; i++) {
        sched_yield();
        if (poll_ready(ready, ctx))
            return AOS_OK;
        if (aos__now_ns() >= deadline)
            return AOS_ERR_TIMEOUT;
    }
    return KEEP_WAITING;
}

static int wait_bell(struct aos__bell *bell, aos__ready_fn ready, const void *ctx,
                     uint64_t timeout_ns, struct aos__watch watch)
{
    /* Progress first: the PE we wait for may be waiting on our deferred wakes. */
    if (poll_ready(ready, ctx))
        return AOS_OK;
    uint64_t start = aos__now_ns();
    uint64_t deadline = timeout_ns == AOS__FOREVER || start + timeout_ns < start
                            ? UINT64_MAX
                            : start + timeout_ns;
    int rc;
    do { /* again after sleeping, when woken to serve others */
        rc = spin_then_yield(ready, ctx, deadline);
        if (rc != KEEP_WAITING)
            return rc;
        /* A network transport's progress thread, standing aside while this
         * thread drove progress, serves while it sleeps. */
        int announced = aos__sleep_begin();
        aos__wait_sleeping = 1;
        rc = sleep_until(bell, ready, ctx, deadline, watch);
        aos__wait_sleeping = 0;
        aos__sleep_end(announced);
    } while (rc == SERVED);
    return rc;
}

int aos__wait_bell(struct aos__bell *bell, aos__ready_fn ready, const void *ctx,
                   uint64_t timeout_ns, struct aos__watch watch)
{
    /* A wait inside a handler that a sleeping wait's poll ran is awake. */
    int outer_sleeping = aos__wait_sleeping;
    aos__wait_sleeping = 0;
    int rc = wait_bell(bell, ready, ctx, timeout_ns, watch);
    aos__wait_sleeping = outer_sleeping;
    return rc;
}

int aos__wait(aos__ready_fn ready, const void *ctx, uint64_t timeout_ns,
              struct aos__watch watch)
{
    return aos__wait_bell(aos__my_bell(), ready, ctx, timeout_ns,
                          watch);
}

struct word_goal {
    const uint64_t *word;
    uint64_t value;
};

static int word_reached(const void *ctx)
{
    const struct word_goal *g = ctx;
    /* Acquire: pairs with the writer's release (see aos__wait_arena_word). */
    return aos__load_acquire(g->word) >= g->value;
}

int aos__wait_arena_word(uint64_t off, uint64_t value)
{
    struct word_goal g = {(const uint64_t *)(void *)(aos__rt.my_base + off), value};
    if (word_reached(&g))
        return AOS_OK;
    return aos__wait(word_reached, &g, AOS__FOREVER, (struct aos__watch){off, off + 8});
}
