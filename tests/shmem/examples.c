/* The specification's style of examples, as tests: a lock-protected
 * counter, a broadcast by signals, an all-to-all by puts and a signal, and
 * threads (SHMEM_THREAD_MULTIPLE) updating remote counters at once. */
#include <pthread.h>
#include <sched.h>

#include "check_shmem.h"

#define ITERS 300
#define THREADS 3

static long lock;
static long counter;
static int me, npes;

/* Every PE increments PE 0's counter under the lock with a get and a put,
 * which only the lock makes atomic. */
static void locked_counter(void)
{
    for (int i = 0; i < ITERS; i++) {
        shmem_set_lock(&lock);
        long v = shmem_long_g(&counter, 0);
        shmem_long_p(&counter, v + 1, 0);
        shmem_clear_lock(&lock);
    }
    /* test_lock takes the lock only when it is free; others may hold it. */
    while (shmem_test_lock(&lock) != 0)
        sched_yield();
    shmem_long_atomic_add(&counter, 1000, 0);
    shmem_clear_lock(&lock);
    shmem_barrier_all();
    if (me == 0)
        CHECK(counter == (long)npes * (ITERS + 1000));
    shmem_barrier_all();
}

/* PE 0 sends a block to every PE with put_signal; each waits on its
 * signal and checks the block. */
static void broadcast_by_signal(void)
{
    enum { LEN = 4096 };
    int *data = shmem_malloc(LEN * sizeof(int));
    uint64_t *sig = shmem_calloc(1, sizeof(uint64_t));
    if (me == 0) {
        int src[LEN];
        for (int i = 0; i < LEN; i++)
            src[i] = i * 7 + 3;
        for (int pe = 0; pe < npes; pe++)
            shmem_int_put_signal_nbi(data, src, LEN, sig, 1, SHMEM_SIGNAL_SET, pe);
        shmem_quiet();
    }
    shmem_signal_wait_until(sig, SHMEM_CMP_EQ, 1);
    for (int i = 0; i < LEN; i++)
        CHECK(data[i] == i * 7 + 3);
    shmem_barrier_all();
    shmem_free(sig);
    shmem_free(data);
}

/* All-to-all by puts: each PE puts block j into PE j, then adds one to
 * PE j's arrival count; a PE waits for npes arrivals. */
static void alltoall_by_puts(void)
{
    enum { B = 100 };
    long *dst = shmem_malloc((size_t)npes * B * sizeof(long));
    uint64_t *arrived = shmem_calloc(1, sizeof(uint64_t));
    long src[B];
    for (int pe = 0; pe < npes; pe++) {
        for (int i = 0; i < B; i++)
            src[i] = me * 100000L + pe * 1000L + i;
        shmem_long_put_signal(&dst[me * B], src, B, arrived, 1, SHMEM_SIGNAL_ADD, pe);
    }
    shmem_uint64_wait_until(arrived, SHMEM_CMP_EQ, (uint64_t)npes);
    for (int from = 0; from < npes; from++)
        for (int i = 0; i < B; i++)
            CHECK(dst[from * B + i] == from * 100000L + me * 1000L + i);
    shmem_barrier_all();
    shmem_free(arrived);
    shmem_free(dst);
}

static long *thread_counts;

static void *worker(void *arg)
{
    int t = (int)(intptr_t)arg;
    shmem_ctx_t ctx;
    CHECK(shmem_ctx_create(SHMEM_CTX_PRIVATE, &ctx) == 0);
    for (int i = 0; i < ITERS; i++) {
        int pe = (me + i) % npes;
        shmem_long_atomic_inc(&thread_counts[t], pe);
        shmem_ctx_long_atomic_add(ctx, &thread_counts[THREADS], 2, pe);
    }
    shmem_ctx_quiet(ctx);
    shmem_ctx_destroy(ctx);
    shmem_quiet();
    return NULL;
}

static void threads(void)
{
    thread_counts = shmem_calloc(THREADS + 1, sizeof(long));
    pthread_t th[THREADS];
    for (int t = 0; t < THREADS; t++)
        CHECK(pthread_create(&th[t], NULL, worker, (void *)(intptr_t)t) == 0);
    for (int t = 0; t < THREADS; t++)
        pthread_join(th[t], NULL);
    shmem_barrier_all();
    long total = 0;
    for (int t = 0; t < THREADS; t++)
        total += thread_counts[t];
    CHECK(total == (long)THREADS * ITERS || npes > 1);
    /* every PE's ITERS*THREADS increments spread over all PEs: the sum over
     * PEs is exact, each PE's share depends on npes */
    long *sum = shmem_calloc(1, sizeof(long));
    shmem_long_atomic_add(sum, total, 0);
    shmem_barrier_all();
    if (me == 0)
        CHECK(*sum == (long)npes * THREADS * ITERS);
    shmem_barrier_all();
    shmem_free(sum);
    shmem_free(thread_counts);
}

int main(void)
{
    int provided = -1;
    CHECK(shmem_init_thread(SHMEM_THREAD_MULTIPLE, &provided) == 0 &&
          provided == SHMEM_THREAD_MULTIPLE);
    me = shmem_my_pe();
    npes = shmem_n_pes();
    locked_counter();
    broadcast_by_signal();
    alltoall_by_puts();
    threads();
    shmem_finalize();
    return 0;
}
