/* aos-probe: measures this machine's parameters for the model collectives
 * plan with (src/coll/model.h) and writes the model file; with --predict it
 * also times barrier, broadcast and all-reduce and prints them beside the
 * model's predictions, then the predictions for 16-256 PEs.
 *
 *   aosrun -n 2 aos-probe [--predict] [--quick] [--output FILE]
 *
 * Needs 2 PEs or more (PE 0 and 1 do the point-to-point measurements). */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "aos.h"
#include "coll/model.h"
#include "probe.h"

static int me, npes;
static uint64_t flag[2 * 8]; /* symmetric: ping on [0], pong on [8] (own lines) */
static char *bigbuf;          /* symmetric, PROBE_BIG bytes */

double probe_now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

double probe_median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, cmp);
    return v[n / 2];
}

/* L: half the round trip of an 8-byte put answered by a put. */
static double measure_latency(long iters)
{
    double t[PROBE_TRIALS];
    for (int k = 0; k < PROBE_TRIALS; k++) {
        PROBE_TRY(aos_barrier_all());
        double s = probe_now_ns();
        for (long i = 1; i <= iters; i++) {
            uint64_t v = (uint64_t)k * (uint64_t)iters + (uint64_t)i;
            if (me == 0) {
                PROBE_TRY(aos_putmem(1, &flag[0], &v, 8, NULL));
                PROBE_TRY(aos_wait_until_u64(&flag[8], AOS_CMP_GE, v));
            } else if (me == 1) {
                PROBE_TRY(aos_wait_until_u64(&flag[0], AOS_CMP_GE, v));
                PROBE_TRY(aos_putmem(0, &flag[8], &v, 8, NULL));
            }
        }
        t[k] = (probe_now_ns() - s) / (double)iters / 2.0;
    }
    return probe_median(t, PROBE_TRIALS);
}

/* o: one 8-byte put issued alone; g: the time per put in a stream. */
static void measure_overhead(long iters, double *o, double *g)
{
    double to[PROBE_TRIALS], tg[PROBE_TRIALS];
    uint64_t v = 1;
    for (int k = 0; k < PROBE_TRIALS; k++) {
        PROBE_TRY(aos_barrier_all());
        double sum = 0;
        if (me == 0)
            for (long i = 0; i < iters; i++) {
                double s = probe_now_ns();
                PROBE_TRY(aos_putmem(1, &flag[0], &v, 8, NULL));
                sum += probe_now_ns() - s;
                for (volatile int spin = 0; spin < 200; spin++) {
                }
            }
        to[k] = sum / (double)iters;
        PROBE_TRY(aos_barrier_all());
        double s = probe_now_ns();
        if (me == 0)
            for (long i = 0; i < iters; i++)
                PROBE_TRY(aos_putmem(1, &flag[0], &v, 8, NULL));
        tg[k] = (probe_now_ns() - s) / (double)iters;
    }
    *o = probe_median(to, PROBE_TRIALS);
    *g = probe_median(tg, PROBE_TRIALS);
}

/* G: copying from a peer's memory, per byte: gets of `bytes` (a size that
 * fits the cache, then one that does not). */
static double measure_per_byte(size_t bytes)
{
    static char local[PROBE_BIG];
    double t[PROBE_TRIALS];
    int reps = (int)(16 * PROBE_CHUNK / bytes) + 1;
    for (int k = 0; k < PROBE_TRIALS; k++) {
        PROBE_TRY(aos_barrier_all());
        double s = probe_now_ns();
        for (int i = 0; i < reps; i++)
            if (me == 0)
                PROBE_TRY(aos_getmem(1, local, bigbuf, bytes, NULL));
        t[k] = (probe_now_ns() - s) / reps / (double)bytes;
    }
    return probe_median(t, PROBE_TRIALS);
}

/* G_dirty: the same for `bytes` PE 1 has just written (its caches hold the
 * lines modified; each must come over). Measured at 32 KiB (G_dirty),
 * 256 KiB (G_dirty_big) and the per-core cache's size (G_dirty_huge, all
 * of it in the writer's cache): the cost per byte of fresh lines depends on
 * the size. */
static double measure_per_byte_dirty(size_t bytes)
{
    enum { SAMPLES = 7 * 64 };
    static double t[SAMPLES];
    char *local = malloc(bytes);
    if (local == NULL)
        exit(1);
    memset(local, 0, bytes);
    for (int i = 0; i < SAMPLES; i++) {
        if (me == 1)
            memset(bigbuf, i, bytes);
        PROBE_TRY(aos_barrier_all());
        double s = probe_now_ns();
        if (me == 0)
            PROBE_TRY(aos_getmem(1, local, bigbuf, bytes, NULL));
        t[i] = (probe_now_ns() - s) / (double)bytes;
        PROBE_TRY(aos_barrier_all());
    }
    free(local);
    /* The median copy, not a mean: a copy the scheduler interrupts says
     * nothing about the caches. */
    return probe_median(t, SAMPLES);
}

/* F: folding 16 KiB of int64 into an accumulator (aos_reduce_local, the
 * kernel the reductions run), both in cache; per byte of input. */
static double measure_fold(void)
{
    enum { COUNT = 2048 };
    static int64_t acc[COUNT], in[COUNT];
    for (int i = 0; i < COUNT; i++)
        in[i] = i;
    double t[PROBE_TRIALS];
    for (int k = 0; k < PROBE_TRIALS; k++) {
        double s = probe_now_ns();
        for (int i = 0; i < 256; i++)
            PROBE_TRY(aos_reduce_local(acc, in, COUNT, AOS_TYPE_INT64, AOS_OP_SUM));
        t[k] = (probe_now_ns() - s) / 256.0 / (double)sizeof in;
    }
    return probe_median(t, PROBE_TRIALS);
}

/* The cache a copy must fit in to run at G: the level-2 size (per core). */
static double cache_bytes(void)
{
    long l2 = sysconf(_SC_LEVEL2_CACHE_SIZE);
    return l2 > 0 ? (double)l2 : 1048576.0;
}

/* The put breakdown: time in the call with an event, until the event says
 * complete, and until the target sees the data (from the latency). */
static void measure_put(long iters, double latency, struct aos__model *m)
{
    aos_event_t *ev;
    PROBE_TRY(aos_event_create(&ev));
    double ti[PROBE_TRIALS], tc[PROBE_TRIALS];
    uint64_t v = 7;
    for (int k = 0; k < PROBE_TRIALS; k++) {
        double a = 0, b = 0;
        PROBE_TRY(aos_barrier_all());
        if (me == 0)
            for (long i = 0; i < iters; i++) {
                double s = probe_now_ns();
                PROBE_TRY(aos_putmem(1, &flag[0], &v, 8, ev));
                double mid = probe_now_ns();
                PROBE_TRY(aos_event_wait(ev));
                a += mid - s;
                b += probe_now_ns() - mid;
            }
        ti[k] = a / (double)iters;
        tc[k] = b / (double)iters;
    }
    aos_event_destroy(ev);
    m->put_initiator = probe_median(ti, PROBE_TRIALS);
    m->put_completion = m->put_initiator + probe_median(tc, PROBE_TRIALS);
    m->put_transfer = latency > m->put_initiator ? latency : m->put_initiator;
}

int main(int argc, char **argv)
{
    int predict = 0, quick = 0;
    const char *output = NULL;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--predict") == 0)
            predict = 1;
        else if (strcmp(argv[i], "--quick") == 0)
            quick = 1;
        else if (strcmp(argv[i], "--output") == 0 && i + 1 < argc)
            output = argv[++i];
        else {
            fprintf(stderr, "usage: aosrun -n 2 aos-probe [--predict] [--quick] [--output FILE]\n");
            return 2;
        }
    }
    PROBE_TRY(aos_init());
    me = aos_my_pe();
    npes = aos_n_pes();
    if (npes < 2) {
        fprintf(stderr, "aos-probe: run it on 2 PEs or more (aosrun -n 2 aos-probe)\n");
        aos_finalize();
        return 2;
    }
    bigbuf = aos_malloc(PROBE_BIG);
    if (bigbuf == NULL)
        return 1;
    memset(bigbuf, me, PROBE_BIG);
    long iters = quick ? 2000 : 20000;

    struct aos__model m;
    aos__model_defaults(&m);
    m.L = measure_latency(iters);
    measure_overhead(iters, &m.o, &m.g);
    m.cache = cache_bytes();
    m.G = measure_per_byte(PROBE_CHUNK);
    m.G_big = measure_per_byte(PROBE_BIG);
    m.G_dirty = measure_per_byte_dirty(32u << 10);
    m.G_dirty_big = measure_per_byte_dirty(PROBE_CHUNK);
    m.G_dirty_huge = measure_per_byte_dirty(m.cache < PROBE_BIG ? (size_t)m.cache : PROBE_BIG);
    m.F = measure_fold();
    probe_contention(quick, &m.c, &m.b);
    measure_put(iters, m.L, &m);
    PROBE_TRY(aos_barrier_all());
    /* PE 0's figures are the model: everyone uses them. */
    struct aos__model *shared = aos_malloc(sizeof *shared);
    if (shared == NULL)
        return 1;
    *shared = m;
    PROBE_TRY(aos_broadcast(aos_team_world(), shared, shared, sizeof m, 0));
    m = *shared;
    m.from_file = 1;

    int rc = 0;
    if (me == 0) {
        char path[4096];
        if (output == NULL && aos__model_path(path, sizeof path) == 0)
            output = path;
        printf("model of this machine (ns):\n");
#define PRINT_ROW(field, key, def, meaning) printf("  %-20s %10.4g   %s\n", key, m.field, meaning);
        AOS__MODEL_TABLE(PRINT_ROW)
#undef PRINT_ROW
        if (output != NULL) {
            rc = probe_write(output, &m, npes);
            printf("%s %s\n", rc == 0 ? "written to" : "could not write", output);
        }
    }
    if (predict) {
        aos__model_set(&m); /* plan with what was just measured */
        probe_predict(&m, me, npes, quick);
    }
    aos_free(shared);
    aos_free(bigbuf);
    PROBE_TRY(aos_finalize());
    return rc;
}
