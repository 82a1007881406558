/* The aos-bench metrics over MPI-3 RMA (run with Open MPI's osc/sm):
 * MPI_Win_allocate + MPI_Win_lock_all, MPI_Put/MPI_Get + MPI_Win_flush, and
 * MPI_Barrier. Same CSV as aos-bench.
 * usage: mpirun -n 2 --mca osc sm mpi-rma-bench [quick] [progress]
 * progress: the flag wait drives MPI's progress (MPI_Iprobe), which a
 * network window (osc/ucx over TCP) needs to apply the peer's puts; with
 * osc/sm it would only slow the wait. */
#include <mpi.h>
#include <stdint.h>
#include <string.h>

#include "bench_common.h"


static int me, peer;
static uint8_t *base;          /* window memory: BENCH_MAX_MSG bytes then the flag */
static volatile uint64_t *flag;
static uint8_t *src;
static MPI_Win win;
static const MPI_Aint flag_disp = BENCH_MAX_MSG;
static const MPI_Aint counter_disp = BENCH_MAX_MSG + 8; /* atomics target; CAS counts from 0 */

static int drive_progress;

static void wait_flag(uint64_t want)
{
    while (*flag < want) {
        MPI_Win_sync(win); /* the unified model: sync makes remote puts visible */
        if (drive_progress) {
            int any;
            MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &any, MPI_STATUS_IGNORE);
        }
    }
}

static double pingpong(size_t bytes, long iters)
{
    static uint64_t start; /* flag values so far, the same on both ranks */
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = bench_now();
    for (long i = 1; i <= iters; i++) {
        uint64_t want = start + (uint64_t)i;
        if (me == 1)
            wait_flag(want);
        MPI_Put(src, (int)bytes, MPI_BYTE, peer, 0, (int)bytes, MPI_BYTE, win);
        MPI_Win_flush(peer, win);
        MPI_Put(&want, 1, MPI_UINT64_T, peer, flag_disp, 1, MPI_UINT64_T, win);
        MPI_Win_flush(peer, win);
        if (me == 0)
            wait_flag(want);
    }
    double t = bench_now() - t0;
    start += (uint64_t)iters;
    return t / (double)iters / 2.0;
}

static double timed(enum bench_op op, size_t bytes, long iters)
{
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = bench_now();
    if (op == BENCH_BARRIER) {
        for (long i = 0; i < iters; i++)
            MPI_Barrier(MPI_COMM_WORLD);
    } else if (me == 0) {
        for (long i = 0; i < iters; i++) {
            switch (op) {
            case BENCH_PUT_QUIET:
                MPI_Put(src, (int)bytes, MPI_BYTE, peer, 0, (int)bytes, MPI_BYTE, win);
                MPI_Win_flush(peer, win);
                break;
            case BENCH_GET:
                MPI_Get(src, (int)bytes, MPI_BYTE, peer, 0, (int)bytes, MPI_BYTE, win);
                MPI_Win_flush(peer, win);
                break;
            case BENCH_FETCH_ADD: {
                uint64_t one = 1, old;
                MPI_Fetch_and_op(&one, &old, MPI_UINT64_T, peer, counter_disp, MPI_SUM, win);
                MPI_Win_flush(peer, win);
                break;
            }
            case BENCH_CAS: {
                uint64_t next = (uint64_t)i + 1, cmp = (uint64_t)i, old;
                MPI_Compare_and_swap(&next, &cmp, &old, MPI_UINT64_T, peer, counter_disp, win);
                MPI_Win_flush(peer, win);
                break;
            }
            case BENCH_POST_ADD: {
                uint64_t one = 1;
                MPI_Accumulate(&one, 1, MPI_UINT64_T, peer, counter_disp, 1, MPI_UINT64_T,
                               MPI_SUM, win);
                break;
            }
            default:
                MPI_Put(src, (int)bytes, MPI_BYTE, peer,
                        op == BENCH_PUT_RATE ? (MPI_Aint)(i & 511) * 8 : 0, (int)bytes, MPI_BYTE,
                        win);
                break;
            }
        }
        MPI_Win_flush(peer, win);
    }
    double t = bench_now() - t0;
    MPI_Barrier(MPI_COMM_WORLD);
    return t;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int quick = 0;
    for (int i = 1; i < argc; i++) {
        quick |= strcmp(argv[i], "quick") == 0;
        drive_progress |= strcmp(argv[i], "progress") == 0;
    }
    double scale = quick ? 0.05 : 1.0;
    int n_pes;
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &n_pes);
    if (n_pes != 2) {
        if (me == 0)
            fprintf(stderr, "mpi-rma-bench: run with exactly 2 ranks\n");
        MPI_Finalize();
        return 2;
    }
    peer = 1 - me;
    MPI_Win_allocate(BENCH_MAX_MSG + 64, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win);
    memset(base, 0, BENCH_MAX_MSG + 64);
    flag = (volatile uint64_t *)(base + BENCH_MAX_MSG);
    src = aligned_alloc(4096, BENCH_MAX_MSG); /* page aligned like the window */
    memset(src, 0x5a, BENCH_MAX_MSG);
    MPI_Win_lock_all(0, win);
    MPI_Barrier(MPI_COMM_WORLD);

    struct bench_target target = {.me = me, .pingpong = pingpong, .timed = timed};
    bench_run_all(&target, scale);

    MPI_Win_unlock_all(win);
    MPI_Win_free(&win);
    free(src);
    MPI_Finalize();
    return 0;
}
