/* The optional progress thread (AOS_PROGRESS_THREAD=1). It runs RPC handlers
 * while the program's threads compute: it waits on the PE's bell watching the
 * RPC queue, and every poll of that wait serves queued requests through the
 * same path as any other waiter (rpc/serve.c), so it spins briefly after a
 * request and sleeps when none come. Everything else (events, asynchronous
 * dequeues, notifications) stays with the program's threads. */
#include "core/progress_thread.h"

#include <pthread.h>
#include <sched.h>

#include "arch/atomics.h"
#include "core/runtime.h"
#include "core/wait.h"
#include "rpc/rpc.h"

_Thread_local __attribute__((tls_model("initial-exec"))) int aos__in_progress_thread;

static struct {
    pthread_t thread;
    int running;
    int stop;  /* set by aos__progress_thread_stop */
    int ready; /* 0 starting, 1 serving, <0 the status it failed with */
} P;

static int stop_requested(const void *ctx)
{
    (void)ctx;
    return aos__load_acquire(&P.stop); /* pairs with the release in ..._stop */
}

static void *loop(void *arg)
{
    (void)arg;
    aos__in_progress_thread = 1;
    int rc = aos__rt.tp->thread_start();
    /* Release: the creator reads ready with acquire before going on. */
    aos__store_release(&P.ready, rc == AOS_OK ? 1 : rc);
    if (rc != AOS_OK)
        return NULL;
    struct aos__watch w = {aos__rpc.queue_lo, aos__rpc.queue_hi};
    (void)aos__wait(stop_requested, NULL, AOS__FOREVER, w);
    aos__rt.tp->thread_stop();
    return NULL;
}

int aos__progress_thread_start(void)
{
    if (!aos__rt.cfg.progress_thread)
        return AOS_OK;
    P.stop = 0;
    P.ready = 0;
    if (pthread_create(&P.thread, NULL, loop, NULL) != 0)
        return AOS_ERR_NO_MEMORY;
    int ready;
    while ((ready = aos__load_acquire(&P.ready)) == 0) /* pairs with loop's release */
        sched_yield();
    if (ready < 0) {
        pthread_join(P.thread, NULL);
        return ready;
    }
    P.running = 1;
    return AOS_OK;
}

void aos__progress_thread_stop(void)
{
    if (!P.running)
        return;
    aos__store_release(&P.stop, 1); /* pairs with stop_requested's acquire */
    aos__fence_seq_cst();           /* the writer's half of the sleep protocol */
    aos__bell_ring(&aos__rt.peers[aos__rt.me].header->bell, 0, UINT64_MAX, 1);
    pthread_join(P.thread, NULL);
    P.running = 0;
}
