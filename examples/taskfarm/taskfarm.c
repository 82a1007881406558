/* A task farm: the master (PE 0) hands out ranges of integers through each
 * worker's mailbox, workers count the primes in them and send the counts
 * back through the master's mailbox; the master adds them up and checks the
 * total against its own sieve. Two tasks are kept in flight per worker
 * (writes with events), so a worker never waits for its next one.
 *
 * usage: aosrun -n 4 taskfarm [limit] [chunk] */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <aos.h>

#include "try.h"

#define TASK_PORT 10
#define RESULT_PORT 11
#define IN_FLIGHT 2

struct task {
    int64_t lo, hi; /* [lo, hi); lo < 0: stop */
};
struct result {
    int32_t worker;
    int32_t pad;
    int64_t lo;
    uint64_t primes;
};


static int is_prime(int64_t n)
{
    if (n < 2)
        return 0;
    for (int64_t d = 2; d * d <= n; d++)
        if (n % d == 0)
            return 0;
    return 1;
}

static uint64_t count_primes(int64_t lo, int64_t hi)
{
    uint64_t c = 0;
    for (int64_t n = lo; n < hi; n++)
        c += (uint64_t)is_prime(n);
    return c;
}

/* The master's check: a sieve, independent of the workers' trial division. */
static uint64_t sieve_count(int64_t limit)
{
    char *composite = calloc((size_t)limit + 1, 1);
    uint64_t c = 0;
    for (int64_t n = 2; n < limit; n++) {
        if (composite[n])
            continue;
        c++;
        for (int64_t m = n * n; m < limit; m += n)
            composite[m] = 1;
    }
    free(composite);
    return c;
}

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static void worker(int me)
{
    aos_mbox_t *tasks, *results;
    TRY(aos_mbox_create(TASK_PORT, sizeof(struct task), IN_FLIGHT, &tasks));
    TRY(aos_barrier_all());
    TRY(aos_mbox_open(0, RESULT_PORT, &results));
    for (;;) {
        struct task t;
        TRY(aos_mbox_read(tasks, &t, NULL));
        if (t.lo < 0)
            break;
        struct result r = {.worker = me, .lo = t.lo, .primes = count_primes(t.lo, t.hi)};
        TRY(aos_mbox_write(results, &r, NULL));
    }
    TRY(aos_barrier_all());
    TRY(aos_mbox_close(results));
    TRY(aos_mbox_close(tasks));
}

static void master(int npes, int64_t limit, int64_t chunk)
{
    int workers = npes - 1;
    aos_mbox_t *results, **to = calloc((size_t)npes, sizeof *to);
    TRY(aos_mbox_create(RESULT_PORT, sizeof(struct result), 64, &results));
    TRY(aos_barrier_all());
    for (int w = 1; w < npes; w++)
        TRY(aos_mbox_open(w, TASK_PORT, &to[w]));
    aos_event_t *sent;
    TRY(aos_event_create(&sent));
    double t0 = now();
    int64_t next = 0, tasks = (limit + chunk - 1) / chunk, outstanding = 0, done = 0;
    uint64_t total = 0;
    long *per_worker = calloc((size_t)npes, sizeof *per_worker);
    /* Fill every worker's pipeline, then one new task per result. */
    for (int w = 1; w < npes; w++) {
        for (int k = 0; k < IN_FLIGHT && next < limit; k++, next += chunk, outstanding++) {
            struct task t = {next, next + chunk < limit ? next + chunk : limit};
            TRY(aos_mbox_write(to[w], &t, sent));
        }
    }
    if (workers == 0) { /* alone: do it myself */
        total = count_primes(0, limit);
        done = tasks;
    }
    while (done < tasks) {
        struct result r;
        TRY(aos_mbox_read(results, &r, NULL));
        total += r.primes;
        per_worker[r.worker]++;
        done++;
        outstanding--;
        if (next < limit) {
            struct task t = {next, next + chunk < limit ? next + chunk : limit};
            TRY(aos_mbox_write(to[r.worker], &t, sent));
            next += chunk;
            outstanding++;
        }
    }
    double elapsed = now() - t0;
    for (int w = 1; w < npes; w++) {
        struct task stop = {-1, -1};
        TRY(aos_mbox_write(to[w], &stop, sent));
    }
    TRY(aos_event_wait(sent));
    uint64_t expect = sieve_count(limit);
    printf("taskfarm: %d workers, primes below %lld in %lld tasks of %lld: %llu (%s), %.3f s, "
           "%.0f tasks/s\n",
           workers, (long long)limit, (long long)tasks, (long long)chunk,
           (unsigned long long)total, total == expect ? "verified" : "WRONG",
           elapsed, (double)tasks / elapsed);
    for (int w = 1; w < npes; w++)
        printf("  worker %d ran %ld tasks\n", w, per_worker[w]);
    TRY(aos_barrier_all());
    for (int w = 1; w < npes; w++)
        TRY(aos_mbox_close(to[w]));
    TRY(aos_mbox_close(results));
    TRY(aos_event_destroy(sent));
    free(per_worker);
    free(to);
    if (total != expect)
        exit(1);
}

int main(int argc, char **argv)
{
    TRY(aos_init());
    int64_t limit = argc > 1 ? strtoll(argv[1], NULL, 10) : 2000000;
    int64_t chunk = argc > 2 ? strtoll(argv[2], NULL, 10) : 20000;
    if (limit < 1 || chunk < 1) {
        fprintf(stderr, "usage: taskfarm [limit >= 1] [chunk >= 1]\n");
        return 2;
    }
    if (aos_my_pe() == 0)
        master(aos_n_pes(), limit, chunk);
    else
        worker(aos_my_pe());
    TRY(aos_finalize());
    return 0;
}
