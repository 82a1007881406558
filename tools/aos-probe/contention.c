/* Contention: the time per update when n threads of this process, one per
 * CPU, keep updating one cache line, fitted as T(n) = c n + b over
 * n = 1 .. CPUs (at most 8). A line many PEs touch moves between their
 * caches; the model charges that when several children copy from one
 * parent. */
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <unistd.h>

#include "probe.h"

static _Alignas(64) uint64_t line;
static volatile int go;

struct worker {
    pthread_t thread;
    int cpu;
    long iters;
    double ns;
};

static void *work(void *arg)
{
    struct worker *w = arg;
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(w->cpu, &set);
    (void)pthread_setaffinity_np(pthread_self(), sizeof set, &set);
    while (!go) {
    }
    double s = probe_now_ns();
    for (long i = 0; i < w->iters; i++)
        __atomic_fetch_add(&line, 1, __ATOMIC_RELAXED);
    w->ns = (probe_now_ns() - s) / (double)w->iters;
    return NULL;
}

static double per_update(int n, long iters)
{
    struct worker w[8];
    cpu_set_t mine;
    int cpus[8], found = 0;
    if (sched_getaffinity(0, sizeof mine, &mine) != 0)
        CPU_ZERO(&mine);
    for (int c = 0; c < CPU_SETSIZE && found < n; c++)
        if (CPU_COUNT(&mine) == 0 || CPU_ISSET(c, &mine))
            cpus[found++] = c;
    go = 0;
    for (int i = 0; i < n; i++) {
        w[i] = (struct worker){.cpu = cpus[i % (found ? found : 1)], .iters = iters};
        pthread_create(&w[i].thread, NULL, work, &w[i]);
    }
    go = 1;
    double worst = 0;
    for (int i = 0; i < n; i++) {
        pthread_join(w[i].thread, NULL);
        worst = w[i].ns > worst ? w[i].ns : worst;
    }
    return worst;
}

void probe_contention(int quick, double *c, double *b)
{
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    int nmax = cpus < 2 ? 2 : cpus > 8 ? 8 : (int)cpus;
    long iters = quick ? 200000 : 2000000;
    /* Least squares over n = 1 .. nmax of the median of 5 runs each. */
    double sx = 0, sy = 0, sxx = 0, sxy = 0;
    for (int n = 1; n <= nmax; n++) {
        double t[5];
        for (int k = 0; k < 5; k++)
            t[k] = per_update(n, iters);
        double y = probe_median(t, 5);
        sx += n, sy += y, sxx += (double)n * n, sxy += n * y;
    }
    double k = nmax;
    *c = (k * sxy - sx * sy) / (k * sxx - sx * sx);
    *b = (sy - *c * sx) / k;
    /* A noisy run can tilt the line either way; flat, its best fit is the
     * mean. T(1) = c + b stays positive: the planner divides by it. */
    if (*c < 0) {
        *c = 0;
        *b = sy / k;
    }
    if (*b < 0)
        *b = 0;
}
