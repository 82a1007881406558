/* RPC progress: who runs handlers, and callers that must not hang.
 *
 * PE 0 computes without calling aos until every other PE says it is done.
 *  - With AOS_PROGRESS_THREAD=1 the other PEs make blocking calls meanwhile;
 *    PE 0's progress thread serves them (each handler also puts a token back
 *    into the caller's memory, from the progress thread), and PE 0 finds the
 *    exact count when it looks. Without the thread this phase would hang.
 *  - Without it, the other PEs make 40 calls with events each (PE 0's queue
 *    holds 8, so most wait in the callers' pending lists): issuing never waits, aos_event_test says not done,
 *    aos_event_wait_timed times out; once PE 0 progresses (in the barrier)
 *    every reply arrives, exact and in order.
 * Then PE 0 only issues atomics and blocking puts, never waiting: those
 * serve too, so the others' 50 blocking calls each complete. */
#include <stdlib.h>
#include <string.h>

#include "../common/check.h"

#define CALLS 100
#define STALLED_CALLS 40 /* fewer than a caller's 64 records: a blocking call still goes */

static uint64_t counter;          /* at PE 0: added to by handlers */
static uint64_t callers_done;     /* at PE 0: PEs finished with phase 1 */
static uint64_t pe0_computing;    /* at callers: PE 0 has stopped calling aos */
static uint64_t busy_done;        /* at PE 0: PEs finished with the busy phase */
static uint64_t busy_word;        /* at PE 0: its own atomics while it never waits */
static uint64_t busy_copy;        /* at PE 0: its own blocking puts */
static uint64_t tokens[CALLS];    /* at callers: handler tokens, by call index */
static aos_rpc_id_t id_count, id_square;

/* args: {caller's call index}; counter += 1; puts index + 1 into
 * tokens[index] at the caller; reply: the counter before. */
static size_t count(const aos_rpc_info_t *info, const void *args, size_t len, void *reply,
                    size_t cap)
{
    uint64_t i;
    CHECK(len == sizeof i);
    memcpy(&i, args, sizeof i);
    uint64_t old = __atomic_fetch_add(&counter, 1, __ATOMIC_RELAXED); /* main thread reads it */
    uint64_t token = i + 1;
    CHECK_OK(aos_putmem(info->caller, &tokens[i], &token, sizeof token, NULL));
    memcpy(reply, &old, cap < sizeof old ? cap : sizeof old);
    return sizeof old;
}

/* reply = args (a uint64) squared */
static size_t square(const aos_rpc_info_t *info, const void *args, size_t len, void *reply,
                     size_t cap)
{
    (void)info;
    uint64_t v;
    CHECK(len == sizeof v && cap >= sizeof v);
    memcpy(&v, args, sizeof v);
    v *= v;
    memcpy(reply, &v, sizeof v);
    return sizeof v;
}

/* Tells the callers, then computes (no aos calls) until every other PE has
 * finished its phase. Puts with an event do not look for RPCs (blocking puts
 * and atomics would serve the first callers' requests here); the callers
 * notice them within AOS_SLEEP_US at worst. */
static void compute_until_callers_done(void)
{
    int others = aos_n_pes() - 1;
    static const uint64_t one = 1;
    aos_event_t *ev;
    CHECK_OK(aos_event_create(&ev));
    for (int pe = 1; pe <= others; pe++)
        CHECK_OK(aos_putmem(pe, &pe0_computing, &one, sizeof one, ev));
    volatile double x = 1.0;
    while (__atomic_load_n(&callers_done, __ATOMIC_ACQUIRE) != (uint64_t)others)
        for (int k = 0; k < 1000; k++)
            x = x * 1.0000001 + 1e-9;
    CHECK_OK(aos_event_wait(ev));
    CHECK_OK(aos_event_destroy(ev));
}

static void threaded_phase(int me, int npes)
{
    if (me == 0) {
        compute_until_callers_done();
        CHECK(__atomic_load_n(&counter, __ATOMIC_RELAXED) == (uint64_t)(npes - 1) * CALLS);
        return;
    }
    CHECK_OK(aos_wait_until_u64(&pe0_computing, AOS_CMP_EQ, 1));
    for (uint64_t i = 0; i < CALLS; i++) {
        uint64_t old = UINT64_MAX;
        size_t got = 0;
        CHECK_OK(aos_rpc(0, id_count, &i, sizeof i, &old, sizeof old, &got, NULL));
        CHECK(got == sizeof old && old < (uint64_t)(npes - 1) * CALLS);
        /* the handler's put completed before its reply */
        CHECK(__atomic_load_n(&tokens[i], __ATOMIC_RELAXED) == i + 1);
    }
    /* Calls with events complete without PE 0 doing anything either. */
    aos_event_t *ev;
    CHECK_OK(aos_event_create(&ev));
    uint64_t in[CALLS], out[CALLS];
    size_t lens[CALLS];
    for (uint64_t i = 0; i < CALLS; i++) {
        in[i] = i + (uint64_t)me;
        CHECK_OK(aos_rpc(0, id_square, &in[i], sizeof in[i], &out[i], sizeof out[i], &lens[i], ev));
    }
    CHECK_OK(aos_event_wait_timed(ev, 60ull * 1000000000ull));
    for (int i = 0; i < CALLS; i++)
        CHECK(lens[i] == sizeof out[i] && out[i] == in[i] * in[i]);
    CHECK_OK(aos_event_destroy(ev));
    CHECK_OK(aos_amo_post_sym(0, &callers_done, AOS_AMO_ADD, AOS_AMO_U64, 1));
}

static void stalled_phase(int me)
{
    if (me == 0) {
        compute_until_callers_done();
        CHECK(counter == 0); /* nobody ran a handler here */
        return;
    }
    CHECK_OK(aos_wait_until_u64(&pe0_computing, AOS_CMP_EQ, 1));
    aos_event_t *ev;
    CHECK_OK(aos_event_create(&ev));
    uint64_t in[STALLED_CALLS], out[STALLED_CALLS];
    size_t lens[STALLED_CALLS];
    for (uint64_t i = 0; i < STALLED_CALLS; i++) {
        in[i] = i * 3 + (uint64_t)me;
        out[i] = 0;
        CHECK_OK(aos_rpc(0, id_square, &in[i], sizeof in[i], &out[i], sizeof out[i], &lens[i], ev));
    }
    int done = 1;
    CHECK_OK(aos_event_test(ev, &done));
    CHECK(done == 0);
    CHECK_RC(aos_event_wait_timed(ev, 20ull * 1000000ull), AOS_ERR_TIMEOUT);
    CHECK_OK(aos_event_test(ev, &done));
    CHECK(done == 0);
    /* A blocking call with an event call still pending to the same PE
     * would wait; to another PE it goes at once. */
    if (aos_n_pes() > 2) {
        int other = me == 1 ? 2 : 1;
        uint64_t v = 7, sq = 0;
        size_t got;
        CHECK_OK(aos_rpc(other, id_square, &v, sizeof v, &sq, sizeof sq, &got, NULL));
        CHECK(sq == 49);
    }
    CHECK_OK(aos_amo_post_sym(0, &callers_done, AOS_AMO_ADD, AOS_AMO_U64, 1));
    CHECK_OK(aos_event_wait(ev)); /* PE 0 serves from its barrier */
    for (int i = 0; i < STALLED_CALLS; i++)
        CHECK(lens[i] == sizeof out[i] && out[i] == in[i] * in[i]);
    CHECK_OK(aos_event_destroy(ev));
}

/* PE 0 never waits or tests, but issues atomics (and blocking puts to
 * itself): those look for RPCs too, so the others' blocking calls run. */
static void busy_phase(int me, int npes)
{
    if (me == 0) {
        uint64_t v = 0;
        while (__atomic_load_n(&busy_done, __ATOMIC_ACQUIRE) != (uint64_t)(npes - 1)) {
            CHECK_OK(aos_amo_post_sym(0, &busy_word, AOS_AMO_ADD, AOS_AMO_U64, 1));
            v++;
            CHECK_OK(aos_putmem(0, &busy_copy, &v, sizeof v, NULL));
        }
        return;
    }
    for (uint64_t i = 0; i < 50; i++) {
        uint64_t v = i + (uint64_t)me * 1000, sq = 0;
        size_t got = 0;
        CHECK_OK(aos_rpc(0, id_square, &v, sizeof v, &sq, sizeof sq, &got, NULL));
        CHECK(got == sizeof sq && sq == v * v);
    }
    CHECK_OK(aos_amo_post_sym(0, &busy_done, AOS_AMO_ADD, AOS_AMO_U64, 1));
}

int main(void)
{
    setenv("AOS_RPC_QUEUE_DEPTH", "8", 1);
    CHECK_OK(aos_init());
    int me = aos_my_pe(), npes = aos_n_pes();
    CHECK_OK(aos_rpc_register("count", count, 0, &id_count));
    CHECK_OK(aos_rpc_register("square", square, 0, &id_square));
    CHECK_OK(aos_barrier_all());
    CHECK_RC(aos_event_wait_timed(NULL, 1000), AOS_ERR_NULL);
    aos_event_t *idle;
    CHECK_OK(aos_event_create(&idle));
    CHECK_OK(aos_event_wait_timed(idle, 0)); /* nothing attached: complete at once */
    CHECK_OK(aos_event_destroy(idle));
    const char *pt = getenv("AOS_PROGRESS_THREAD");
    int threaded = pt != NULL && strcmp(pt, "1") == 0;
    if (npes > 1) {
        if (threaded)
            threaded_phase(me, npes);
        else
            stalled_phase(me);
    }
    CHECK_OK(aos_barrier_all());
    if (npes > 1)
        busy_phase(me, npes);
    CHECK_OK(aos_barrier_all());
    aos_rpc_stats_t st;
    CHECK_OK(aos_rpc_stats(&st));
    if (me == 0 && npes > 1)
        CHECK(st.served == (uint64_t)(npes - 1) * ((threaded ? 2 * CALLS : STALLED_CALLS) + 50));
    CHECK_OK(aos_finalize());
    return 0;
}
