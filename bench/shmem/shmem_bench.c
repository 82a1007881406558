/* shmem-bench: aos-bench's metrics written with the OpenSHMEM API, for 2
 * PEs, built twice: against aos (oshcc of this tree: aos-shmem-bench) and
 * against Open MPI's OpenSHMEM (the system's oshcc: ompi-shmem-bench).
 * bench/shmem_compare runs both beside the native aos-bench.
 *   pingpong    putmem payload, fence, long_p flag; the peer waits on the
 *               flag and answers the same way; half round trip
 *   put_quiet   8-byte putmem then quiet
 *   get         8-byte getmem
 *   put_bw      putmem_nbi of 4 KiB - 4 MiB, quiet at the end
 *   put_rate    8-byte putmem_nbi to distinct words, quiet at the end
 *   barrier     shmem_barrier_all
 *   fetch_add   long_atomic_fetch_add (latency); cas: compare_swap
 *   post_add    long_atomic_add rate, quiet at the end
 * Prints CSV (metric,bytes,value,unit). usage: oshrun -n 2 shmem-bench [quick] */
#include <shmem.h>
#include <stdint.h>
#include <string.h>

#include "../bench_common.h"

static int me, peer;
static uint8_t *sym, *src, *scratch;
static long *flag, *counter;

static double pingpong(size_t bytes, long iters)
{
    static long base; /* flag values so far, the same on both PEs */
    shmem_barrier_all();
    double t0 = bench_now();
    for (long i = 1; i <= iters; i++) {
        long want = base + i;
        if (me == 0) {
            shmem_putmem(sym, src, bytes, peer);
            shmem_fence();
            shmem_long_p(flag, want, peer);
            shmem_long_wait_until(flag, SHMEM_CMP_GE, want);
        } else {
            shmem_long_wait_until(flag, SHMEM_CMP_GE, want);
            shmem_putmem(sym, src, bytes, peer);
            shmem_fence();
            shmem_long_p(flag, want, peer);
        }
    }
    double t = bench_now() - t0;
    base += iters;
    return t / (double)iters / 2.0;
}

static double timed(enum bench_op op, size_t bytes, long iters)
{
    shmem_barrier_all();
    double t0 = bench_now();
    if (op == BENCH_BARRIER) {
        for (long i = 0; i < iters; i++)
            shmem_barrier_all();
    } else if (me == 0) {
        for (long i = 0; i < iters; i++) {
            switch (op) {
            case BENCH_PUT_QUIET:
                shmem_putmem(sym, src, bytes, peer);
                shmem_quiet();
                break;
            case BENCH_GET:
                shmem_getmem(src, sym, bytes, peer);
                break;
            case BENCH_FETCH_ADD:
                (void)shmem_long_atomic_fetch_add(counter, 1, peer);
                break;
            case BENCH_CAS:
                (void)shmem_long_atomic_compare_swap(counter, i, i + 1, peer);
                break;
            case BENCH_POST_ADD:
                shmem_long_atomic_add(counter, 1, peer);
                break;
            case BENCH_MEMCPY:
                memcpy(scratch, src, bytes);
                __asm__ __volatile__("" ::"r"(scratch) : "memory");
                break;
            default: /* BENCH_PUT_BW, BENCH_PUT_RATE */
                shmem_putmem_nbi(sym + (op == BENCH_PUT_RATE ? (size_t)(i & 511) * 8 : 0), src,
                                 bytes, peer);
                break;
            }
        }
        shmem_quiet();
    }
    double t = bench_now() - t0;
    shmem_barrier_all();
    return t;
}

int main(int argc, char **argv)
{
    int quick = argc > 1 && strcmp(argv[1], "quick") == 0;
    shmem_init();
    me = shmem_my_pe();
    if (shmem_n_pes() != 2) {
        if (me == 0)
            fprintf(stderr, "shmem-bench: run with exactly 2 PEs\n");
        shmem_finalize();
        return 2;
    }
    peer = 1 - me;
    sym = shmem_calloc(BENCH_MAX_MSG, 1);
    flag = shmem_calloc(1, sizeof *flag);
    counter = shmem_calloc(8, sizeof *counter);
    src = aligned_alloc(4096, BENCH_MAX_MSG);
    scratch = aligned_alloc(4096, BENCH_MAX_MSG);
    if (sym == NULL || flag == NULL || counter == NULL || src == NULL || scratch == NULL)
        return 1;
    memset(src, 0x5a, BENCH_MAX_MSG);
    memset(scratch, 0, BENCH_MAX_MSG);
    struct bench_target target = {.me = me, .has_memcpy = 1, .pingpong = pingpong, .timed = timed};
    bench_run_all(&target, quick ? 0.05 : 1.0);
    shmem_free(counter);
    shmem_free(flag);
    shmem_free(sym);
    shmem_finalize();
    return 0;
}
