/* One measuring harness for the collective benchmarks of aos, Open MPI
 * (MPI_Barrier/Bcast/Allreduce) and Open MPI's OpenSHMEM, so that all three
 * time the same loops. Each program fills a coll_ops table and calls
 * coll_bench_run; PE 0 prints CSV lines metric,bytes,microseconds:
 *   barrier     one barrier
 *   bcast       one broadcast from PE 0 (a loop of broadcast + barrier,
 *               minus a loop of barriers alone)
 *   allreduce   one sum of bytes/8 64-bit integers over all PEs
 *   memcpy      (aos only) one memcpy of that size, the bandwidth reference */
#ifndef AOS_COLL_BENCH_H
#define AOS_COLL_BENCH_H

#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#define COLL_MAX_BCAST (4u << 20)
#define COLL_MAX_REDUCE (1u << 20)
#define COLL_TRIALS 5

struct coll_ops {
    void (*barrier)(void);
    void (*bcast)(void *buf, size_t bytes); /* root 0, in place on the root */
    void (*allreduce)(int64_t *dst, const int64_t *src, size_t count);
    void *buf, *src; /* symmetric, COLL_MAX_BCAST bytes each */
    int me, npes;
    int with_memcpy;
};

static inline double coll_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static inline int coll_cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Median over trials of the time per iteration of body, in microseconds.
 * Every PE runs it; the barrier before each trial lines them up. */
#define COLL_TIME(ops, iters, out, body)                                                   \
    do {                                                                                   \
        double t_[COLL_TRIALS];                                                            \
        for (int k_ = 0; k_ < COLL_TRIALS; k_++) {                                         \
            (ops)->barrier();                                                              \
            double s_ = coll_now();                                                        \
            for (long i_ = 0; i_ < (iters); i_++) {                                        \
                body;                                                                      \
            }                                                                              \
            t_[k_] = (coll_now() - s_) * 1e6 / (double)(iters);                            \
        }                                                                                  \
        qsort(t_, COLL_TRIALS, sizeof t_[0], coll_cmp);                                    \
        (out) = t_[COLL_TRIALS / 2];                                                       \
    } while (0)

static inline long coll_iters(size_t bytes, int quick)
{
    long n = (long)((quick ? 4e6 : 64e6) / (double)(bytes + 256));
    long lo = quick ? 4 : 20, hi = quick ? 2000 : 20000;
    return n < lo ? lo : n > hi ? hi : n;
}

static inline void coll_report(const struct coll_ops *ops, const char *metric, size_t bytes,
                               double us)
{
    if (ops->me == 0) {
        printf("%s,%zu,%.6g\n", metric, bytes, us);
        fflush(stdout);
    }
}

static inline void coll_bench_run(const struct coll_ops *ops, int quick)
{
    double t, tb;
    long it = quick ? 2000 : 50000;
    COLL_TIME(ops, it, tb, ops->barrier());
    coll_report(ops, "barrier", 0, tb);
    static char local_a[COLL_MAX_BCAST], local_b[COLL_MAX_BCAST];
    memset(local_a, 1, sizeof local_a);
    memset(local_b, 2, sizeof local_b);
    memset(ops->buf, 3, COLL_MAX_BCAST);
    memset(ops->src, 4, COLL_MAX_BCAST);
    for (size_t bytes = 8; bytes <= COLL_MAX_BCAST; bytes *= (quick ? 64 : bytes < 65536 ? 8 : 2)) {
        long n = coll_iters(bytes, quick);
        COLL_TIME(ops, n, t, { ops->bcast(ops->buf, bytes); ops->barrier(); });
        COLL_TIME(ops, n, tb, ops->barrier());
        coll_report(ops, "bcast", bytes, t - tb > 0 ? t - tb : 0.0);
        if (ops->with_memcpy) {
            COLL_TIME(ops, n, t, {
                memcpy(local_b, local_a, bytes);
                __asm__ volatile("" ::: "memory");
            });
            coll_report(ops, "memcpy", bytes, t);
        }
    }
    for (size_t bytes = 8; bytes <= COLL_MAX_REDUCE; bytes *= (quick ? 64 : bytes < 65536 ? 8 : 4)) {
        long n = coll_iters(bytes, quick);
        COLL_TIME(ops, n, t, ops->allreduce(ops->buf, ops->src, bytes / 8));
        coll_report(ops, "allreduce", bytes, t);
    }
}

#endif
