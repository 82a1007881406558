/* The physical limits the benchmarks are judged against:
 *   cacheline   half round trip of one cache line bounced between two
 *               processes on two cores (each waits for the other's value)
 *   linepair    the same with one line per direction: each process waits on
 *               its own line and stores into the other's. Any ping-pong
 *               between two PEs' memories (flags, notifications) has this
 *               shape; on CPUs that hand a just-read modified line over
 *               whole, it costs about twice the single-line bounce.
 *   memcpy_bw   memcpy bandwidth at each put_bw size
 * Same CSV as aos-bench. usage: limits [quick] */
#include <sched.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bench_common.h"

static void pin(int cpu)
{
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(cpu % (int)sysconf(_SC_NPROCESSORS_ONLN), &set);
    sched_setaffinity(0, sizeof set, &set);
}

/* Half round trip: `lines` 1 bounces one line, 2 gives each direction its own. */
static double bounce(long iters, int lines)
{
    volatile uint64_t *mem = mmap(NULL, 4096, PROT_READ | PROT_WRITE,
                                  MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if ((void *)mem == MAP_FAILED)
        exit(1);
    volatile uint64_t *to_child = mem, *to_parent = lines == 1 ? mem : mem + 8;
    *to_child = *to_parent = 0;
    pid_t pid = fork();
    if (pid == 0) {
        pin(1);
        for (uint64_t i = 1; i <= (uint64_t)iters; i++) {
            while (__atomic_load_n(to_child, __ATOMIC_ACQUIRE) != 2 * i - 1)
                ;
            __atomic_store_n(to_parent, 2 * i, __ATOMIC_RELEASE);
        }
        _exit(0);
    }
    pin(0);
    double t0 = bench_now();
    for (uint64_t i = 1; i <= (uint64_t)iters; i++) {
        __atomic_store_n(to_child, 2 * i - 1, __ATOMIC_RELEASE);
        while (__atomic_load_n(to_parent, __ATOMIC_ACQUIRE) != 2 * i)
            ;
    }
    double t = bench_now() - t0;
    waitpid(pid, NULL, 0);
    munmap((void *)mem, 4096);
    return t / (double)iters / 2.0;
}

int main(int argc, char **argv)
{
    double scale = argc > 1 && strcmp(argv[1], "quick") == 0 ? 0.05 : 1.0;
    double v[TRIALS];
    for (int lines = 1; lines <= 2; lines++) {
        for (int k = 0; k < TRIALS; k++)
            v[k] = bounce((long)(200000 * scale) + 10, lines);
        bench_report(lines == 1 ? "cacheline" : "linepair", 64, bench_median(v, TRIALS) * 1e6,
                     "us");
    }
    size_t max = 4u << 20;
    uint8_t *a = aligned_alloc(4096, max), *b = aligned_alloc(4096, max);
    memset(a, 1, max);
    memset(b, 2, max);
    for (size_t bytes = 4096; bytes <= max; bytes *= 4) {
        long iters = bench_iters(bytes, 256e6 * scale, 20, 100000);
        for (int k = 0; k < TRIALS; k++) {
            double t0 = bench_now();
            for (long i = 0; i < iters; i++) {
                memcpy(b, a, bytes);
                __asm__ __volatile__("" ::"r"(b) : "memory");
            }
            v[k] = (double)bytes * (double)iters / (bench_now() - t0) / 1e9;
        }
        bench_report("memcpy_bw", bytes, bench_median(v, TRIALS), "GB/s");
    }
    free(a);
    free(b);
    return 0;
}
