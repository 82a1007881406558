/* Every write that may end a wait wakes a waiter asleep in the kernel: each
 * kind of write (blocking and event puts, fetching and posted atomics, with
 * and without quiet, and one after a write that left the word as it was)
 * reaches a PE that went to sleep long before it, once
 * with the waiter's PE otherwise idle and once with another of its threads
 * driving progress meanwhile (blocking gets in a loop), which over the
 * network is the thread that applies the write. A waiter looks again only
 * every AOS_SLEEP_US, set here to its largest, 10 s: a missed wake shows as
 * a wait of about 10 s instead of the writer's delay (0.1 s), which fails
 * the check of the time waited (under 5 s, so that a loaded machine does not
 * fail it). Last, a blocking dequeue behind an asynchronous one wakes for
 * the second of two items. Each waiter's writer is on another node in the
 * off-node runs: PE i < n/2 waits for PE i + n/2. */
#include <pthread.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include "../common/check.h"

#define KINDS 8
#define WRITE_DELAY_US 100000         /* the waiter is long asleep by then */
#define WAIT_LIMIT_S 5.0               /* half the sleep slice */

static uint64_t word;     /* written by the partner, waited on */
static uint64_t source[8]; /* what the driver thread reads from its partner */
static int stop_driver;

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

struct driver_arg {
    int partner;
};

static void *drive(void *p)
{
    const struct driver_arg *a = p;
    uint64_t sink[8];
    while (!__atomic_load_n(&stop_driver, __ATOMIC_ACQUIRE))
        CHECK_OK(aos_getmem(a->partner, sink, source, sizeof sink, NULL));
    return NULL;
}

/* Fails the test when a wait of `waited` seconds outlasted the writer's
 * delay so far that only the sleep slice can have ended it. */
static void check_woken(int me, double waited, const char *what)
{
    if (waited >= WAIT_LIMIT_S)
        fprintf(stderr, "PE %d: %s did not wake me (%.1f s)\n", me, what, waited);
    CHECK(waited < WAIT_LIMIT_S);
}

/* Writes word at pe to `value` (one more than before) by kind. */
static void write_word(int pe, int kind, uint64_t value, aos_event_t *ev)
{
    uint64_t old = 0;
    switch (kind) {
    case 0: CHECK_OK(aos_putmem(pe, &word, &value, sizeof value, NULL)); break;
    case 1:
        CHECK_OK(aos_putmem(pe, &word, &value, sizeof value, ev));
        CHECK_OK(aos_event_wait(ev));
        break;
    case 2:
        CHECK_OK(aos_putmem(pe, &word, &value, sizeof value, ev));
        CHECK_OK(aos_quiet());
        break;
    case 3:
        CHECK_OK(aos_amo_fetch_sym(pe, &word, AOS_AMO_ADD, AOS_AMO_U64, 1, 0, &old, NULL));
        CHECK(old == value - 1);
        break;
    case 4:
        CHECK_OK(aos_amo_post_sym(pe, &word, AOS_AMO_ADD, AOS_AMO_U64, 1));
        CHECK_OK(aos_quiet());
        break;
    case 5: /* posted, completed by the barrier that follows */
        CHECK_OK(aos_amo_post_sym(pe, &word, AOS_AMO_ADD, AOS_AMO_U64, 1));
        break;
    case 6: /* with an event nobody waits for: the barrier completes it */
        CHECK_OK(aos_putmem(pe, &word, &value, sizeof value, ev));
        break;
    default: {
        /* First a write that changes nothing: a sleeper may stay asleep
         * through it (core/wait.c), but not through the one that follows. */
        uint64_t same = value - 1;
        CHECK_OK(aos_putmem(pe, &word, &same, sizeof same, NULL));
        usleep(WRITE_DELAY_US);
        CHECK_OK(aos_putmem(pe, &word, &value, sizeof value, NULL));
        break;
    }
    }
}

/* A dequeue that sleeps while the item before it completes an earlier
 * asynchronous dequeue (its own progress moves the head past the slot it
 * watched) wakes for the next item. Each waiter owns a queue (key = its
 * PE); its partner enqueues two items WRITE_DELAY_US apart. */
static void dequeue_after_async(int me, int partner, int waiter, int paired)
{
    aos_queue_t *mine = NULL, *theirs = NULL;
    if (paired && waiter)
        CHECK_OK(aos_queue_create((uint64_t)me, sizeof(uint64_t), 8, &mine));
    CHECK_OK(aos_barrier_all());
    if (paired && !waiter)
        CHECK_OK(aos_queue_attach(partner, (uint64_t)partner, &theirs));
    CHECK_OK(aos_barrier_all());
    if (paired && !waiter) {
        for (uint64_t v = 1; v <= 2; v++) {
            usleep(WRITE_DELAY_US);
            CHECK_OK(aos_enqueue(theirs, &v));
        }
        CHECK_OK(aos_queue_detach(theirs));
    } else if (paired) {
        uint64_t first = 0, second = 0;
        aos_event_t *ev;
        CHECK_OK(aos_event_create(&ev));
        CHECK_OK(aos_dequeue_async(mine, &first, ev));
        double t0 = now_s();
        CHECK_OK(aos_dequeue(mine, &second));
        check_woken(me, now_s() - t0, "the second item of my dequeue");
        CHECK_OK(aos_event_wait(ev));
        CHECK(first == 1 && second == 2);
        CHECK_OK(aos_event_destroy(ev));
    }
    CHECK_OK(aos_barrier_all());
    if (mine != NULL)
        CHECK_OK(aos_queue_destroy(mine));
}

int main(void)
{
    setenv("AOS_SLEEP_US", "10000000", 1);
    CHECK_OK(aos_init());
    int me = aos_my_pe(), n = aos_n_pes();
    int half = n / 2;
    int waiter = me < half, paired = me < 2 * half;
    int partner = waiter ? me + half : me - half;
    aos_event_t *ev;
    CHECK_OK(aos_event_create(&ev));
    uint64_t value = 0;
    for (int driven = 0; driven <= 1; driven++) {
        pthread_t thread;
        struct driver_arg arg = {.partner = partner};
        __atomic_store_n(&stop_driver, 0, __ATOMIC_RELAXED);
        if (driven && paired && waiter)
            CHECK(pthread_create(&thread, NULL, drive, &arg) == 0);
        for (int kind = 0; kind < KINDS; kind++) {
            value++;
            CHECK_OK(aos_barrier_all());
            if (!paired) {
                /* nothing to do this round */
            } else if (!waiter) {
                usleep(WRITE_DELAY_US);
                write_word(partner, kind, value, ev);
            } else {
                double t0 = now_s();
                CHECK_OK(aos_wait_until_u64(&word, AOS_CMP_GE, value));
                char what[64];
                snprintf(what, sizeof what, "write kind %d%s", kind,
                         driven ? " with a driving thread" : "");
                check_woken(me, now_s() - t0, what);
                CHECK(__atomic_load_n(&word, __ATOMIC_ACQUIRE) == value);
            }
            CHECK_OK(aos_barrier_all());
        }
        if (driven && paired && waiter) {
            __atomic_store_n(&stop_driver, 1, __ATOMIC_RELEASE);
            CHECK(pthread_join(thread, NULL) == 0);
        }
    }
    dequeue_after_async(me, partner, waiter, paired);
    CHECK_OK(aos_event_destroy(ev));
    return aos_finalize();
}
