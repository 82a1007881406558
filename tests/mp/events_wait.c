/* Events shared by many operations, wait/test/wait_all/wait_any/count, and
 * wait_until/test on local words with every comparison and width, woken by
 * puts from other PEs (also when the waiter has gone to sleep). An event's
 * puts complete while the program only tests words, and while it streams
 * puts without waiting. */
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "../common/check.h"

static uint64_t word64;
static uint32_t word32;
static int64_t sword64;
static int32_t sword32;

int main(void)
{
    CHECK_OK(aos_init());
    int me = aos_my_pe(), n = aos_n_pes();
    int right = (me + 1) % n, left = (me + n - 1) % n;

    /* --- events --------------------------------------------------------- */
    aos_event_t *evs[3];
    for (int i = 0; i < 3; i++)
        CHECK_OK(aos_event_create(&evs[i]));
    int done = -1;
    CHECK_OK(aos_event_test(evs[0], &done));
    CHECK(done == 1); /* nothing attached: complete */
    uint64_t *dst = aos_calloc(1000, sizeof(uint64_t));
    uint64_t src[1000];
    for (int i = 0; i < 1000; i++)
        src[i] = (uint64_t)me << 32 | (uint64_t)i;
    for (int i = 0; i < 1000; i++) /* 1000 puts share one event */
        CHECK_OK(aos_putmem(right, &dst[i], &src[i], sizeof src[i], evs[i % 2]));
    CHECK_OK(aos_event_wait_all(evs, 2));
    uint64_t c0, c1;
    CHECK_OK(aos_event_count(evs[0], &c0));
    CHECK_OK(aos_event_count(evs[1], &c1));
    CHECK(c0 == 500 && c1 == 500);
    size_t idx = 99;
    CHECK_OK(aos_event_wait_any(evs, 3, &idx));
    CHECK(idx == 0); /* all complete: the first */
    CHECK_OK(aos_barrier_all());
    for (int i = 0; i < 1000; i++)
        CHECK(dst[i] == ((uint64_t)left << 32 | (uint64_t)i));
    CHECK_RC(aos_event_wait_any(evs, 0, &idx), AOS_ERR_INVALID);
    CHECK_RC(aos_event_wait_any(evs, 3, NULL), AOS_ERR_NULL);
    CHECK_RC(aos_event_wait(NULL), AOS_ERR_NULL);
    CHECK_RC(aos_event_test(evs[0], NULL), AOS_ERR_NULL);
    CHECK_RC(aos_event_create(NULL), AOS_ERR_NULL);

    /* --- wait_until: every comparison, both widths, signed and unsigned --- */
    for (int round = 1; round <= 20; round++) {
        /* The left neighbour sets my words to `round`; I wait for it. */
        if (round % 4 == 0 && me % 2 == 0)
            usleep(20000); /* make the other side sleep in the kernel */
        uint64_t v64 = (uint64_t)round;
        uint32_t v32 = (uint32_t)round;
        int64_t s64 = -round;
        int32_t s32 = -round;
        CHECK_OK(aos_putmem(right, &word64, &v64, sizeof v64, NULL));
        CHECK_OK(aos_putmem(right, &word32, &v32, sizeof v32, NULL));
        CHECK_OK(aos_putmem(right, &sword64, &s64, sizeof s64, NULL));
        CHECK_OK(aos_putmem(right, &sword32, &s32, sizeof s32, NULL));
        CHECK_OK(aos_wait_until_u64(&word64, AOS_CMP_GE, v64));
        CHECK_OK(aos_wait_until_u32(&word32, AOS_CMP_EQ, v32));
        CHECK_OK(aos_wait_until_i64(&sword64, AOS_CMP_LE, s64));
        CHECK_OK(aos_wait_until_i32(&sword32, AOS_CMP_LT, s64 == -1 ? 0 : s32 + 1));
        CHECK_OK(aos_wait_until_u64(&word64, AOS_CMP_GT, v64 - 1));
        CHECK_OK(aos_wait_until_u64(&word64, AOS_CMP_NE, v64 + 1));
        int met = -1;
        CHECK_OK(aos_test_u64(&word64, AOS_CMP_EQ, v64, &met));
        CHECK(met == 1);
        CHECK_OK(aos_test_u32(&word32, AOS_CMP_GT, v32, &met));
        CHECK(met == 0);
        CHECK_OK(aos_barrier_all()); /* nobody moves to round+1 early */
    }
    /* signed comparison really is signed */
    int met = -1;
    sword64 = -5;
    CHECK_OK(aos_wait_until_i64(&sword64, AOS_CMP_LT, 0));
    CHECK_OK(aos_test_u64((uint64_t *)&sword64, AOS_CMP_GT, 0, &met));
    CHECK(met == 1);

    /* A condition that never holds times out. */
    uint64_t never = 0;
    CHECK_RC(aos_wait_until_timed_u64(&never, AOS_CMP_EQ, 1, 30 * 1000 * 1000),
             AOS_ERR_TIMEOUT);
    /* Bad arguments. */
    CHECK_RC(aos_wait_until_u64(NULL, AOS_CMP_EQ, 0), AOS_ERR_NULL);
    CHECK_RC(aos_wait_until_u64((uint64_t *)((char *)&never + 1), AOS_CMP_EQ, 0),
             AOS_ERR_ALIGN);
    CHECK_RC(aos_wait_until_u32((uint32_t *)((char *)&word32 + 2), AOS_CMP_EQ, 0),
             AOS_ERR_ALIGN);
    CHECK_RC(aos_wait_until_u64(&never, (aos_cmp_t)42, 0), AOS_ERR_INVALID);
    CHECK_RC(aos_test_u64(&never, AOS_CMP_EQ, 0, NULL), AOS_ERR_NULL);

    /* A network transport may leave the completion of an event's puts to a
     * later flush while the program waits only for words, but not for
     * long: here the program drives progress all the time (so no progress
     * thread stands in) and never waits for the event. The put rewrites
     * the value dst[0] already holds. */
    aos_event_t *lazy;
    CHECK_OK(aos_event_create(&lazy));
    CHECK_OK(aos_putmem(right, &dst[0], &src[0], sizeof src[0], lazy));
    struct timespec t0, t;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    uint64_t count = 0;
    for (;;) {
        CHECK_OK(aos_test_u64(&never, AOS_CMP_EQ, 1, &met));
        CHECK(met == 0);
        CHECK_OK(aos_event_count(lazy, &count));
        if (count == 1)
            break;
        clock_gettime(CLOCK_MONOTONIC, &t);
        CHECK(t.tv_sec - t0.tv_sec < 10); /* never completed: a hang in a real program */
    }
    CHECK_OK(aos_event_destroy(lazy));

    /* A stream of puts with one event that nothing waits for completes as
     * it goes (a network transport flushes every so many), so that its
     * bookkeeping does not grow with the stream: at least 1024 complete
     * while it streams, however long the flushes' round trips take here. */
    CHECK_OK(aos_event_create(&lazy));
    uint64_t posted = 0;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    do {
        for (int i = 0; i < 1000; i++, posted++)
            CHECK_OK(aos_putmem(right, &dst[0], &src[0], sizeof src[0], lazy));
        CHECK_OK(aos_event_count(lazy, &count));
        clock_gettime(CLOCK_MONOTONIC, &t);
        CHECK(t.tv_sec - t0.tv_sec < 10); /* never completed while streaming */
    } while (count < 1024);
    CHECK_OK(aos_event_wait(lazy));
    CHECK_OK(aos_event_count(lazy, &count));
    CHECK(count == posted);
    CHECK_OK(aos_event_destroy(lazy));

    CHECK_OK(aos_barrier_all());
    aos_free(dst);
    for (int i = 0; i < 3; i++)
        CHECK_OK(aos_event_destroy(evs[i]));
    CHECK_OK(aos_finalize());
    return 0;
}
