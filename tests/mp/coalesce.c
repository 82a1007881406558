/* Small puts with events and posted atomics to one peer, which the network
 * transport sends several to a message where one ordered stream carries
 * them (AOS_NET_COALESCE), must land exactly as if sent one by one:
 *  1. a stream of 8-byte puts many times larger than one message, with
 *     posted adds among them, then an atomic without a fence: the receiver,
 *     woken by it, finds every put;
 *  2. puts of sizes on both sides of the largest one coalesced, each
 *     complete when its event is;
 *  3. a fence between two puts to one word: the later value stays;
 *  4. threads streaming puts and posted adds to one peer at once: exact
 *     data and an exact counter;
 *  5. a PE that posts an atomic and then spins on its own memory without
 *     calling aos: the atomic still arrives (sent by the progress thread);
 *  6. a strided block put of many small runs.
 * Every PE sends to its right neighbour, so at mixed layouts some pairs are
 * on one node and some not. */
#include <sched.h>
#include <string.h>

#include "../common/check.h"
#include "../common/threads.h"

#ifndef AOS_TEST_BIG_MIB
#define STREAM 20000
#else
#define STREAM 4000 /* sanitized builds run 5-20x slower */
#endif
#define SIZES_BYTES (64u * 1024)
#define THREADS 4
#define THREAD_PUTS 3000
#define ROWS 500

static int me, n, right, left;
static uint64_t *stream;   /* [STREAM]: from the left */
static uint64_t *counter;  /* posted adds from the left */
static uint64_t *arrived;  /* the left's atomic after its stream */
static uint8_t *sizes;     /* [SIZES_BYTES] */
static uint64_t *word;     /* fenced overwrites */
static uint64_t *threaded; /* [THREADS][THREAD_PUTS] */
static uint64_t *flag;     /* part 5 */
static uint32_t *rows;     /* [ROWS * 3]: every third word from the left */

static uint64_t value_of(int from, uint64_t i)
{
    return (uint64_t)(from + 1) << 48 | i;
}

static void stream_then_atomic(void)
{
    aos_event_t *ev;
    CHECK_OK(aos_event_create(&ev));
    uint64_t adds = 0;
    for (uint64_t i = 0; i < STREAM; i++) {
        uint64_t v = value_of(me, i);
        CHECK_OK(aos_putmem(right, &stream[i], &v, sizeof v, ev));
        if (i % 7 == 0) {
            CHECK_OK(aos_amo_post_sym(right, counter, AOS_AMO_ADD, AOS_AMO_U64, 3));
            adds += 3;
        }
    }
    /* No fence: an atomic is applied after this PE's earlier puts and
     * posted atomics, a fetching one (issued on its own) as well as a
     * posted one (coalesced behind them). */
    uint64_t old;
    CHECK_OK(aos_amo_fetch_sym(right, arrived, AOS_AMO_ADD, AOS_AMO_U64, 1, 0, &old, NULL));
    CHECK(old == 0);
    CHECK_OK(aos_wait_until_u64(arrived, AOS_CMP_GE, 1));
    for (uint64_t i = 0; i < STREAM; i++)
        CHECK(stream[i] == value_of(left, i));
    CHECK_OK(aos_barrier_all());
    for (uint64_t i = 0; i < STREAM; i++) {
        uint64_t v = value_of(me, i + 1);
        CHECK_OK(aos_putmem(right, &stream[i], &v, sizeof v, ev));
    }
    CHECK_OK(aos_amo_post_sym(right, arrived, AOS_AMO_ADD, AOS_AMO_U64, 1));
    CHECK_OK(aos_wait_until_u64(arrived, AOS_CMP_GE, 2));
    for (uint64_t i = 0; i < STREAM; i++)
        CHECK(stream[i] == value_of(left, i + 1));
    CHECK_OK(aos_event_wait(ev));
    CHECK_OK(aos_quiet());
    CHECK_OK(aos_barrier_all());
    CHECK(*counter == adds); /* the left sent as many as I did */
    CHECK_OK(aos_event_destroy(ev));
}

static void sizes_then_events(void)
{
    static const size_t lens[] = {1, 7, 8, 9, 100, 4095, 4096, 4097, 8192, 12000};
    uint8_t *src = malloc(SIZES_BYTES);
    CHECK(src != NULL);
    pattern_fill(src, SIZES_BYTES, (unsigned)me + 11);
    aos_event_t *ev;
    CHECK_OK(aos_event_create(&ev));
    size_t at = 0;
    for (int round = 0; round < 3; round++)
        for (size_t k = 0; k < sizeof lens / sizeof *lens; k++) {
            if (at + lens[k] > SIZES_BYTES)
                at = 0;
            CHECK_OK(aos_putmem(right, sizes + at, src + at, lens[k], ev));
            at += lens[k] + 3;
        }
    CHECK_OK(aos_event_wait(ev)); /* complete: visible at the right */
    CHECK_OK(aos_barrier_all());
    size_t bad = pattern_check(sizes, at, (unsigned)left + 11);
    if (bad != at)
        fprintf(stderr, "PE %d: byte %zu of %zu differs\n", me, bad, at);
    CHECK(bad == at);
    CHECK_OK(aos_barrier_all());
    CHECK_OK(aos_event_destroy(ev));
    free(src);
}

static void fenced_overwrite(void)
{
    aos_event_t *ev;
    CHECK_OK(aos_event_create(&ev));
    for (uint64_t v = 1; v <= 200; v++) {
        CHECK_OK(aos_putmem(right, word, &v, sizeof v, ev));
        CHECK_OK(aos_fence(right));
    }
    CHECK_OK(aos_quiet());
    CHECK_OK(aos_barrier_all());
    CHECK(*word == 200);
    CHECK_OK(aos_barrier_all());
    CHECK_OK(aos_event_destroy(ev));
}

static void *thread_stream(void *arg)
{
    int t = (int)(intptr_t)arg;
    aos_event_t *ev;
    CHECK_OK(aos_event_create(&ev));
    for (uint64_t i = 0; i < THREAD_PUTS; i++) {
        uint64_t v = value_of(me, (uint64_t)t << 20 | i);
        CHECK_OK(aos_putmem(right, &threaded[(size_t)t * THREAD_PUTS + i], &v, sizeof v, ev));
        CHECK_OK(aos_amo_post_sym(right, counter, AOS_AMO_ADD, AOS_AMO_U64, 1));
    }
    CHECK_OK(aos_event_wait(ev));
    CHECK_OK(aos_event_destroy(ev));
    return NULL;
}

static void threads_at_once(void)
{
    *counter = 0;
    CHECK_OK(aos_barrier_all());
    test_run_threads(THREADS, thread_stream);
    CHECK_OK(aos_quiet()); /* the posted adds */
    CHECK_OK(aos_barrier_all());
    CHECK(*counter == (uint64_t)THREADS * THREAD_PUTS);
    for (int t = 0; t < THREADS; t++)
        for (uint64_t i = 0; i < THREAD_PUTS; i++)
            CHECK(threaded[(size_t)t * THREAD_PUTS + i] == value_of(left, (uint64_t)t << 20 | i));
    CHECK_OK(aos_barrier_all());
}

/* Posts to the right, then spins on a plain load of my own flag, which
 * the left sets only after its own post has arrived at me: each PE's post
 * must leave while it spins. */
static void post_then_spin(void)
{
    *flag = 0;
    CHECK_OK(aos_barrier_all());
    if (n > 1) {
        CHECK_OK(aos_amo_post_sym(right, flag, AOS_AMO_OR, AOS_AMO_U64, 1));
        while (__atomic_load_n(flag, __ATOMIC_ACQUIRE) == 0)
            sched_yield(); /* the CPU for the progress threads, no aos call */
    }
    CHECK_OK(aos_barrier_all());
}

static void strided_rows(void)
{
    uint32_t src[ROWS];
    for (int i = 0; i < ROWS; i++)
        src[i] = (uint32_t)value_of(me, (uint64_t)i);
    memset(rows, 0, ROWS * 3 * sizeof *rows);
    CHECK_OK(aos_barrier_all());
    aos_block_t b = {.run = sizeof *src,
                     .count = {ROWS, 1},
                     .local_stride = {sizeof *src, 0},
                     .remote_stride = {3 * sizeof *src, 0}};
    aos_event_t *ev;
    CHECK_OK(aos_event_create(&ev));
    CHECK_OK(aos_putmem_block(right, rows, src, &b, ev));
    CHECK_OK(aos_event_wait(ev));
    CHECK_OK(aos_barrier_all());
    for (int i = 0; i < ROWS; i++) {
        CHECK(rows[3 * i] == (uint32_t)value_of(left, (uint64_t)i));
        CHECK(rows[3 * i + 1] == 0 && rows[3 * i + 2] == 0);
    }
    CHECK_OK(aos_barrier_all());
    CHECK_OK(aos_event_destroy(ev));
}

int main(void)
{
    CHECK_OK(aos_init());
    me = aos_my_pe();
    n = aos_n_pes();
    right = (me + 1) % n;
    left = (me + n - 1) % n;
    stream = aos_calloc(STREAM, sizeof *stream);
    counter = aos_calloc(1, sizeof *counter);
    arrived = aos_calloc(1, sizeof *arrived);
    sizes = aos_calloc(SIZES_BYTES, 1);
    word = aos_calloc(1, sizeof *word);
    threaded = aos_calloc((size_t)THREADS * THREAD_PUTS, sizeof *threaded);
    flag = aos_calloc(1, sizeof *flag);
    rows = aos_calloc(ROWS * 3, sizeof *rows);
    CHECK(stream && counter && arrived && sizes && word && threaded && flag && rows);
    stream_then_atomic();
    sizes_then_events();
    fenced_overwrite();
    threads_at_once();
    post_then_spin();
    strided_rows();
    CHECK_OK(aos_finalize());
    return 0;
}
