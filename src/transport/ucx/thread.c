/* The network progress thread. UCP over some networks (TCP among them)
 * needs the target's CPU to apply puts, gets and atomics and to run message
 * handlers; this thread gives it, so a target that computes and never calls
 * aos still serves every one-sided operation. Idle, it polls ever more
 * rarely, or sleeps on descriptors that announce arrivals (below).
 *
 * While the program drives the worker itself (its waits, and each operation
 * it issues: aos__ucx_driven; and for as long as a program thread is inside
 * a call into UCP: aos__ucx_enter), this thread stands aside: two threads
 * taking turns at UCP's lock, one of them woken by the kernel for every
 * message, cost more than either alone. It parks, looks again after the
 * park, and serves once a whole park went by without the program driving,
 * or at once when a program thread goes to sleep in the kernel
 * (sleep_begin): its wake may depend on this thread applying the write that
 * ends its wait. Each park that ends with the program having driven during
 * it doubles the next, from PARK_MIN_NS up to PARK_MAX_NS, and serving
 * starts again from the shortest: every wake of this thread takes a CPU
 * from a program thread that is busy communicating (on a machine whose CPUs
 * are all taken, a delay on its critical path), so a program that keeps
 * driving is looked at rarely. A program that stops driving is served when
 * the park under way ends, after one probe (PROBE_NS) if it drove during
 * that park: at most PARK_MAX_NS and a probe, and less after a short burst.
 *
 * Records a program coalesced (coalesce.c) and then left, computing or
 * spinning on its own memory, are sent by this thread within about
 * RECORDS_NS after the program stopped driving: while some wait it parks
 * no longer than that and does not poll, and the first record appended
 * while it polls or parks longer cuts that short (aos__ucx_thread_nudge).
 * It does not send them at once: a program streaming small operations
 * fills its buffers faster than this thread could wake for each.
 *
 * Serving, the thread sleeps between turns on descriptors that announce
 * each arrival (sleep.c says which, AOS_NET_WAKEUP), or it dozes: with
 * AOS_NET_WAKEUP=0, and where no descriptor announces every peer's
 * arrivals. Dozing, it sleeps POLL_MIN_NS after a turn that applied
 * something, twice as long after each empty one up to POLL_MAX_NS, and a
 * program thread going to sleep in the kernel cuts the doze short. That
 * suits a program that waits inside aos; a target that computes is then
 * served up to POLL_MAX_NS late. */
#include <errno.h>
#include <pthread.h>

#include "arch/atomics.h"
#include "arch/futex.h"
#include "core/runtime.h"
#include "core/tls.h"
#include "core/wait.h"
#include "transport/ucx/ucx.h"

#define U aos__ucx

/* How long this thread stays parked before it looks again: how long the
 * program may stop driving, without sleeping, before this thread serves;
 * the shortest and the longest park. */
#define PARK_MIN_NS 1000000u
#define PARK_MAX_NS 8000000u

/* How long an idle poll lasts (ms), and how long coalesced records wait
 * for this thread (ns). */
#define IDLE_MS 100
#define RECORDS_NS 1000000u
_Static_assert(PARK_MIN_NS <= RECORDS_NS, "the shortest park is never nudged");

/* Dozing: the shortest and the longest doze between
 * polls. No nudge reaches a doze: the longest leaves records waiting no
 * longer than RECORDS_NS. */
#define POLL_MIN_NS 16000u
#define POLL_MAX_NS RECORDS_NS

/* How long the thread watches a program that drove the worker before it
 * stands aside (loop). */
#define PROBE_NS 50000u

static struct {
    pthread_t thread;
    int running;
    int stop;          /* set by aos__ucx_thread_stop */
    uint32_t driven;   /* bumped by program threads' turns and issues */
    uint32_t inside;   /* program threads inside a call into UCP (aos__ucx_enter) */
    uint32_t sleepers; /* program threads asleep in the kernel */
    uint32_t parked;   /* 1 while this thread is parked or dozes */
    uint32_t turn;     /* futex word: bumped to send a parked thread back */
    uint32_t idle_poll; /* 1 while this thread polls for IDLE_MS */
    uint32_t long_park; /* 1 while this thread parks longer than RECORDS_NS */
    uint32_t appends;   /* bumped by each nudge */
} T;

static AOS__TLS int on_thread; /* 1 on this progress thread */

/* The calling thread is a program's: neither this progress thread nor the
 * RPC progress thread, whose turns are no program driving (it sleeps
 * whenever no request is queued, and unannounced while the program drives,
 * core/transports.c, so standing aside for it would leave the network to a
 * thread that does not stay). */
static int program_thread(void)
{
    return !on_thread && !aos__in_progress_thread;
}

void aos__ucx_driven(void)
{
    if (!program_thread())
        return;
    /* Relaxed load and store, not an atomic increment: a lost update between
     * two program threads still changes the value, which is all the reader
     * looks for. */
    aos__store_relaxed(&T.driven, aos__load_relaxed(&T.driven) + 1);
}

void aos__ucx_enter(void)
{
    if (!program_thread())
        return;
    /* Relaxed: a hint, as driven; an increment, not a store, because two
     * program threads may be inside at once. */
    (void)aos__fetch_add_relaxed(&T.inside, 1);
}

void aos__ucx_leave(void)
{
    if (!program_thread())
        return;
    (void)aos__fetch_sub_relaxed(&T.inside, 1); /* relaxed: as in aos__ucx_enter */
}

void aos__ucx_sleep_begin(void)
{
    /* seq_cst, with park's seq_cst store of parked and load of sleepers:
     * either park sees this sleeper and does not wait, or this load sees
     * parked and bumps turn, which ends park's futex wait. */
    if (aos__fetch_add_seq_cst(&T.sleepers, 1) == 0 && aos__load_seq_cst(&T.parked)) {
        (void)aos__fetch_add_seq_cst(&T.turn, 1);
        aos__futex_wake_one(&T.turn);
    }
}

void aos__ucx_sleep_end(void)
{
    (void)aos__fetch_sub_seq_cst(&T.sleepers, 1); /* seq_cst: as in sleep_begin */
}

void aos__ucx_thread_nudge(void)
{
    /* Relaxed: as driven in aos__ucx_driven. */
    aos__store_relaxed(&T.appends, aos__load_relaxed(&T.appends) + 1);
    /* seq_cst: with the appender's seq_cst exchange of U.coalesced before
     * it, and this thread's store of idle_poll (long_park) before its load
     * of U.coalesced (loop, park): either this thread sees the records and
     * polls (parks) briefly, or this sees it polling (parked) long and cuts
     * that short. The exchange wakes a long park once, and the parks
     * after it start again from the shortest (loop). */
    if (aos__load_seq_cst(&T.idle_poll)) /* set only when it sleeps on descriptors */
        aos__ucx_sleep_interrupt();
    if (aos__load_seq_cst(&T.long_park) && aos__exchange_seq_cst(&T.long_park, 0) != 0) {
        (void)aos__fetch_add_seq_cst(&T.turn, 1);
        aos__futex_wake_one(&T.turn);
    }
}

/* Stands aside for at most ns, or RECORDS_NS while records wait; at once
 * back when a program thread goes to sleep or the thread is stopped, or,
 * when longer than RECORDS_NS, when the first record is appended meanwhile
 * (aos__ucx_thread_nudge, which counts the append first). */
static void park(uint64_t ns)
{
    aos__store_seq_cst(&T.parked, 1);
    if (ns > RECORDS_NS) {
        aos__store_seq_cst(&T.long_park, 1); /* seq_cst: see aos__ucx_thread_nudge */
        if (aos__load_seq_cst(&U.coalesced))
            ns = RECORDS_NS;
    }
    uint32_t turn = aos__load_seq_cst(&T.turn);
    if (aos__load_seq_cst(&T.sleepers) == 0 && !aos__load_acquire(&T.stop))
        aos__futex_wait(&T.turn, turn, ns);
    /* Relaxed: a nudge that finds it still set only bumps turn once more,
     * which the next park's load of turn takes in. */
    aos__store_relaxed(&T.long_park, 0);
    aos__store_relaxed(&T.parked, 0); /* relaxed: only saves wakes */
}

/* Dozing, between two polls: sleeps ns, or until a
 * program thread goes to sleep (aos__ucx_sleep_begin, which finds parked
 * set and bumps turn) or the thread is stopped. Returns whether it was cut
 * short. */
static int doze(uint64_t ns)
{
    /* seq_cst: with sleep_begin's increment of sleepers and load of parked,
     * as in park; a sleep that misses this doze waits out at most ns. A
     * thread already asleep does not keep this one awake: it dozes too. */
    aos__store_seq_cst(&T.parked, 1);
    uint32_t turn = aos__load_seq_cst(&T.turn);
    if (!aos__load_acquire(&T.stop)) /* pairs with the release in ..._stop */
        aos__futex_wait(&T.turn, turn, ns);
    aos__store_relaxed(&T.parked, 0); /* relaxed: only saves wakes */
    return aos__load_relaxed(&T.turn) != turn;
}

/* Sleeps on the transport's descriptors (sleep.c) until something
 * arrives, at most IDLE_MS; returns 0 when the thread should end. */
static int sleep_on_events(void)
{
    int armed = aos__ucx_sleep_arm();
    if (armed == 0)
        return 1; /* events came in meanwhile: progress again */
    if (armed < 0)
        return 0;
    if (aos__load_acquire(&T.stop)) /* pairs with the release in ..._stop */
        return 0;
    /* A bounded sleep: work queued by settle with nothing to wake the
     * descriptors (a flush issued while every reply was already in) is
     * picked up within it. seq_cst, both: see aos__ucx_thread_nudge. */
    aos__store_seq_cst(&T.idle_poll, 1);
    int rc = 0;
    if (!aos__load_seq_cst(&U.coalesced))
        rc = aos__ucx_sleep_poll(IDLE_MS);
    aos__store_relaxed(&T.idle_poll, 0); /* relaxed: a late nudge only costs a wake */
    if (rc < 0 && errno != EINTR)
        return 0;
    /* Records waiting (or the nudge that ended the poll) wait a little
     * more, so that a stream fills its buffer before they go. */
    if (aos__load_relaxed(&U.coalesced))
        park(RECORDS_NS);
    return 1;
}

/* A park or doze twice as long as ns, up to max (loop says when). */
static uint64_t doubled(uint64_t ns, uint64_t max)
{
    return ns < max / 2 ? 2 * ns : max;
}

/* Whether a program thread drove the worker since `seen`, or is inside a
 * call that drives it now, and none sleeps in the kernel. One turn that
 * receives a large message, or the issue of a large transfer, holds UCP's
 * lock for longer than a probe lasts, with no turn or issue counted
 * meanwhile. Relaxed: the program's turns need no order with this; a
 * stale value costs one more park or one turn of contention. Sleepers are
 * read seq_cst in park. */
static int program_drives(uint32_t seen)
{
    return (aos__load_relaxed(&T.driven) != seen || aos__load_relaxed(&T.inside) != 0) &&
           aos__load_relaxed(&T.sleepers) == 0;
}

/* A program thread drove the worker since *seen. Only one driving now is a
 * reason to stand aside: one that calls aos_progress now and then while
 * it computes would leave the network to those calls. A probe tells them
 * apart (a waiting thread turns the worker every microsecond or so), and
 * one that goes to sleep meanwhile cuts it short. Updates *seen. */
static int driving_now(uint32_t *seen)
{
    /* Relaxed, all: as in program_drives. A program thread inside UCP
     * counts only when it was already inside as the probe began (one call
     * that lasts the whole probe): one caught inside a single call at the
     * end may be a program that drives now and then. */
    *seen = aos__load_relaxed(&T.driven);
    int inside_before = aos__load_relaxed(&T.inside) != 0;
    doze(PROBE_NS);
    int drove = aos__load_relaxed(&T.driven) != *seen ||
                (inside_before && aos__load_relaxed(&T.inside) != 0);
    if (!drove || aos__load_relaxed(&T.sleepers) != 0)
        return 0;
    *seen = aos__load_relaxed(&T.driven);
    return 1;
}

static void *loop(void *arg)
{
    (void)arg;
    on_thread = 1;
    (void)pthread_setname_np(pthread_self(), "aos-ucx"); /* for top -H, gdb */
    uint32_t seen = aos__load_relaxed(&T.driven);
    uint64_t park_ns = PARK_MIN_NS, doze_ns = POLL_MIN_NS;
    /* Acquire: pairs with the release in aos__ucx_thread_stop. */
    while (!aos__load_acquire(&T.stop)) {
        if (program_drives(seen) && driving_now(&seen)) {
            /* A program that appends records keeps the parks at the
             * shortest, which no nudge wakes: one exchanging messages
             * with records sends them itself, and is not woken for each.
             * Relaxed: a stale count costs one park's length. */
            uint32_t appends = aos__load_relaxed(&T.appends);
            park(park_ns);
            park_ns = aos__load_relaxed(&T.appends) != appends ? PARK_MIN_NS
                                                               : doubled(park_ns, PARK_MAX_NS);
            continue;
        }
        park_ns = PARK_MIN_NS;
        /* Each turn that applied something rings my sleepers: on networks
         * that need this CPU (TCP) no wake message follows the write. A
         * stream keeps every turn busy: a program thread that starts
         * driving meanwhile (one woken by it) takes over at once, instead
         * of taking turns with this thread at UCP's lock for as long as
         * the stream lasts. */
        int applied = 0;
        while (aos__ucx_drive_once() != 0) {
            applied = 1;
            if (program_drives(seen))
                break;
        }
        aos__ucx_settle(AOS__UCX_SETTLE_EAGER); /* events polled by a program that computes */
        if (program_drives(seen))
            continue; /* it took over: park */
        if (U.sleep_on != AOS__UCX_SLEEP_DOZE) {
            if (!sleep_on_events())
                break;
            continue;
        }
        doze_ns = applied ? POLL_MIN_NS : doubled(doze_ns, POLL_MAX_NS);
        if (doze(doze_ns))
            doze_ns = POLL_MIN_NS; /* a program thread went to sleep: it waits on the network */
    }
    return NULL;
}

int aos__ucx_thread_start(void)
{
    T.stop = 0;
    T.sleepers = 0;
    T.parked = 0;
    T.long_park = 0;
    if (pthread_create(&T.thread, NULL, loop, NULL) != 0)
        return AOS_ERR_NO_MEMORY;
    T.running = 1;
    return AOS_OK;
}

void aos__ucx_thread_stop(void)
{
    if (!T.running)
        return;
    aos__store_release(&T.stop, 1); /* pairs with the acquires in loop */
    (void)aos__fetch_add_seq_cst(&T.turn, 1); /* out of park */
    aos__futex_wake_one(&T.turn);
    aos__ucx_sleep_interrupt(); /* out of poll */
    pthread_join(T.thread, NULL);
    T.running = 0;
}
