/* aos-bench: the foundation's metrics over aos, for 2 PEs:
 *   pingpong    blocking put of the payload, blocking put of the flag; the
 *               peer waits on the flag and answers the same way; half round
 *               trip, 8 B - 4 KiB (MPI's put, flush, put, flush)
 *   pingpong_fence  the same with the payload put with an event and a fence
 *               before the flag (UCP's put, put, flush)
 *   pingpong_nbi    the payload and the flag both put with an event, a fence
 *               between them: neither waits for completion (OpenSHMEM's
 *               putmem, fence, p)
 *   put_quiet   8-byte put then aos_quiet, per operation
 *   get         8-byte blocking get, per operation
 *   put_bw      aos_putmem_nbi of 4 KiB - 4 MiB sharing one event, then wait
 *               (OpenSHMEM's putmem_nbi: the source is read until the wait)
 *   put_rate    8-byte aos_putmem_nbi sharing one event, then wait: puts
 *               per second
 *   barrier     aos_barrier_all
 *   (and notified ping-pong, queue, RPC metrics: see their functions)
 * Prints CSV (metric,bytes,value,unit); BENCH_ONLY=m1,m2 runs only those
 * metrics (bench_common.h). usage: aosrun -n 2 aos-bench [quick] */
#include <string.h>

#include "aos.h"
#include "try.h"
#include "bench_common.h"



static int me, peer;
static uint8_t *sym;     /* BENCH_MAX_MSG symmetric bytes: the target of puts */
static uint64_t *flag;   /* ping-pong flag */
static uint64_t *counter; /* target of the atomics */
static uint8_t *scratch;  /* private destination of the memcpy twin */
static uint8_t *src;
static aos_event_t *ev;

/* Which ping-pong: both puts blocking; the payload's with an event, a
 * fence, the flag's blocking; both with an event, a fence between. */
static enum { PP_BLOCKING, PP_FENCE, PP_NBI } pp_form = PP_BLOCKING;

/* The payload's put, then the flag's, ordered by a fence unless the
 * payload's put is blocking. */
static void put_payload_and_flag(size_t bytes, uint64_t want)
{
    if (pp_form == PP_BLOCKING) {
        TRY(aos_putmem(peer, sym, src, bytes, NULL));
    } else {
        TRY(aos_putmem(peer, sym, src, bytes, ev));
        TRY(aos_fence(peer));
    }
    /* the flag's source may be reused at once, with an event too */
    TRY(aos_putmem(peer, flag, &want, sizeof want, pp_form == PP_NBI ? ev : NULL));
}

static double pingpong(size_t bytes, long iters)
{
    static uint64_t base; /* flag values so far, the same on both PEs: reading the
                             flag instead would race with the peer's first put */
    TRY(aos_barrier_all());
    double t0 = bench_now();
    for (long i = 1; i <= iters; i++) {
        uint64_t want = base + (uint64_t)i;
        if (me == 0) {
            put_payload_and_flag(bytes, want);
            TRY(aos_wait_until_u64(flag, AOS_CMP_GE, want));
        } else {
            TRY(aos_wait_until_u64(flag, AOS_CMP_GE, want));
            put_payload_and_flag(bytes, want);
        }
    }
    double t = bench_now() - t0;
    TRY(aos_event_wait(ev));
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
            case BENCH_FETCH_ADD: {
                uint64_t old;
                TRY(aos_amo_fetch_sym(peer, counter, AOS_AMO_ADD, AOS_AMO_U64, 1, 0, &old, NULL));
                break;
            }
            case BENCH_CAS: {
                uint64_t old;
                TRY(aos_amo_fetch_sym(peer, counter, AOS_AMO_CAS, AOS_AMO_U64, (uint64_t)i + 1,
                                      (uint64_t)i, &old, NULL));
                break;
            }
            case BENCH_MEMCPY:
                memcpy(scratch, src, bytes);
                __asm__ __volatile__("" ::"r"(scratch) : "memory"); /* keep every copy */
                break;
            case BENCH_POST_ADD:
                TRY(aos_amo_post_sym(peer, counter, AOS_AMO_ADD, AOS_AMO_U64, 1));
                break;
            default: /* BENCH_PUT_BW, BENCH_PUT_RATE */
                TRY(aos_putmem_nbi(peer, sym + (op == BENCH_PUT_RATE ? (size_t)(i & 511) * 8 : 0),
                                   src, bytes, ev));
                break;
            }
        }
        TRY(aos_event_wait(ev));
        TRY(aos_quiet());
    }
    double t = bench_now() - t0;
    TRY(aos_barrier_all());
    return t;
}

/* Enqueue rate: PE 1 enqueues `iters` 16-byte items into PE 0's queue while
 * PE 0 drains it; items per second as the producer sees them. */
static double enqueue_rate(aos_queue_t *mine, aos_queue_t *theirs, long iters)
{
    uint8_t item[16] = {0};
    TRY(aos_barrier_all());
    double t0 = bench_now();
    for (long i = 0; i < iters; i++) {
        if (me == 1)
            TRY(aos_enqueue(theirs, item));
        else
            TRY(aos_dequeue(mine, item));
    }
    double t = bench_now() - t0;
    TRY(aos_barrier_all());
    return (double)iters / t;
}

/* Request/response: PE 0 enqueues a request into PE 1's queue, PE 1 answers
 * into PE 0's; round trips per second. */
static double request_response(aos_queue_t *mine, aos_queue_t *theirs, size_t bytes, long iters)
{
    uint8_t item[256] = {0};
    (void)bytes; /* the queues were made with this item size */
    TRY(aos_barrier_all());
    double t0 = bench_now();
    for (long i = 0; i < iters; i++) {
        if (me == 0) {
            TRY(aos_enqueue(theirs, item));
            TRY(aos_dequeue(mine, item));
        } else {
            TRY(aos_dequeue(mine, item));
            TRY(aos_enqueue(theirs, item));
        }
    }
    double t = bench_now() - t0;
    TRY(aos_barrier_all());
    return (double)iters / t;
}

/* Notified ping-pong: put 8 bytes with a notification; the peer waits for
 * the notification (a persistent request) and answers the same way. */
static double notify_pingpong(aos_seg_t *theirs, aos_notify_req_t *req, long iters)
{
    uint64_t v = 0;
    TRY(aos_barrier_all());
    double t0 = bench_now();
    for (long i = 0; i < iters; i++) {
        if (me == 0) {
            TRY(aos_notify_start(req));
            TRY(aos_put_notify(theirs, 0, &v, sizeof v, 1, NULL));
            TRY(aos_notify_wait(req));
        } else {
            TRY(aos_notify_start(req));
            TRY(aos_notify_wait(req));
            TRY(aos_put_notify(theirs, 0, &v, sizeof v, 1, NULL));
        }
    }
    double t = bench_now() - t0;
    TRY(aos_barrier_all());
    return t / (double)iters / 2.0;
}

static void notify_metrics(double scale)
{
    aos_seg_t *mine, *theirs;
    aos_notify_req_t *req;
    TRY(aos_seg_create(20, 64, AOS_PROTO_RMA | AOS_PROTO_NOTIFY, &mine));
    TRY(aos_notify_init(mine, peer, 1, 1, &req));
    TRY(aos_barrier_all());
    TRY(aos_seg_attach(peer, 20, &theirs));
    double v[TRIALS];
    long n = (long)(20000 * scale) + 10;
    for (int k = 0; k < TRIALS; k++)
        v[k] = notify_pingpong(theirs, req, n);
    if (me == 0)
        bench_report("notify_pingpong", 8, bench_median(v, TRIALS) * 1e6, "us");
    TRY(aos_barrier_all());
    TRY(aos_seg_detach(theirs));
    TRY(aos_notify_free(req));
    TRY(aos_barrier_all());
    TRY(aos_seg_destroy(mine));
}

/* RPC: null round trip (PE 0 calls PE 1, which serves while it waits in a
 * barrier) and posted-call rate from PE 1 to PE 0. */
static size_t null_handler(const aos_rpc_info_t *info, const void *args, size_t len,
                           void *reply, size_t cap)
{
    (void)info, (void)args, (void)len, (void)reply, (void)cap;
    return 0;
}

static double rpc_round_trip(aos_rpc_id_t id, long iters)
{
    TRY(aos_barrier_all());
    double t0 = bench_now();
    if (me == 0)
        for (long i = 0; i < iters; i++)
            TRY(aos_rpc(peer, id, NULL, 0, NULL, 0, NULL, NULL));
    double t = bench_now() - t0;
    TRY(aos_barrier_all()); /* PE 1 serves in here */
    return t / (double)iters;
}

static double rpc_rate(aos_rpc_id_t id, long iters)
{
    TRY(aos_barrier_all());
    double t0 = bench_now();
    if (me == 1) {
        for (long i = 0; i < iters; i++)
            TRY(aos_rpc_post(peer, id, NULL, 0));
        TRY(aos_rpc(peer, id, NULL, 0, NULL, 0, NULL, NULL)); /* all posted ones ran */
    }
    double t = bench_now() - t0;
    TRY(aos_barrier_all());
    return (double)iters / t;
}

static void rpc_metrics(double scale)
{
    aos_rpc_id_t id;
    TRY(aos_rpc_register("null", null_handler, 0, &id));
    TRY(aos_barrier_all());
    double v[TRIALS];
    long n = (long)(100000 * scale) + 10;
    for (int k = 0; k < TRIALS; k++)
        v[k] = rpc_round_trip(id, n);
    if (me == 0)
        bench_report("rpc_null_rtt", 0, bench_median(v, TRIALS) * 1e6, "us");
    for (int k = 0; k < TRIALS; k++)
        v[k] = rpc_rate(id, n * 4);
    if (me == 1)
        bench_report("rpc_post_rate", 0, bench_median(v, TRIALS) / 1e6, "Mcalls/s");
}

static void queue_metrics(double scale)
{
    aos_queue_t *mine, *theirs;
    TRY(aos_queue_create(1, 16, 4096, &mine));
    TRY(aos_barrier_all());
    TRY(aos_queue_attach(peer, 1, &theirs));
    double v[TRIALS];
    long n = (long)(2000000 * scale) + 10;
    for (int k = 0; k < TRIALS; k++)
        v[k] = enqueue_rate(mine, theirs, n);
    if (me == 1) /* the producer's view, sent as PE 0's line via stdout of PE 1 */
        bench_report("enqueue_rate", 16, bench_median(v, TRIALS) / 1e6, "Mitems/s");
    TRY(aos_queue_detach(theirs));
    TRY(aos_barrier_all());
    TRY(aos_queue_destroy(mine));
    static const size_t sizes[] = {16, 64, 248};
    for (size_t s = 0; s < 3; s++) {
        uint64_t key = 10 + s;
        TRY(aos_queue_create(key, sizes[s], 64, &mine));
        TRY(aos_barrier_all());
        TRY(aos_queue_attach(peer, key, &theirs));
        n = (long)(200000 * scale) + 10;
        for (int k = 0; k < TRIALS; k++)
            v[k] = request_response(mine, theirs, sizes[s], n);
        if (me == 0)
            bench_report("queue_rr", sizes[s], bench_median(v, TRIALS) / 1e6, "Mrt/s");
        TRY(aos_queue_detach(theirs));
        TRY(aos_barrier_all());
        TRY(aos_queue_destroy(mine));
    }
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
    counter = aos_calloc(8, sizeof *counter);
    scratch = aligned_alloc(4096, BENCH_MAX_MSG);
    if (scratch == NULL)
        return 1;
    memset(scratch, 0, BENCH_MAX_MSG);
    src = aligned_alloc(4096, BENCH_MAX_MSG); /* page aligned like sym: no misaligned copies */
    if (sym == NULL || flag == NULL || src == NULL)
        return 1;
    memset(src, 0x5a, BENCH_MAX_MSG);
    TRY(aos_event_create(&ev));

    struct bench_target target = {
        .me = me, .has_memcpy = 1, .pingpong = pingpong, .timed = timed};
    bench_run_all(&target, scale);
    pp_form = PP_FENCE;
    bench_pingpong_sweep(&target, "pingpong_fence", scale);
    pp_form = PP_NBI;
    bench_pingpong_sweep(&target, "pingpong_nbi", scale);
    if (bench_wants("notify_pingpong"))
        notify_metrics(scale);
    if (bench_wants("enqueue_rate") || bench_wants("queue_rr"))
        queue_metrics(scale);
    if (bench_wants("rpc_null_rtt") || bench_wants("rpc_post_rate"))
        rpc_metrics(scale);

    TRY(aos_event_destroy(ev));
    free(src);
    aos_free(flag);
    aos_free(sym);
    TRY(aos_finalize());
    return 0;
}
