/* A lost peer ends the job when the launcher does not (core/peer_loss.h),
 * and a global exit ends it with its status there.
 *
 * A launcher that stops a job whose PE died (aosrun, mpirun) reports it
 * best: it knows which PE ended first and how. The PEs that lose their
 * connection to it then wait a grace period for it before they report it
 * themselves; the others report at once.
 *
 * Under aosrun the launcher stops every PE of a job one of them ended. A
 * PMIx launcher may not: Slurm ignores the status 0 of PMIx_Abort, kills the
 * step and reports the highest status of its tasks (137, or the 1 of PEs
 * that lost the caller). So the caller of aos_global_exit tells every other
 * PE before it exits, through the word `ended` of their arena headers:
 *  - PEs of other nodes by a remote compare-and-swap each, complete before
 *    the next one is issued. They leave once they lose their connection to
 *    a PE that is gone (the caller, at the latest): every one of them was
 *    told before any PE of the job exits, so none takes a loss for a death.
 *  - Then the PEs of my node, whose memory I map, by a compare-and-swap
 *    with AOS__ENDED_NOW and a futex wake: a thread of theirs (the watcher
 *    below) sleeps on that word and leaves at once, whatever the program's
 *    threads are doing. No connection tells them: shared memory has none.
 * A PE leaves by the bootstrap's stop, as after aos_finalize (the launcher
 * takes its exit for a normal one: Slurm kills a step whose PMIx client
 * goes without finalizing), then _exit with the status, its streams
 * unflushed as under a launcher that kills it: a thread of the program may
 * hold a stream's lock. */
#include "core/peer_loss.h"

#include <pthread.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <time.h>
#include <unistd.h>

#include "aos.h"
#include "arch/atomics.h"
#include "arch/futex.h"
#include "core/bootstrap.h"
#include "core/runtime.h"

/* 1 once this PE ends the job or leaves: a global exit, a loss it reports,
 * or a told exit. The first takes it; the others stand aside. */
static int ending;

static struct {
    pthread_t thread;
    int running;
} W;

static uint32_t *my_ended(struct aos__runtime *rt)
{
    return &((struct aos__arena_header *)(void *)rt->my_base)->ended;
}

__attribute__((noreturn)) static void leave_told(struct aos__runtime *rt, uint32_t ended)
{
    if (aos__exchange_seq_cst(&ending, 1) != 0) {
        /* Another thread of mine is already ending this process. */
        for (;;)
            pause();
    }
    int status = (int)(ended & AOS__ENDED_STATUS);
    aos__debug("a PE ended the job with status %d: leaving with it", status);
    if (rt->boot != NULL)
        rt->boot->stop(rt, 1);
    _exit(status);
}

/* The report of a loss, in one write; waited: the seconds this PE gave
 * the launcher. */
static void say_lost(const struct aos__runtime *rt, int pe, const char *why, int waited)
{
    char then[80] = "ending the job";
    if (waited != 0)
        (void)snprintf(then, sizeof then,
                       "the launcher did not end the job within %d s: ending it", waited);
    fprintf(stderr,
            "aos: PE %d: lost PE %d before it finalized (%s): it died or exited without "
            "aos_finalize; %s\n",
            rt->me, pe, why, then);
}

/* How long a launcher that stops the job itself has to do so once this PE
 * lost a peer, before this PE says so and ends the job: the launcher's
 * report, which names the PE that failed, comes first and alone (a PE that
 * lost one the launcher killed next would name that one), and no PE waits
 * forever on a lost one should the launcher not stop the job. */
#define LAUNCHER_GRACE_S 5

static struct {
    int started; /* the first loss starts the thread */
    int pe;
    char why[128];
} G;

static void *grace(void *arg)
{
    struct aos__runtime *rt = arg;
    (void)pthread_setname_np(pthread_self(), "aos-loss-grace"); /* for top -H, gdb */
    struct timespec left = {LAUNCHER_GRACE_S, 0};
    while (nanosleep(&left, &left) != 0) /* (signals are blocked: no EINTR) */
        ;
    /* Acquire: as in aos__peer_lost. */
    uint32_t ended = aos__load_acquire(my_ended(rt));
    if (ended & AOS__ENDED_BY_PEER)
        leave_told(rt, ended);
    say_lost(rt, G.pe, G.why, LAUNCHER_GRACE_S);
    /* Outside the transport's progress: this exit tells the others. */
    aos_global_exit(1);
    return NULL;
}

/* Starts the grace thread for the first loss; 0 when it could not start. */
static int start_grace(struct aos__runtime *rt, int pe, const char *why)
{
    if (aos__exchange_seq_cst(&G.started, 1) != 0)
        return 1; /* running for an earlier loss */
    G.pe = pe;
    (void)snprintf(G.why, sizeof G.why, "%s", why);
    /* Blocks every signal from birth, as the watcher does. */
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old);
    pthread_attr_t attr;
    pthread_t t;
    int rc = pthread_attr_init(&attr);
    if (rc == 0) {
        (void)pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
        rc = pthread_create(&t, &attr, grace, rt);
        pthread_attr_destroy(&attr);
    }
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    return rc == 0;
}

void aos__peer_lost(int pe, const char *why)
{
    struct aos__runtime *rt = &aos__rt;
    /* Relaxed: read by a global exit of this PE, which then does not tell
     * the lost PE; one that reads 0 tries it, and that fails. The UCX
     * transport's flushes by request look at it too, ordered by fences
     * (transport/ucx/ack.c). */
    aos__store_relaxed(&rt->peers[pe].lost, 1);
    /* Acquire: pairs with the compare-and-swap of a PE that called
     * aos_global_exit; it completed (the teller had its reply) before the
     * teller exited, so before any connection of the job could close. */
    uint32_t ended = aos__load_acquire(my_ended(rt));
    if (ended & AOS__ENDED_BY_PEER)
        leave_told(rt, ended);
    /* Acquire: pairs with aos_finalize's release of leaving, set before this
     * PE's arrival at the last barrier, without which no peer can finish it
     * and close its end. */
    if (aos__load_acquire(&rt->leaving) || rt->boot == NULL) {
        aos__debug("connection to PE %d closed: %s", pe, why);
        return;
    }
    if (aos__load_relaxed(&ending)) /* this PE's own global exit is under way */
        return;
    if (rt->boot->stops_on_loss()) {
        aos__debug("lost PE %d (%s): the launcher stops the job", pe, why);
        if (start_grace(rt, pe, why))
            return;
    }
    say_lost(rt, pe, why, 0);
    /* Not told to the others: this runs inside the transport's progress,
     * which a remote atomic would re-enter; each survivor reports its own
     * loss, or the launcher stops it. */
    (void)aos__exchange_seq_cst(&ending, 1);
    aos_global_exit(1);
}

void aos__peer_tell_exit(int status)
{
    struct aos__runtime *rt = &aos__rt;
    if (aos__exchange_seq_cst(&ending, 1) != 0)
        return; /* aos__peer_lost's own exit, or a second global exit */
    if (!rt->initialized || rt->boot == NULL || rt->boot->stops_on_exit)
        return;
    uint32_t told = AOS__ENDED_BY_PEER | ((uint32_t)status & AOS__ENDED_STATUS);
    uint64_t off = offsetof(struct aos__arena_header, ended);
    /* Other nodes first: each is told (its reply is here) before the PEs of
     * my node, which leave at once, give anyone a loss to notice. Failures
     * are ignored: a PE that cannot be reached is gone already. The first
     * teller wins; a second one's status reaches only PEs it told first. */
    for (int pe = 0; pe < rt->npes; pe++) {
        /* Relaxed: see aos__peer_lost. */
        if (pe == rt->me || rt->peers[pe].tp == &aos__transport_shm ||
            aos__load_relaxed(&rt->peers[pe].lost))
            continue;
        uint32_t old;
        (void)rt->peers[pe].tp->amo(pe, off, AOS_AMO_CAS, sizeof told, told, 0, &old, NULL);
    }
    for (int pe = 0; pe < rt->npes; pe++) {
        if (pe == rt->me || rt->peers[pe].tp != &aos__transport_shm)
            continue;
        uint32_t *word = &rt->peers[pe].header->ended;
        uint32_t none = 0;
        /* Seq_cst: the watcher's acquire load of the word (after its wake)
         * pairs with it; a word already set (an earlier teller, or the
         * watcher stopped by a finished aos_finalize) is left alone. */
        if (__atomic_compare_exchange_n(word, &none, told | AOS__ENDED_NOW, 0, __ATOMIC_SEQ_CST,
                                        __ATOMIC_RELAXED))
            aos__futex_wake_all(word);
    }
}

static void *watch(void *arg)
{
    struct aos__runtime *rt = arg;
    (void)pthread_setname_np(pthread_self(), "aos-exit-watch"); /* for top -H, gdb */
    uint32_t *word = my_ended(rt);
    for (;;) {
        /* Acquire: pairs with the seq_cst compare-and-swap of the teller
         * (aos__peer_tell_exit) or of aos__peer_watch_stop. */
        uint32_t ended = aos__load_acquire(word);
        if (ended & AOS__ENDED_NOW)
            leave_told(rt, ended);
        if (ended & AOS__ENDED_STOP)
            return NULL;
        /* A word set from another node (no NOW) wakes no one: that PE
         * leaves when it loses a connection (aos__peer_lost). */
        aos__futex_wait(word, ended, UINT64_MAX / 2);
    }
}

int aos__peer_watch_start(struct aos__runtime *rt)
{
    if (rt->boot == NULL || rt->boot->stops_on_exit)
        return AOS_OK;
    int shared = 0;
    for (int pe = 0; pe < rt->npes; pe++)
        shared += pe != rt->me && rt->peers[pe].tp == &aos__transport_shm;
    if (shared == 0)
        return AOS_OK;
    /* The thread takes none of the program's signals: it blocks them all
     * from birth (the mask is inherited), so a process-directed signal goes
     * to a thread of the program's. */
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old);
    int rc = pthread_create(&W.thread, NULL, watch, rt);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    if (rc != 0)
        return AOS_ERR_NO_MEMORY;
    W.running = 1;
    return AOS_OK;
}

void aos__peer_watch_stop(struct aos__runtime *rt)
{
    if (!W.running)
        return;
    uint32_t *word = my_ended(rt);
    /* Seq_cst: pairs with the watcher's acquire load. An or, not a store:
     * a word a PE of my node set with AOS__ENDED_NOW keeps it, and the
     * watcher is then leaving with this thread (the join never returns);
     * a teller's compare-and-swap after this fails, everyone being past
     * the last barrier. */
    (void)aos__fetch_or_seq_cst(word, AOS__ENDED_STOP);
    aos__futex_wake_all(word);
    pthread_join(W.thread, NULL);
    W.running = 0;
}
