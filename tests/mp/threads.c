/* Threads: every call from any thread (the documented thread level).
 *
 * THREADS threads per PE, none of them the one that called aos_init, each run
 * one loop that interleaves, per iteration:
 *  - to the next PEs in turn: a put, a fetch-add and a posted add with the
 *    thread's own event (blocking posted add), and every BATCH iterations a
 *    wait and gets of what it put, compared;
 *  - the queue: threads 0-3 consume the queue of this PE (blocking, try,
 *    asynchronous with an event waited on, asynchronous with an event tested
 *    under aos_progress), threads 4-7 produce into the next PE's queue
 *    (blocking; try, calling aos_progress when full);
 *  - a notified put to the next PE with the thread's number as the tag;
 *  - every RPC_EVERY iterations an RPC to the next PEs in turn: blocking,
 *    with an event, or posted.
 * Then each thread waits for its notifications from the previous PE and
 * checks their data. After the threads join, every PE checks the exact
 * counts of atomics, RPCs, the puts' data, and that each queue item came
 * exactly once and in order per producer.
 *
 * An argument limits the run to one kind of operation: rma, queue, notify
 * or rpc (default: all at once). */
#include <sched.h>
#include <string.h>

#include "../common/check.h"
#include "../common/threads.h"

#define THREADS 8
#define MAXPES 16
#define CONSUMERS 4
#ifdef AOS_TEST_BIG_MIB /* sanitized builds are several times slower */
#define OPS 1000
#else
#define OPS 2000
#endif
#define BATCH 50
#define QOPS OPS   /* queue items per producer thread, and per consumer */
#define NOPS 300   /* notified puts per thread */
#define RPC_EVERY 4
#define ASYNC 4    /* asynchronous dequeues in flight per consumer */
#define QKEY 0x7451u
#define NKEY 0x7452u

struct item {
    uint32_t src, thread;
    uint64_t seq;
};

static uint64_t rma_in[MAXPES][THREADS][OPS]; /* [source][thread][i], symmetric */
static uint64_t fetch_counter, post_counter, rpc_counter;
static aos_rpc_id_t id_triple;
static int me, npes, do_rma = 1, do_queue = 1, do_notify = 1, do_rpc = 1;
static aos_queue_t *my_queue, *next_queue;
static aos_seg_t *my_nseg, *next_nseg;
static uint32_t seen[THREADS][QOPS]; /* items of the previous PE's producers */

static uint64_t encode(int pe, int t, int i)
{
    return ((uint64_t)pe << 48 | (uint64_t)t << 32 | (uint64_t)i) + 1;
}

static int target_of(int i)
{
    return (me + 1 + i) % npes;
}

/* args: a uint64 x; counts the call; reply: 3x */
static size_t triple(const aos_rpc_info_t *info, const void *args, size_t len, void *reply,
                     size_t cap)
{
    (void)info;
    uint64_t x;
    CHECK(len == sizeof x);
    memcpy(&x, args, sizeof x);
    __atomic_fetch_add(&rpc_counter, 1, __ATOMIC_RELAXED); /* threads and handlers race */
    x *= 3;
    if (cap >= sizeof x)
        memcpy(reply, &x, sizeof x);
    return sizeof x;
}

struct rma_state {
    aos_event_t *ev;
    uint64_t vals[BATCH], got[BATCH], old[BATCH];
    uint64_t last_old[MAXPES];
};

static void rma_step(struct rma_state *s, int t, int i)
{
    int pe = target_of(i), k = i % BATCH;
    s->vals[k] = encode(me, t, i);
    CHECK_OK(aos_putmem(pe, &rma_in[me][t][i], &s->vals[k], sizeof s->vals[k], s->ev));
    CHECK_OK(aos_amo_fetch_sym(pe, &fetch_counter, AOS_AMO_ADD, AOS_AMO_U64, 1, 0,
                               &s->old[k], s->ev));
    CHECK_OK(aos_amo_post_sym(pe, &post_counter, AOS_AMO_ADD, AOS_AMO_U64, 1));
    if (k != BATCH - 1)
        return;
    CHECK_OK(aos_event_wait(s->ev));
    int first = i + 1 - BATCH;
    for (int j = 0; j < BATCH; j++) {
        int p = target_of(first + j);
        /* This thread's fetch-adds to one PE see its own earlier ones. */
        CHECK(s->old[j] >= s->last_old[p]);
        s->last_old[p] = s->old[j] + 1;
        CHECK_OK(aos_getmem(p, &s->got[j], &rma_in[me][t][first + j], sizeof s->got[j], s->ev));
    }
    CHECK_OK(aos_event_wait(s->ev));
    for (int j = 0; j < BATCH; j++)
        CHECK(s->got[j] == encode(me, t, first + j));
}

struct queue_state {
    aos_event_t *ev;
    struct item async[ASYNC];
    int in_flight;
    uint64_t last[THREADS]; /* per producer: next sequence this consumer may see */
};

static void consumed(struct queue_state *s, const struct item *it)
{
    int pred = (me + npes - 1) % npes;
    CHECK(it->src == (uint32_t)pred && it->thread >= CONSUMERS && it->thread < THREADS);
    CHECK(it->seq < QOPS && it->seq >= s->last[it->thread]); /* in order per producer */
    s->last[it->thread] = it->seq + 1;
    CHECK(__atomic_fetch_add(&seen[it->thread][it->seq], 1, __ATOMIC_RELAXED) == 0);
}

static void finish_async(struct queue_state *s, int test_it)
{
    if (test_it) {
        for (;;) {
            int done = 0;
            CHECK_OK(aos_event_test(s->ev, &done));
            if (done)
                break;
            CHECK_OK(aos_progress());
            sched_yield();
        }
    } else {
        CHECK_OK(aos_event_wait(s->ev));
    }
    for (int j = 0; j < s->in_flight; j++)
        consumed(s, &s->async[j]);
    s->in_flight = 0;
}

static void queue_step(struct queue_state *s, int t, int i)
{
    if (t >= CONSUMERS) {
        struct item it = {.src = (uint32_t)me, .thread = (uint32_t)t, .seq = (uint64_t)i};
        if (t % 2 == 0) {
            CHECK_OK(aos_enqueue(next_queue, &it));
            return;
        }
        int rc;
        while ((rc = aos_try_enqueue(next_queue, &it)) == AOS_ERR_AGAIN) {
            CHECK_OK(aos_progress());
            sched_yield();
        }
        CHECK_OK(rc);
        CHECK_OK(aos_progress()); /* progress on a thread that is not the consumer */
        return;
    }
    struct item it;
    int rc;
    switch (t) {
    case 0:
        CHECK_OK(aos_dequeue(my_queue, &it));
        consumed(s, &it);
        break;
    case 1:
        while ((rc = aos_try_dequeue(my_queue, &it)) == AOS_ERR_AGAIN) {
            CHECK_OK(aos_progress());
            sched_yield();
        }
        CHECK_OK(rc);
        consumed(s, &it);
        break;
    default:
        CHECK_OK(aos_dequeue_async(my_queue, &s->async[s->in_flight++], s->ev));
        if (s->in_flight == ASYNC || i == QOPS - 1)
            finish_async(s, t == 3);
        break;
    }
}

struct rpc_state {
    aos_event_t *ev;
    uint64_t args[ASYNC], reply[ASYNC];
    size_t len[ASYNC];
    int in_flight;
};

static void rpc_collect(struct rpc_state *s)
{
    CHECK_OK(aos_event_wait(s->ev));
    for (int j = 0; j < s->in_flight; j++)
        CHECK(s->len[j] == sizeof(uint64_t) && s->reply[j] == 3 * s->args[j]);
    s->in_flight = 0;
}

static void rpc_step(struct rpc_state *s, int t, int i)
{
    int pe = target_of(i / RPC_EVERY);
    uint64_t x = encode(me, t, i);
    switch ((i / RPC_EVERY) % 3) {
    case 0: {
        uint64_t r = 0;
        size_t len = 0;
        CHECK_OK(aos_rpc(pe, id_triple, &x, sizeof x, &r, sizeof r, &len, NULL));
        CHECK(len == sizeof r && r == 3 * x);
        break;
    }
    case 1: {
        int j = s->in_flight++;
        s->args[j] = x;
        CHECK_OK(aos_rpc(pe, id_triple, &s->args[j], sizeof x, &s->reply[j], sizeof x,
                         &s->len[j], s->ev));
        if (s->in_flight == ASYNC)
            rpc_collect(s);
        break;
    }
    default:
        CHECK_OK(aos_rpc_post(pe, id_triple, &x, sizeof x));
        break;
    }
}

static void notify_check(int t)
{
    int pred = (me + npes - 1) % npes;
    aos_notify_req_t *req;
    CHECK_OK(aos_notify_init(my_nseg, AOS_ANY_SOURCE, (uint32_t)t, NOPS, &req));
    CHECK_OK(aos_notify_start(req));
    CHECK_OK(aos_notify_wait(req));
    int src;
    uint32_t tag;
    CHECK_OK(aos_notify_last(req, &src, &tag));
    CHECK(src == pred && tag == (uint32_t)t);
    CHECK_OK(aos_notify_free(req));
    uint64_t *data;
    CHECK_OK(aos_seg_ptr(my_nseg, (size_t)t * NOPS * sizeof *data, (void **)&data));
    for (int i = 0; i < NOPS; i++)
        CHECK(data[i] == encode(pred, t, i));
}

static void *worker(void *arg)
{
    int t = (int)(intptr_t)arg;
    struct rma_state rs = {0};
    struct queue_state qs = {0};
    struct rpc_state ps = {0};
    CHECK_OK(aos_event_create(&rs.ev));
    CHECK_OK(aos_event_create(&qs.ev));
    CHECK_OK(aos_event_create(&ps.ev));
    for (int i = 0; i < OPS; i++) {
        if (do_rma)
            rma_step(&rs, t, i);
        if (do_queue && i < QOPS)
            queue_step(&qs, t, i);
        if (do_notify && i < NOPS) {
            uint64_t v = encode(me, t, i);
            CHECK_OK(aos_put_notify(next_nseg, ((size_t)t * NOPS + (size_t)i) * sizeof v, &v,
                                    sizeof v, (uint32_t)t, NULL));
        }
        if (do_rpc && i % RPC_EVERY == 0)
            rpc_step(&ps, t, i);
    }
    if (ps.in_flight != 0)
        rpc_collect(&ps);
    if (do_notify)
        notify_check(t);
    CHECK_OK(aos_event_destroy(ps.ev));
    CHECK_OK(aos_event_destroy(qs.ev));
    CHECK_OK(aos_event_destroy(rs.ev));
    return NULL;
}

/* Operations of all PEs' threads that target me, for a per-iteration
 * target rule target(src, k) = (src + 1 + k) % npes over k < n. */
static uint64_t aimed_at_me(int n)
{
    uint64_t c = 0;
    for (int src = 0; src < npes; src++)
        for (int k = 0; k < n; k++)
            c += (src + 1 + k) % npes == me;
    return c * THREADS;
}

int main(int argc, char **argv)
{
    if (argc > 1) {
        do_rma = strcmp(argv[1], "rma") == 0;
        do_queue = strcmp(argv[1], "queue") == 0;
        do_notify = strcmp(argv[1], "notify") == 0;
        do_rpc = strcmp(argv[1], "rpc") == 0;
    }
    CHECK_OK(aos_init());
    me = aos_my_pe();
    npes = aos_n_pes();
    CHECK(npes <= MAXPES);
    int next = (me + 1) % npes;
    CHECK_OK(aos_rpc_register("threads.triple", triple, 0, &id_triple));
    CHECK_OK(aos_queue_create(QKEY, sizeof(struct item), 8, &my_queue));
    CHECK_OK(aos_seg_create(NKEY, (size_t)THREADS * NOPS * sizeof(uint64_t),
                            AOS_PROTO_RMA | AOS_PROTO_NOTIFY | AOS_PROTO_LOADSTORE, &my_nseg));
    CHECK_OK(aos_barrier_all());
    CHECK_OK(next == me ? AOS_OK : aos_queue_attach(next, QKEY, &next_queue));
    if (next == me)
        next_queue = my_queue;
    CHECK_OK(aos_seg_attach(next, NKEY, &next_nseg));

    test_run_threads(THREADS, worker);
    CHECK_OK(aos_barrier_all());

    if (do_rma) {
        uint64_t want = aimed_at_me(OPS);
        CHECK(__atomic_load_n(&fetch_counter, __ATOMIC_RELAXED) == want);
        CHECK(__atomic_load_n(&post_counter, __ATOMIC_RELAXED) == want);
        for (int src = 0; src < npes; src++)
            for (int t = 0; t < THREADS; t++)
                for (int i = 0; i < OPS; i++)
                    if ((src + 1 + i) % npes == me)
                        CHECK(rma_in[src][t][i] == encode(src, t, i));
    }
    if (do_queue)
        for (int t = CONSUMERS; t < THREADS; t++)
            for (int i = 0; i < QOPS; i++)
                CHECK(seen[t][i] == 1);
    if (do_rpc) {
        /* Posted calls may still wait in my queue: waiting serves them. */
        uint64_t want = aimed_at_me((OPS + RPC_EVERY - 1) / RPC_EVERY);
        CHECK_OK(aos_wait_until_u64(&rpc_counter, AOS_CMP_GE, want));
        CHECK_OK(aos_barrier_all());
        CHECK(__atomic_load_n(&rpc_counter, __ATOMIC_RELAXED) == want);
    }

    if (next != me)
        CHECK_OK(aos_queue_detach(next_queue));
    CHECK_OK(aos_seg_detach(next_nseg));
    CHECK_OK(aos_barrier_all());
    CHECK_OK(aos_queue_destroy(my_queue));
    CHECK_OK(aos_seg_destroy(my_nseg));
    return aos_finalize();
}
