/* Shared by aos-bench and its MPI peer so that both measure the same way:
 * every metric is timed over `iters` operations, repeated TRIALS times, and
 * the median trial is reported as one CSV line: metric,bytes,value,unit. */
#ifndef AOS_BENCH_COMMON_H
#define AOS_BENCH_COMMON_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define TRIALS 7

static inline double bench_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static int bench_cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static inline double bench_median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, bench_cmp_double);
    return v[n / 2];
}

static inline void bench_report(const char *metric, size_t bytes, double value, const char *unit)
{
    printf("%s,%zu,%.6g,%s\n", metric, bytes, value, unit);
    fflush(stdout);
}

/* Iterations for a transfer of `bytes`: about `budget` bytes moved per trial,
 * at least `min` operations. */
static inline long bench_iters(size_t bytes, double budget, long min, long max)
{
    long n = (long)(budget / (double)(bytes ? bytes : 1));
    return n < min ? min : n > max ? max : n;
}

#define BENCH_MAX_MSG (4u << 20)

/* Whether `metric` runs at `bytes`: all do unless BENCH_ONLY names some,
 * separated by commas, each alone (every size) or with one size
 * (BENCH_ONLY=put_bw:65536,get), so that one metric can be rerun many
 * times alone. Every PE of a run sees the same environment. */
static inline int bench_wants_size(const char *metric, size_t bytes)
{
    const char *only = getenv("BENCH_ONLY");
    if (only == NULL || *only == '\0')
        return 1;
    size_t n = strlen(metric);
    for (const char *p = only; p != NULL; p = strchr(p, ',')) {
        if (*p == ',')
            p++;
        if (strncmp(p, metric, n) != 0)
            continue;
        if (p[n] == ',' || p[n] == '\0')
            return 1;
        if (p[n] == ':' && (bytes == (size_t)-1 || strtoull(p + n + 1, NULL, 10) == bytes))
            return 1;
    }
    return 0;
}

/* Whether `metric` runs at any size. */
static inline int bench_wants(const char *metric)
{
    return bench_wants_size(metric, (size_t)-1);
}

/* What each benchmark program measures, the same way. */
enum bench_op {
    BENCH_PUT_QUIET,
    BENCH_GET,
    BENCH_PUT_BW,
    BENCH_PUT_RATE,
    BENCH_BARRIER,
    BENCH_FETCH_ADD, /* 8-byte fetch-add, complete on return: latency */
    BENCH_POST_ADD,  /* 8-byte posted add, completed at the end: rate */
    BENCH_CAS,       /* 8-byte compare-and-swap, complete on return: latency */
    BENCH_MEMCPY     /* plain memcpy by PE 0 between private buffers, same harness */
};

struct bench_target {
    int me; /* only PE/rank 0 reports */
    int has_memcpy; /* timed() knows BENCH_MEMCPY: put_bw gets a same-run memcpy twin */
    /* half round trip in seconds of `iters` exchanges of `bytes` */
    double (*pingpong)(size_t bytes, long iters);
    /* seconds for `iters` operations of one kind, timed by PE 0 */
    double (*timed)(enum bench_op op, size_t bytes, long iters);
};

static inline double bench_median_of(const struct bench_target *t, enum bench_op op,
                                     size_t bytes, long iters)
{
    double v[TRIALS];
    for (int k = 0; k < TRIALS; k++)
        v[k] = t->timed(op, bytes, iters);
    return bench_median(v, TRIALS);
}

/* A ping-pong sweep, 8 B - 4 KiB, reported as `metric`. */
static inline void bench_pingpong_sweep(const struct bench_target *t, const char *metric,
                                        double scale)
{
    if (!bench_wants(metric))
        return;
    for (size_t b = 8; b <= 4096; b *= 2) {
        if (!bench_wants_size(metric, b))
            continue;
        double v[TRIALS];
        long iters = (long)(20000 * scale) + 10;
        for (int k = 0; k < TRIALS; k++)
            v[k] = t->pingpong(b, iters);
        if (t->me == 0)
            bench_report(metric, b, bench_median(v, TRIALS) * 1e6, "us");
    }
}

/* One metric of `iters` operations of one kind: its median trial, as
 * microseconds per operation (a latency) or millions of operations per
 * second (a rate). */
static inline void bench_one(const struct bench_target *t, const char *metric, enum bench_op op,
                             size_t bytes, long iters, int rate)
{
    if (!bench_wants(metric))
        return;
    double s = bench_median_of(t, op, bytes, iters);
    if (t->me == 0)
        bench_report(metric, bytes, rate ? (double)iters / s / 1e6 : s / (double)iters * 1e6,
                     rate ? "Mops/s" : "us");
}

/* Runs every metric (or those BENCH_ONLY names) and prints the CSV;
 * scale < 1 shortens the runs. */
static inline void bench_run_all(const struct bench_target *t, double scale)
{
    int report = t->me == 0;
    long lat = (long)(200000 * scale) + 10, rate = (long)(2000000 * scale) + 10;
    bench_pingpong_sweep(t, "pingpong", scale);
    bench_one(t, "put_quiet", BENCH_PUT_QUIET, 8, lat, 0);
    bench_one(t, "get", BENCH_GET, 8, lat, 0);
    for (size_t b = 4096; b <= BENCH_MAX_MSG; b *= 4) {
        if (!bench_wants_size("put_bw", b))
            continue;
        /* A quick run's trials still move 64 MB: over a network a trial of
         * milliseconds measures how fast a stream starts (TCP's window, the
         * first turns of the peers' progress), not its bandwidth. */
        long iters = bench_iters(b, 256e6 * (scale < 0.25 ? 0.25 : scale), 20, 100000);
        /* Trials of put and of memcpy alternate, so that both see the same
         * machine (this one changes speed from minute to minute). */
        double vp[TRIALS], vm[TRIALS];
        for (int k = 0; k < TRIALS; k++) {
            vp[k] = t->timed(BENCH_PUT_BW, b, iters);
            vm[k] = t->has_memcpy ? t->timed(BENCH_MEMCPY, b, iters) : 0;
        }
        double bytes = (double)b * (double)iters;
        if (report)
            bench_report("put_bw", b, bytes / bench_median(vp, TRIALS) / 1e9, "GB/s");
        if (report && t->has_memcpy)
            bench_report("memcpy_bw", b, bytes / bench_median(vm, TRIALS) / 1e9, "GB/s");
    }
    bench_one(t, "put_rate", BENCH_PUT_RATE, 8, rate, 1);
    bench_one(t, "barrier", BENCH_BARRIER, 0, (long)(50000 * scale) + 10, 0);
    bench_one(t, "fetch_add", BENCH_FETCH_ADD, 8, lat, 0);
    bench_one(t, "cas", BENCH_CAS, 8, lat, 0);
    bench_one(t, "post_add_rate", BENCH_POST_ADD, 8, rate, 1);
}

#endif
