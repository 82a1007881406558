/* Shared by aos-bench and its MPI peer so that both measure the same way:
 * every metric is timed over `iters` operations, repeated TRIALS times, and
 * the median trial is reported as one CSV line: metric,bytes,value,unit. */
#ifndef AOS_BENCH_COMMON_H
#define AOS_BENCH_COMMON_H

#include <stdio.h>
#include <stdlib.h>
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

#endif
