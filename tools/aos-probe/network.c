/* The model's network tier, measured between PE 0 and the first PE on
 * another node (everyone else only takes part in the barriers), with the
 * transport calls the collectives' node leaders make: signals
 * (signal_store, as barriers and broadcasts announce), gets (a broadcast
 * child across nodes) and blocking puts (the exchange by nodes). */
#include <string.h>

#include "core/runtime.h"
#include "core/wait.h"
#include "mem/memory.h"
#include "probe.h"

static uint64_t ping, pong; /* symmetric: the words the round trips signal */
static uint64_t sink;       /* symmetric: the word the timed signals go to */
static char *buf;           /* symmetric, PROBE_BIG bytes */
static char *local;         /* private, PROBE_BIG bytes */

int probe_net_partner(void)
{
    for (int pe = 1; pe < aos__rt.npes; pe++)
        if (aos__rt.peers[pe].node != aos__rt.peers[0].node)
            return pe;
    return -1;
}

static uint64_t offset_of(const void *addr, size_t len)
{
    uint64_t off;
    PROBE_TRY(aos__sym_locate(addr, len, &off));
    return off;
}

static void sig(int pe, const uint64_t *word, uint64_t v)
{
    PROBE_TRY(aos__tp(pe)->signal_store(pe, offset_of(word, 8), v));
}

/* L: half the round trip of a signal answered by a signal. */
static double net_latency(int me, int partner, long iters)
{
    double t[PROBE_TRIALS];
    static uint64_t round;
    for (int k = 0; k < PROBE_TRIALS; k++) {
        PROBE_TRY(aos_barrier_all());
        double s = probe_now_ns();
        for (long i = 0; i < iters; i++) {
            uint64_t v = ++round;
            if (me == 0) {
                sig(partner, &ping, v);
                PROBE_TRY(aos__wait_arena_word(offset_of(&pong, 8), v));
            } else if (me == partner) {
                PROBE_TRY(aos__wait_arena_word(offset_of(&ping, 8), v));
                sig(0, &pong, v);
            }
        }
        t[k] = (probe_now_ns() - s) / (double)iters / 2.0;
    }
    return probe_median(t, PROBE_TRIALS);
}

/* The median over trials of the mean time of `iters` calls of PE 0's
 * `what`: 0 a signal issued alone (a spin between), 1 signals in a
 * stream, 2 an 8-byte get, 3 an 8-byte blocking put, 4 a get of `bytes`. */
static double net_calls(int me, int partner, int what, long iters, size_t bytes)
{
    double t[PROBE_TRIALS];
    for (int k = 0; k < PROBE_TRIALS; k++) {
        PROBE_TRY(aos_barrier_all());
        double sum = 0.0;
        if (me == 0) {
            double s = probe_now_ns();
            for (long i = 0; i < iters; i++) {
                double a = probe_now_ns();
                if (what <= 1)
                    sig(partner, &sink, (uint64_t)i);
                else if (what == 2)
                    PROBE_TRY(aos_getmem(partner, local, buf, 8, NULL));
                else if (what == 3)
                    PROBE_TRY(aos_putmem(partner, buf, local, 8, NULL));
                else
                    PROBE_TRY(aos_getmem(partner, local, buf, bytes, NULL));
                sum += probe_now_ns() - a;
                for (volatile int spin = 0; what == 0 && spin < 2000; spin++) {
                }
            }
            if (what != 0)
                sum = probe_now_ns() - s;
        }
        t[k] = sum / (double)iters;
    }
    PROBE_TRY(aos_barrier_all());
    return probe_median(t, PROBE_TRIALS);
}

int probe_measure_net(struct aos__model *m, int effort)
{
    int partner = probe_net_partner(), me = aos_my_pe();
    if (partner < 0)
        return 0;
    long iters = effort == PROBE_FULL ? 2000 : effort == PROBE_QUICK ? 200 : 500;
    if (buf == NULL) {
        buf = aos_malloc(PROBE_BIG);
        local = malloc(PROBE_BIG);
        if (buf == NULL || local == NULL) {
            fprintf(stderr, "aos-probe: no memory for the network measurements\n");
            exit(1);
        }
        memset(local, 0, PROBE_BIG);
    }
    m->net_L = net_latency(me, partner, iters);
    m->net_o = net_calls(me, partner, 0, iters, 0);
    m->net_g = net_calls(me, partner, 1, iters, 0);
    m->net_get = net_calls(me, partner, 2, iters, 0);
    m->net_put = net_calls(me, partner, 3, iters, 0);
    double big = net_calls(me, partner, 4, iters / 50 + 4, PROBE_BIG);
    m->net_G = big > m->net_get ? (big - m->net_get) / (double)PROBE_BIG : 1e-3;
    m->net_measured = 1;
    PROBE_TRY(aos__quiet_all()); /* the signals of the stream are out */
    PROBE_TRY(aos_barrier_all());
    return partner;
}
