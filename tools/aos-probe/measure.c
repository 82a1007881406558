/* The model's parameters, measured between PE 0 and PE 1, which share a
 * node (everyone else only takes part in the barriers); across nodes,
 * network.c. */
#include <stdalign.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "arch/copy.h"
#include "coll/reduce_ops.h"
#include "probe.h"

static int me;
static uint64_t put_word;     /* symmetric: the word the overhead and put tests write */
#define PINGPONG_BYTES (PROBE_PLACES * 4096)
static char *pingpong;        /* symmetric: a ping line and its pong line at each place */
static char *bigbuf;          /* symmetric, PROBE_BIG bytes */
static double *stamps;        /* symmetric, PROBE_SAMPLES clock readings */
static double go_at;          /* symmetric: when the PEs start together */
static char *local;           /* private copy target, PROBE_BIG bytes */

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

size_t probe_place(long i, size_t bytes, size_t span)
{
    size_t off = (size_t)(i % PROBE_PLACES) * 4096;
    if (bytes >= span)
        return 0;
    return off + bytes <= span ? off : off % (span - bytes + 1) & ~(size_t)(PROBE_LINE - 1);
}

double probe_median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, cmp);
    return v[n / 2];
}

/* Collective: every PE returns at about the same instant (the node has
 * one clock), which it returns. After a sync its members leave up to a
 * latency apart (the last to arrive first), as much as a small collective
 * takes, so the time comes from PE 0 instead, far enough ahead for its
 * signal and the sync. */
double probe_start_together(void)
{
    int n = aos_n_pes();
    if (me == 0) {
        double at = probe_now_ns() + PROBE_LEAD_NS * n;
        for (int pe = 1; pe < n; pe++)
            PROBE_TRY(aos_putmem(pe, &go_at, &at, sizeof at, NULL));
        go_at = at;
    }
    PROBE_TRY(aos_barrier_all()); /* orders the puts before the reads */
    double at = go_at;
    while (probe_now_ns() < at) {
    }
    return at;
}

double probe_clock_ns(void)
{
    double least = 1e9;
    for (int i = 0; i < 16; i++) {
        double s = probe_now_ns(), t = probe_now_ns() - s;
        least = t < least ? t : least;
    }
    return least;
}

/* Collective: elapsed[i] is each PE's time for sample i from a common
 * start (symmetric); PE 0 gets the median over samples of the latest PE's,
 * everybody else 0. */
double probe_latest_median(double *elapsed, long samples)
{
    int n = aos_n_pes();
    double result = 0.0;
    PROBE_TRY(aos_barrier_all()); /* every PE's figures are in */
    if (me == 0) {
        double *theirs = malloc((size_t)samples * sizeof *theirs);
        if (theirs == NULL)
            exit(1);
        for (int pe = 1; pe < n; pe++) {
            PROBE_TRY(aos_getmem(pe, theirs, elapsed, (size_t)samples * sizeof *theirs, NULL));
            for (long i = 0; i < samples; i++)
                if (theirs[i] > elapsed[i])
                    elapsed[i] = theirs[i];
        }
        result = probe_median(elapsed, (int)samples);
        free(theirs);
    }
    PROBE_TRY(aos_barrier_all()); /* PE 0 has read them */
    return result;
}

void probe_setup(void)
{
    me = aos_my_pe();
    bigbuf = aos_malloc(PROBE_BIG);
    stamps = aos_malloc(PROBE_SAMPLES * sizeof *stamps);
    pingpong = aos_malloc(PINGPONG_BYTES);
    local = malloc(PROBE_BIG);
    if (bigbuf == NULL || stamps == NULL || pingpong == NULL || local == NULL) {
        fprintf(stderr, "aos-probe: no memory for the measurements\n");
        exit(1);
    }
    memset(bigbuf, me, PROBE_BIG);
    memset(pingpong, 0, PINGPONG_BYTES);
    memset(local, 0, PROBE_BIG);
}

void probe_teardown(void)
{
    free(local);
    aos_free(pingpong);
    aos_free(stamps);
    aos_free(bigbuf);
}

/* L: half the round trip of an 8-byte put answered by a put, the mean
 * over PROBE_PLACES pairs of lines, one round trip on each in turn. One
 * pair gives that pair's latency, which may be a fixed property of its
 * addresses, differing widely from one pair to another
 * (docs/foundation.md). */
double probe_latency(long iters)
{
    double t[PROBE_TRIALS];
    static uint64_t round; /* values keep growing over calls: waits never pass early */
    for (int k = 0; k < PROBE_TRIALS; k++) {
        PROBE_TRY(aos_barrier_all());
        double s = probe_now_ns();
        for (long i = 1; i <= iters; i++) {
            uint64_t v = ++round;
            uint64_t *ping = (uint64_t *)(void *)(pingpong +
                                                  probe_place(i, 2 * PROBE_LINE, PINGPONG_BYTES));
            uint64_t *pong = ping + PROBE_LINE / sizeof *ping;
            if (me == 0) {
                PROBE_TRY(aos_putmem(1, ping, &v, 8, NULL));
                PROBE_TRY(aos_wait_until_u64(pong, AOS_CMP_GE, v));
            } else if (me == 1) {
                PROBE_TRY(aos_wait_until_u64(ping, AOS_CMP_GE, v));
                PROBE_TRY(aos_putmem(0, pong, &v, 8, NULL));
            }
        }
        t[k] = (probe_now_ns() - s) / (double)iters / 2.0;
    }
    return probe_median(t, PROBE_TRIALS);
}

void probe_check_latency(double *L_seen)
{
    if (L_seen == NULL)
        return;
    double L = probe_latency(PROBE_CHECK_ITERS);
    L_seen[0] = L < L_seen[0] ? L : L_seen[0];
    L_seen[1] = L > L_seen[1] ? L : L_seen[1];
}

/* The mean time in an 8-byte put call, iters calls apart (a spin between
 * them: each issued alone), into `target`'s put_word. */
static double put_call_ns(int target, long iters)
{
    double sum = 0;
    uint64_t v = 0;
    for (long i = 0; i < iters; i++) {
        double s = probe_now_ns();
        PROBE_TRY(aos_putmem(target, &put_word, &v, 8, NULL));
        sum += probe_now_ns() - s;
        for (volatile int spin = 0; spin < 200; spin++) {
        }
    }
    return sum / (double)iters;
}

/* o: one 8-byte put issued alone while the other PEs wait; o_together: the
 * same while PE 1 issues its own into PE 0 (a collective's members enter
 * at once: when the host puts our two virtual CPUs on one core, that costs
 * clearly more; apart, the same); g: the time per put in a stream. */
static void measure_overhead(long iters, double *o, double *o_together, double *g)
{
    double to[PROBE_TRIALS], tt[PROBE_TRIALS], tg[PROBE_TRIALS];
    uint64_t v = 0;
    for (int k = 0; k < PROBE_TRIALS; k++) {
        PROBE_TRY(aos_barrier_all());
        to[k] = me == 0 ? put_call_ns(1, iters) : 0.0;
        PROBE_TRY(aos_barrier_all());
        tt[k] = me <= 1 ? put_call_ns(1 - me, iters) : 0.0;
        PROBE_TRY(aos_barrier_all());
        double s = probe_now_ns();
        if (me == 0)
            for (long i = 0; i < iters; i++)
                PROBE_TRY(aos_putmem(1, &put_word, &v, 8, NULL));
        tg[k] = (probe_now_ns() - s) / (double)iters;
    }
    *o = probe_median(to, PROBE_TRIALS);
    *o_together = probe_median(tt, PROBE_TRIALS);
    *g = probe_median(tg, PROBE_TRIALS);
}

/* G: copying from a peer's memory, per byte: gets of `bytes` (a size that
 * fits the cache, then one that does not). */
static double measure_per_byte(size_t bytes)
{
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

/* How fresh data is read: a copy started at a common instant some 40 us
 * after the write (as the collectives --predict times start: a broadcast's
 * child), or as PE 1 leaves a barrier, or as both leave it and each copies
 * the other's (a reduction's phases, where every member copies at once), or
 * folds it into an accumulator (a reduction's folds). */
enum fresh_read { AT_INSTANT, AFTER_SYNC, BOTH_AFTER_SYNC, BOTH_FOLD_AFTER_SYNC };

/* Folds (int64 sums) `bytes` of PE pe's symmetric `at` into `local`,
 * AOS__FOLD_CHUNK at a time, as reductions do. */
static void fold_from(int pe, const char *at, size_t bytes)
{
    void *theirs;
    PROBE_TRY(aos_sym_ptr(at, pe, &theirs));
    for (size_t off = 0; off < bytes; off += AOS__FOLD_CHUNK) {
        size_t len = bytes - off < AOS__FOLD_CHUNK ? bytes - off : AOS__FOLD_CHUNK;
        PROBE_TRY(aos_reduce_local(local, (const char *)theirs + off, len / sizeof(int64_t),
                                   AOS_TYPE_INT64, AOS_OP_SUM));
    }
}

/* The median time of PE 1 copying `bytes` that PE 0 has just written (its
 * cache holds the lines modified; each must come over). The median, not a
 * mean: a copy the scheduler interrupts says nothing about the caches.
 * PE 0 writes as the root aos-probe --predict broadcasts from does (on
 * this machine the two directions are not always alike), and PE 1 copies
 * into the same symmetric buffer, as an in-place broadcast's child does.
 * BOTH_AFTER_SYNC: PE 0 also copies what PE 1 has just written, each into
 * private memory, and a sample lasts until the later is done;
 * BOTH_FOLD_AFTER_SYNC: the same, each folding instead (fold_from). */
static double fresh_copy_ns(size_t bytes, int samples, enum fresh_read how)
{
    int both = how >= BOTH_AFTER_SYNC;
    for (int i = 0; i < samples; i++) {
        /* one line: sample i copies the one at place i (over many lines);
         * a longer copy moves many lines itself */
        char *at = bigbuf + (bytes <= PROBE_LINE ? probe_place(i, bytes, PROBE_BIG) : 0);
        if (me == 0 || (both && me == 1))
            memset(at, i, bytes);
        double start;
        if (how == AT_INSTANT) {
            start = probe_start_together();
        } else {
            PROBE_TRY(aos_barrier_all());
            start = probe_now_ns();
        }
        if (how == BOTH_FOLD_AFTER_SYNC && me <= 1)
            fold_from(1 - me, at, bytes);
        else if (me == 1)
            PROBE_TRY(aos_getmem(0, both ? local : at, at, bytes, NULL));
        else if (me == 0 && both)
            PROBE_TRY(aos_getmem(1, local, at, bytes, NULL));
        stamps[i] = probe_now_ns() - start;
        PROBE_TRY(aos_barrier_all());
    }
    return probe_latest_median(stamps, samples);
}

/* One member's fold in a 2-PE all-reduce by slices of `bytes`, timed from
 * a common start, in the all-reduce's own steps (reduce.c): PE 0 and PE 1
 * have each just written a source of two slices (bigbuf); each folds its
 * slice of the other's into a copy of its own, AOS__FOLD_CHUNK at a time
 * in a buffer on the stack, writing each chunk's result into its slice of
 * dest (the upper half of bigbuf), as fold_range does; then each copies
 * the other's slice of dest, so at the next sample each line of dest must
 * be taken back from the other's cache. A collective call: PE 0 and PE 1
 * get their time, the others 0. */
static double slice_fold_ns(size_t bytes, int value)
{
    char *src = bigbuf, *dest = bigbuf + PROBE_BIG / 2;
    size_t mine = me <= 1 ? (size_t)me * bytes : 0, theirs_at = bytes - mine;
    alignas(64) unsigned char acc[AOS__FOLD_CHUNK];
    double elapsed = 0.0;
    void *theirs = NULL;
    if (me <= 1) {
        memset(src, value, 2 * bytes);
        PROBE_TRY(aos_sym_ptr(src, 1 - me, &theirs));
    }
    double start = probe_start_together(); /* both sources are ready */
    if (me <= 1) {
        for (size_t off = mine; off < mine + bytes; off += AOS__FOLD_CHUNK) {
            size_t len = mine + bytes - off < AOS__FOLD_CHUNK ? mine + bytes - off
                                                               : AOS__FOLD_CHUNK;
            aos__copy(acc, src + off, len);
            PROBE_TRY(aos_reduce_local(acc, (const char *)theirs + off, len / sizeof(int64_t),
                                       AOS_TYPE_INT64, AOS_OP_SUM));
            aos__copy(dest + off, acc, len);
        }
        elapsed = probe_now_ns() - start;
    }
    PROBE_TRY(aos_barrier_all()); /* both slices are folded */
    if (me <= 1)
        PROBE_TRY(aos_getmem(1 - me, dest + theirs_at, dest + theirs_at, bytes, NULL));
    PROBE_TRY(aos_barrier_all()); /* both are done before either writes again */
    return elapsed;
}

/* G_slice_fold: per byte of the slice, the median of the later member's
 * slice_fold_ns, after SLICE_FOLD_WARMUP untimed ones. Measured whole, not
 * as the copy, the fresh fold and the cost of taking dest's lines back,
 * each on its own: those three add up to clearly less than the fold inside
 * aos_allreduce. Warmed up, as a program's all-reduces run over the same
 * buffers again and again: folds over fresh buffers change speed through
 * their first few hundred samples before they settle, and samples timed
 * from the first under-price the all-reduce. */
#define SLICE_FOLD_WARMUP 768 /* fewer leave the large all-reduces under-priced */
static double slice_fold_per_byte(size_t bytes, int samples)
{
    if (bytes > PROBE_BIG / 4)
        bytes = PROBE_BIG / 4; /* two slices of source, two of dest */
    for (int i = 0; i < SLICE_FOLD_WARMUP; i++)
        slice_fold_ns(bytes, i);
    for (int i = 0; i < samples; i++)
        stamps[i] = slice_fold_ns(bytes, i);
    return probe_latest_median(stamps, samples) / (double)bytes;
}

_Static_assert(PROBE_BIG >= AOS__MODEL_OVER_MAX, "the buffer holds the model's largest copy");

/* The largest copy the per-byte costs are measured at: the cache's size
 * (cache_bytes), within the buffer. */
static size_t cache_copy_bytes(const struct aos__model *m)
{
    return m->cache < PROBE_BIG ? (size_t)m->cache : PROBE_BIG;
}

/* Per byte beyond the first line (copied the same way) of fresh copies of
 * each size, started as `how` says (fresh_copy_ns). */
static void fresh_per_byte(double *const G[4], const size_t sizes[4], int samples,
                           enum fresh_read how)
{
    double first = fresh_copy_ns(PROBE_LINE, samples, how);
    for (int i = 0; i < 4; i++) {
        double t = fresh_copy_ns(sizes[i], samples, how) - first;
        *G[i] = (t > 0 ? t : 0) / (double)(sizes[i] - PROBE_LINE);
    }
}

/* line_fresh: such a copy of one line right after a sync (less a clock
 * reading), as a broadcast's child makes once its parent's signal has come
 * over. It is timed as an aos_getmem, call included: the call's cost
 * stands in for the steps around a collective's copy, which the model has
 * no term for, where a bare load (through aos_sym_ptr) can cost next to
 * nothing when our two virtual CPUs share a cache and then under-prices
 * small collectives. Per byte beyond it, at each size:
 * G_dirty for copies started at a common instant, as a broadcast's child
 * starts; G_synced for copies both PEs start right after a sync, as a
 * reduction's gather does (when the host runs our two CPUs on one core, two
 * copies at once take far longer than one; apart, about as long);
 * G_fold for folds both PEs start so, as a reduction's folds of a third
 * member's source do; G_slice_fold for a 2-PE all-reduce's whole fold
 * (slice_fold_per_byte). Most of the time the first two agree; at times
 * (docs/foundation.md has our guess why) the first run much faster while
 * the second do not, and so do the collectives that make them. The cost
 * per byte of fresh lines also depends on the size (how far the
 * prefetchers get, which of the writer's caches holds them). */
static void measure_fresh(struct aos__model *m, int samples, double *L_seen)
{
    const size_t sizes[4] = {4u << 10, 32u << 10, PROBE_CHUNK, cache_copy_bytes(m)};
    double *const dirty[4] = {&m->G_dirty_small, &m->G_dirty, &m->G_dirty_big,
                              &m->G_dirty_huge};
    double *const synced[4] = {&m->G_synced_small, &m->G_synced, &m->G_synced_big,
                               &m->G_synced_huge};
    double *const folded[4] = {&m->G_fold_small, &m->G_fold, &m->G_fold_big, &m->G_fold_huge};
    double line = fresh_copy_ns(PROBE_LINE, samples, AFTER_SYNC);
    double clock_ns = probe_clock_ns();
    m->line_fresh = line > clock_ns ? line - clock_ns : 0;
    fresh_per_byte(dirty, sizes, samples, AT_INSTANT);
    probe_check_latency(L_seen);
    fresh_per_byte(synced, sizes, samples, BOTH_AFTER_SYNC);
    probe_check_latency(L_seen);
    fresh_per_byte(folded, sizes, samples, BOTH_FOLD_AFTER_SYNC);
    probe_check_latency(L_seen);
    const size_t slice_sizes[5] = {sizes[0], sizes[1], 128u << 10, sizes[2], sizes[3]};
    double *const slice_folds[5] = {&m->G_slice_fold_small, &m->G_slice_fold,
                                    &m->G_slice_fold_mid, &m->G_slice_fold_big,
                                    &m->G_slice_fold_huge};
    for (int i = 0; i < 5; i++)
        *slice_folds[i] = slice_fold_per_byte(slice_sizes[i], samples);
}

/* The cooperative copy a broadcast parent and its leaf run (broadcast.c):
 * PE 0 has just written `bytes`; PE 1 reads the first half while PE 0
 * writes the second half into PE 1's buffer. Per byte each side moves,
 * from their common start until the later of the two finishes. (The other
 * way round, PE 1 writing, need not cost the same: PE 0 is the root
 * aos-probe --predict broadcasts from.) */
static double coop_copy(size_t bytes, int samples)
{
    size_t half = bytes / 2;
    for (int i = 0; i < samples; i++) {
        if (me == 0)
            memset(bigbuf, i, bytes);
        double start = probe_start_together();
        if (me == 1)
            PROBE_TRY(aos_getmem(0, bigbuf, bigbuf, half, NULL));
        else if (me == 0)
            PROBE_TRY(aos_putmem(1, bigbuf + half, bigbuf + half, bytes - half, NULL));
        stamps[i] = probe_now_ns() - start;
        PROBE_TRY(aos_barrier_all());
    }
    return probe_latest_median(stamps, samples) / (double)half;
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
    uint64_t v = 0;
    for (int k = 0; k < PROBE_TRIALS; k++) {
        double a = 0, b = 0;
        PROBE_TRY(aos_barrier_all());
        if (me == 0)
            for (long i = 0; i < iters; i++) {
                double s = probe_now_ns();
                PROBE_TRY(aos_putmem(1, &put_word, &v, 8, ev));
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

void probe_measure(struct aos__model *m, int effort, int contention, double *L_seen)
{
    long iters = effort == PROBE_FULL ? 20000 : effort == PROBE_QUICK ? 2000 : 4000;
    int samples = effort == PROBE_FULL ? PROBE_SAMPLES : effort == PROBE_QUICK ? 64 : 192;
    m->L = probe_latency(iters);
    if (L_seen != NULL)
        L_seen[0] = L_seen[1] = m->L;
    measure_overhead(iters, &m->o, &m->o_together, &m->g);
    m->cache = cache_bytes();
    m->G = measure_per_byte(PROBE_CHUNK);
    m->G_big = measure_per_byte(PROBE_BIG);
    probe_check_latency(L_seen);
    measure_fresh(m, samples, L_seen);
    probe_check_latency(L_seen);
    m->G_coop = coop_copy(PROBE_CHUNK, samples);
    m->G_coop_huge = coop_copy(cache_copy_bytes(m), samples);
    m->G_coop_over = coop_copy((size_t)aos__model_over_cache(m), samples);
    probe_check_latency(L_seen);
    if (contention)
        probe_contention(effort == PROBE_QUICK, &m->c, &m->b);
    measure_put(iters, m->L, m);
    probe_check_latency(L_seen);
    probe_measure_net(m, effort);
    PROBE_TRY(aos_barrier_all());
    /* PE 0's figures are the model: everyone uses them. */
    struct aos__model *shared = aos_malloc(sizeof *shared);
    if (shared == NULL)
        exit(1);
    *shared = *m;
    PROBE_TRY(aos_broadcast(aos_team_world(), shared, shared, sizeof *m, 0));
    *m = *shared;
    m->from_file = 1;
    aos_free(shared);
}
