/* The network progress thread. UCP over some networks (TCP among them)
 * needs the target's CPU to apply puts, gets and atomics and to run message
 * handlers; this thread gives it, so a target that computes and never calls
 * aos still serves every one-sided operation. Idle, it sleeps on the
 * worker's event descriptor: no CPU is spent while nothing arrives. */
#include <errno.h>
#include <poll.h>
#include <pthread.h>

#include "arch/atomics.h"
#include "core/runtime.h"
#include "transport/ucx/ucx.h"

#define U aos__ucx

static struct {
    pthread_t thread;
    int running;
    int stop; /* set by aos__ucx_thread_stop */
} T;

static void *loop(void *arg)
{
    (void)arg;
    /* Acquire: pairs with the release in aos__ucx_thread_stop. */
    while (!aos__load_acquire(&T.stop)) {
        unsigned done = 0, n;
        while ((n = ucp_worker_progress(U.worker)) != 0)
            done += n;
        /* Networks that need this CPU (TCP) wrote into my arena just now:
         * wake my sleepers at once rather than when the writer's wake comes. */
        if (done != 0)
            aos__ucx_ring_all();
        aos__ucx_settle(0);
        ucs_status_t st = ucp_worker_arm(U.worker);
        if (st == UCS_ERR_BUSY)
            continue; /* events came in meanwhile: progress again */
        if (st != UCS_OK)
            break;
        if (aos__load_acquire(&T.stop)) /* pairs with the release in ..._stop */
            break;
        struct pollfd pf = {.fd = U.efd, .events = POLLIN};
        /* A bounded sleep: work queued by settle with nothing to wake the
         * descriptor (a flush issued while every reply was already in) is
         * picked up within it. */
        if (poll(&pf, 1, 100) < 0 && errno != EINTR)
            break;
    }
    return NULL;
}

int aos__ucx_thread_start(void)
{
    T.stop = 0;
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
    (void)ucp_worker_signal(U.worker);
    pthread_join(T.thread, NULL);
    T.running = 0;
}
