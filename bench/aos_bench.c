/* aos-bench: the foundation's metrics over aos, for 2 PEs:
 *   pingpong    put payload + put flag, the peer waits on the flag and
 *               answers the same way; half round trip, 8 B - 4 KiB
 *   put_quiet   8-byte put then aos_quiet, per operation
 *   get         8-byte blocking get, per operation
 *   put_bw      puts of 4 KiB - 4 MiB sharing one event, then wait
 *   put_rate    8-byte puts sharing one event, then wait: puts per second
 *   barrier     aos_barrier_all
 * Prints CSV (metric,bytes,value,unit). usage: aosrun -n 2 aos-bench [quick] */
#include <string.h>

#include "aos.h"
#include "bench_common.h"

#define TRY(x)                                                                             \
    do {                                                                                   \
        int rc_ = (x);                                                                     \
        if (rc_ != AOS_OK) {                                                               \
            fprintf(stderr, "aos-bench: %s: %s\n", #x, aos_strerror(rc_));                \
            exit(1);                                                                       \
        }                                                                                  \
    } while (0)


static int me, peer;
static uint8_t *sym;     /* BENCH_MAX_MSG symmetric bytes: the target of puts */
static uint64_t *flag;   /* ping-pong flag */
static uint8_t *src;
static aos_event_t *ev;

static double pingpong(size_t bytes, long iters)
{
    static uint64_t base; /* flag values so far, the same on both PEs: reading the
                             flag instead would race with the peer's first put */
    TRY(aos_barrier_all());
    double t0 = bench_now();
    for (long i = 1; i <= iters; i++) {
        uint64_t want = base + (uint64_t)i;
        if (me == 0) {
            TRY(aos_putmem(peer, sym, src, bytes, NULL));
            TRY(aos_putmem(peer, flag, &want, sizeof want, NULL));
            TRY(aos_wait_until_u64(flag, AOS_CMP_GE, want));
        } else {
            TRY(aos_wait_until_u64(flag, AOS_CMP_GE, want));
            TRY(aos_putmem(peer, sym, src, bytes, NULL));
            TRY(aos_putmem(peer, flag, &want, sizeof want, NULL));
        }
    }
    double t = bench_now() - t0;
    base += (uint64_t)iters;
    return t / (double)iters / 2.0;
}

static double timed(enum bench_op op, size_t bytes, long iters)
{
    TRY(aos_barrier_all());
    double t0 = bench_now();
    if (op == BENCH_BARRIER) {
        for (long i = 0; i < iters; i++)
            TRY(aos_barrier_all());
    } else if (me == 0) {
        for (long i = 0; i < iters; i++) {
            switch (op) {
            case BENCH_PUT_QUIET:
                TRY(aos_putmem(peer, sym, src, bytes, ev));
                TRY(aos_quiet());
                break;
            case BENCH_GET:
                TRY(aos_getmem(peer, src, sym, bytes, NULL));
                break;
            default: /* BENCH_PUT_BW, BENCH_PUT_RATE */
                TRY(aos_putmem(peer, sym + (op == BENCH_PUT_RATE ? (size_t)(i & 511) * 8 : 0), src,
                               bytes, ev));
                break;
            }
        }
        TRY(aos_event_wait(ev));
    }
    double t = bench_now() - t0;
    TRY(aos_barrier_all());
    return t;
}

int main(int argc, char **argv)
{
    int quick = argc > 1 && strcmp(argv[1], "quick") == 0;
    double scale = quick ? 0.05 : 1.0;
    TRY(aos_init());
    me = aos_my_pe();
    if (aos_n_pes() != 2) {
        if (me == 0)
            fprintf(stderr, "aos-bench: run with exactly 2 PEs (aosrun -n 2)\n");
        aos_finalize();
        return 2;
    }
    peer = 1 - me;
    sym = aos_calloc(BENCH_MAX_MSG, 1);
    flag = aos_calloc(1, sizeof *flag);
    src = aligned_alloc(4096, BENCH_MAX_MSG); /* page aligned like sym: no misaligned copies */
    if (sym == NULL || flag == NULL || src == NULL)
        return 1;
    memset(src, 0x5a, BENCH_MAX_MSG);
    TRY(aos_event_create(&ev));

    struct bench_target target = {.me = me, .pingpong = pingpong, .timed = timed};
    bench_run_all(&target, scale);

    TRY(aos_event_destroy(ev));
    free(src);
    aos_free(flag);
    aos_free(sym);
    TRY(aos_finalize());
    return 0;
}
