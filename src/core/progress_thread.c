/* The optional progress thread (AOS_PROGRESS_THREAD=1). It runs RPC handlers
 * while the program's threads compute: it waits on the RPC queue's own bell
 * (which callers ring instead of the PE's), and every poll of that wait
 * serves queued requests through the same path as any other waiter
 * (rpc/serve.c), so it spins briefly after a request and sleeps when none
 * come. Everything else (events, asynchronous dequeues, notifications, IPC)
 * stays with the program's threads. */
#include "core/progress_thread.h"

#include <pthread.h>
#include <sched.h>

#include "arch/atomics.h"
#include "core/runtime.h"
#include "core/wait.h"

AOS__TLS int aos__in_progress_thread;
struct aos__bell *aos__progress_thread_bell;

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
    (void)pthread_setname_np(pthread_self(), "aos-progress"); /* for top -H, gdb */
    int rc = aos__transport_shm.thread_start();
    if (rc == AOS_OK && aos__rt.net != NULL && (rc = aos__rt.net->thread_start()) != AOS_OK)
        aos__transport_shm.thread_stop();
    /* Release: the creator reads ready with acquire before going on. */
    aos__store_release(&P.ready, rc == AOS_OK ? 1 : rc);
    if (rc != AOS_OK)
        return NULL;
    /* One wait until stop: after each request it serves, the wait spins
     * afresh, and once asleep a wake that served sends it back to spinning
     * (core/wait.c), so a stream of requests costs no kernel wakes. */
    (void)aos__wait_bell(aos__progress_thread_bell, stop_requested, NULL, AOS__FOREVER,
                         AOS__WATCH_ALL);
    if (aos__rt.net != NULL)
        aos__rt.net->thread_stop();
    aos__transport_shm.thread_stop();
    return NULL;
}

int aos__progress_thread_start(void)
{
    if (!aos__rt.cfg.progress_thread)
        return AOS_OK;
    if (aos__progress_thread_bell == NULL)
        return AOS_ERR_INVALID; /* no layer gave it work (core/progress.h) */
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
    aos__bell_ring(aos__progress_thread_bell, 0, UINT64_MAX, 1);
    pthread_join(P.thread, NULL);
    P.running = 0;
}
