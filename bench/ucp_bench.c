/* ucp-bench: aos-bench's metrics written straight against UCP, the floor
 * for aos's network path in the same UCX mode (UCX_TLS, UCX_NET_DEVICES from
 * the environment). Two processes (this one and a forked child) exchange
 * worker addresses and remote keys over a socketpair; each has one
 * single-threaded worker that it polls, as a program written for UCP would.
 * The operations are those aos-bench times through aos:
 *   pingpong   put payload, put flag, flush; the peer polls the flag
 *   pingpong_fence   the same, again after the bandwidth runs, where
 *              aos-bench measures its own pingpong_fence: UCT's TCP
 *              endpoint that has carried zero-copy puts sends a request
 *              with each later flush and waits for its acknowledgement
 *   put_quiet  8-byte put and a flush of the endpoint
 *   get        8-byte get, waited for
 *   put_bw / put_rate   puts left in flight (their requests released at
 *              issue, as OpenSHMEM's putmem_nbi), one flush at the end
 *   barrier    an active-message exchange with the peer
 *   notify_pingpong   the ping-pong at 8 bytes (a notified put in UCP)
 *   rpc_null_rtt      a message to the peer and one back
 *   fetch_add, cas      atomics with a reply; post_add_rate  posted adds
 * Prints CSV like aos-bench. usage: ucp-bench [coll] [quick]
 * With coll, only what bench/coll_compare times at 2 PEs, in its format
 * (coll/coll_bench.h): a barrier, and an all-reduce of one 8-byte value
 * (the value travels in the exchange's message), at the cost of one
 * message each way: what a plain UCP program gets.
 * Across hosts, UCP_BENCH_TCP=listen:ADDR:PORT on one and
 * connect:ADDR:PORT on the other replace the fork and the socketpair with
 * a TCP connection (the first reports). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <ucp/api/ucp.h>
#include <unistd.h>

#include "bench_common.h"
#include "coll/coll_bench.h"

#define CHECK_UCS(x)                                                                       \
    do {                                                                                   \
        ucs_status_t s_ = (x);                                                             \
        if (s_ != UCS_OK) {                                                                \
            fprintf(stderr, "ucp-bench: %s: %s\n", #x, ucs_status_string(s_));            \
            exit(1);                                                                       \
        }                                                                                  \
    } while (0)

static int me;
static ucp_context_h ctx;
static ucp_worker_h worker;
static ucp_ep_h ep;
static ucp_rkey_h rkey;
static uint64_t remote_base;
/* My window: [0, BENCH_MAX_MSG) the put target, then the flag and counter. */
static uint8_t *win;
static volatile uint64_t *flag;
static uint64_t *counter;
static uint8_t *src;
static volatile uint64_t am_arrived;

#define FLAG_OFF BENCH_MAX_MSG
#define COUNTER_OFF (BENCH_MAX_MSG + 64)

static void wait_req(ucs_status_ptr_t req)
{
    if (req == NULL)
        return;
    if (UCS_PTR_IS_ERR(req)) {
        fprintf(stderr, "ucp-bench: %s\n", ucs_status_string(UCS_PTR_STATUS(req)));
        exit(1);
    }
    while (ucp_request_check_status(req) == UCS_INPROGRESS)
        ucp_worker_progress(worker);
    ucp_request_free(req);
}

static void flush(void)
{
    ucp_request_param_t p = {0};
    wait_req(ucp_ep_flush_nbx(ep, &p));
}

static void put(uint64_t off, const void *buf, size_t len)
{
    ucp_request_param_t p = {0};
    wait_req(ucp_put_nbx(ep, buf, len, remote_base + off, rkey, &p));
}

/* A put whose source stays untouched until the next flush: not waited for. */
static void put_nbi(uint64_t off, const void *buf, size_t len)
{
    ucp_request_param_t p = {0};
    ucs_status_ptr_t req = ucp_put_nbx(ep, buf, len, remote_base + off, rkey, &p);
    if (UCS_PTR_IS_ERR(req)) {
        fprintf(stderr, "ucp-bench: %s\n", ucs_status_string(UCS_PTR_STATUS(req)));
        exit(1);
    }
    if (req != NULL) { /* in flight: it completes on its own; the flush waits for it */
        ucp_request_free(req);
        ucp_worker_progress(worker);
    }
}

static ucs_status_t on_am(void *arg, const void *header, size_t hlen, void *data, size_t len,
                          const ucp_am_recv_param_t *param)
{
    (void)arg, (void)header, (void)hlen, (void)data, (void)len, (void)param;
    am_arrived++;
    return UCS_OK;
}

/* Messages of the round trips (id 2), apart from the barrier's (id 1). */
static volatile uint64_t rt_arrived;

static ucs_status_t on_rt(void *arg, const void *header, size_t hlen, void *data, size_t len,
                          const ucp_am_recv_param_t *param)
{
    (void)arg, (void)header, (void)hlen, (void)data, (void)len, (void)param;
    rt_arrived++;
    return UCS_OK;
}

/* The all-reduce's values (id 3), each in its message's header. */
static volatile uint64_t val_arrived, val_in;

static ucs_status_t on_val(void *arg, const void *header, size_t hlen, void *data, size_t len,
                           const ucp_am_recv_param_t *param)
{
    (void)arg, (void)data, (void)len, (void)param;
    if (hlen == sizeof(uint64_t))
        memcpy((void *)&val_in, header, sizeof(uint64_t));
    val_arrived++;
    return UCS_OK;
}

/* A message to the peer's handler id, with a word in its header. */
static void send_am(unsigned id, uint64_t word)
{
    ucp_request_param_t p = {.op_attr_mask = UCP_OP_ATTR_FIELD_FLAGS,
                             .flags = UCP_AM_SEND_FLAG_EAGER};
    wait_req(ucp_am_send_nbx(ep, id, &word, sizeof word, NULL, 0, &p));
}

static void barrier(void)
{
    static uint64_t done;
    send_am(1, 0);
    done++;
    while (am_arrived < done)
        ucp_worker_progress(worker);
}

/* The 2-PE all-reduce of one 64-bit sum: my value to the peer, its to me. */
static void allreduce8(int64_t *sum, const int64_t *mine, size_t count)
{
    (void)count;
    static uint64_t done;
    uint64_t v = (uint64_t)mine[0];
    send_am(3, v);
    done++;
    while (val_arrived < done)
        ucp_worker_progress(worker);
    sum[0] = (int64_t)(v + val_in);
}

/* coll mode (see the top). */
static void coll_floor(int quick)
{
    struct coll_ops ops = {.barrier = barrier, .allreduce = allreduce8, .me = me, .npes = 2};
    double t;
    COLL_TIME(&ops, quick ? 2000 : 50000, t, barrier());
    coll_report(&ops, "barrier", 0, t);
    int64_t in = me + 1, out = 0;
    COLL_TIME(&ops, coll_iters(8, quick), t, allreduce8(&out, &in, 1));
    if (out != 3) {
        fprintf(stderr, "ucp-bench: all-reduce gave %lld, not 3\n", (long long)out);
        exit(1);
    }
    coll_report(&ops, "allreduce", 8, t);
}

/* aos-bench's null RPC round trip in UCP: a message there and one back,
 * the answer sent from the polling loop (UCP handlers must not send). */
static double am_round_trip(long iters)
{
    /* Counted, not read: the peer's first message of this round may
     * arrive while I am still in the barrier. */
    static uint64_t base;
    barrier();
    double t0 = bench_now();
    for (long i = 1; i <= iters; i++) {
        if (me == 0)
            send_am(2, 0);
        while (rt_arrived < base + (uint64_t)i)
            ucp_worker_progress(worker);
        if (me == 1)
            send_am(2, 0);
    }
    double t = bench_now() - t0;
    base += (uint64_t)iters;
    barrier();
    return t / (double)iters;
}

static double pingpong(size_t bytes, long iters)
{
    static uint64_t base;
    barrier();
    double t0 = bench_now();
    for (long i = 1; i <= iters; i++) {
        uint64_t want = base + (uint64_t)i;
        if (me == 1)
            while (*flag < want)
                ucp_worker_progress(worker);
        put(0, src, bytes);
        put(FLAG_OFF, &want, sizeof want);
        flush();
        if (me == 0)
            while (*flag < want)
                ucp_worker_progress(worker);
    }
    double t = bench_now() - t0;
    base += (uint64_t)iters;
    return t / (double)iters / 2.0;
}

static void amo(ucp_atomic_op_t op, uint64_t operand, uint64_t *reply)
{
    ucp_request_param_t p = {.op_attr_mask = UCP_OP_ATTR_FIELD_DATATYPE,
                             .datatype = ucp_dt_make_contig(8)};
    if (reply != NULL) {
        p.op_attr_mask |= UCP_OP_ATTR_FIELD_REPLY_BUFFER;
        p.reply_buffer = reply;
    }
    wait_req(ucp_atomic_op_nbx(ep, op, &operand, 1, remote_base + COUNTER_OFF, rkey, &p));
}

static double timed(enum bench_op op, size_t bytes, long iters)
{
    barrier();
    double t0 = bench_now();
    if (op == BENCH_BARRIER) {
        for (long i = 0; i < iters; i++)
            barrier();
    } else if (me == 0) {
        for (long i = 0; i < iters; i++) {
            uint64_t v = 0;
            switch (op) {
            case BENCH_PUT_QUIET:
                put(0, src, bytes);
                flush();
                break;
            case BENCH_GET: {
                ucp_request_param_t p = {0};
                wait_req(ucp_get_nbx(ep, src, bytes, remote_base, rkey, &p));
                break;
            }
            case BENCH_FETCH_ADD: amo(UCP_ATOMIC_OP_ADD, 1, &v); break;
            case BENCH_CAS:
                v = (uint64_t)i + 1;
                amo(UCP_ATOMIC_OP_CSWAP, (uint64_t)i, &v);
                break;
            case BENCH_POST_ADD: amo(UCP_ATOMIC_OP_ADD, 1, NULL); break;
            default: /* BENCH_PUT_BW, BENCH_PUT_RATE */
                put_nbi(op == BENCH_PUT_RATE ? (uint64_t)(i & 511) * 8 : 0, src, bytes);
                break;
            }
        }
        flush();
    }
    double t = bench_now() - t0;
    barrier();
    return t;
}

static void xfer(int sock, void *buf, size_t len, int out)
{
    char *p = buf;
    while (len > 0) {
        ssize_t n = out ? write(sock, p, len) : read(sock, p, len);
        if (n <= 0) {
            perror("ucp-bench: socket");
            exit(1);
        }
        p += n;
        len -= (size_t)n;
    }
}

/* Drives the worker until sock has something to read: a peer still
 * flushing its endpoint needs my worker to answer (UCP over TCP acknowledges
 * from the target's progress), so blocking in read() here could leave it
 * waiting for ever. */
static void progress_until_readable(int sock)
{
    struct pollfd pf = {.fd = sock, .events = POLLIN};
    while (poll(&pf, 1, 0) == 0)
        ucp_worker_progress(worker);
}

/* Sends my worker address, window address and key; receives the peer's. */
static void connect_peer(int sock, ucp_mem_h mem)
{
    ucp_address_t *addr;
    size_t addr_len, key_len;
    void *key;
    CHECK_UCS(ucp_worker_get_address(worker, &addr, &addr_len));
    CHECK_UCS(ucp_rkey_pack(ctx, mem, &key, &key_len));
    uint64_t head[3] = {addr_len, key_len, (uint64_t)(uintptr_t)win};
    xfer(sock, head, sizeof head, 1);
    xfer(sock, addr, addr_len, 1);
    xfer(sock, key, key_len, 1);
    uint64_t theirs[3];
    xfer(sock, theirs, sizeof theirs, 0);
    char *peer_addr = malloc(theirs[0]), *peer_key = malloc(theirs[1]);
    if (peer_addr == NULL || peer_key == NULL)
        exit(1);
    xfer(sock, peer_addr, theirs[0], 0);
    xfer(sock, peer_key, theirs[1], 0);
    remote_base = theirs[2];
    /* Peer error handling, as aos asks for: the same transports, and a
     * forced close at the end. */
    ucp_ep_params_t ep_params = {.field_mask = UCP_EP_PARAM_FIELD_REMOTE_ADDRESS |
                                               UCP_EP_PARAM_FIELD_ERR_HANDLING_MODE,
                                 .address = (ucp_address_t *)(void *)peer_addr,
                                 .err_mode = UCP_ERR_HANDLING_MODE_PEER};
    CHECK_UCS(ucp_ep_create(worker, &ep_params, &ep));
    CHECK_UCS(ucp_ep_rkey_unpack(ep, peer_key, &rkey));
    ucp_rkey_buffer_release(key);
    ucp_worker_release_address(worker, addr);
    free(peer_key);
    free(peer_addr);
}

/* UCP_BENCH_TCP=listen:ADDR:PORT (rank 0) or connect:ADDR:PORT (rank 1):
 * the connection to the peer; -1 and a message when the value is wrong. */
static int tcp_peer(const char *spec)
{
    char mode[16], host[64];
    unsigned port;
    struct sockaddr_in sa = {.sin_family = AF_INET};
    if (sscanf(spec, "%15[a-z]:%63[0-9.]:%u", mode, host, &port) != 3 || port > 65535 ||
        inet_pton(AF_INET, host, &sa.sin_addr) != 1 ||
        (strcmp(mode, "listen") != 0 && strcmp(mode, "connect") != 0)) {
        fprintf(stderr, "ucp-bench: UCP_BENCH_TCP=%s: expected listen|connect:IPV4:PORT\n", spec);
        return -1;
    }
    sa.sin_port = htons((uint16_t)port);
    int s = socket(AF_INET, SOCK_STREAM, 0);
    if (s < 0)
        return -1;
    if (strcmp(mode, "listen") == 0) {
        me = 0;
        int one = 1, c;
        (void)setsockopt(s, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
        if (bind(s, (struct sockaddr *)&sa, sizeof sa) != 0 || listen(s, 1) != 0 ||
            (c = accept(s, NULL, NULL)) < 0) {
            perror("ucp-bench: listen");
            close(s);
            return -1;
        }
        close(s);
        return c;
    }
    me = 1;
    /* the listener may not be up yet: a few seconds of retries */
    for (int tries = 0; connect(s, (struct sockaddr *)&sa, sizeof sa) != 0; tries++) {
        if (tries == 100) {
            perror("ucp-bench: connect");
            close(s);
            return -1;
        }
        close(s);
        usleep(50 * 1000);
        if ((s = socket(AF_INET, SOCK_STREAM, 0)) < 0)
            return -1;
    }
    return s;
}

/* Every metric (see the top). */
static void all_metrics(double scale)
{
    struct bench_target target = {.me = me, .pingpong = pingpong, .timed = timed};
    bench_run_all(&target, scale);
    bench_pingpong_sweep(&target, "pingpong_fence", scale);
    /* A notified put in UCP is the ping-pong's put, flag put and flush. */
    double v[TRIALS];
    long n = (long)(20000 * scale) + 10;
    if (bench_wants("notify_pingpong")) {
        for (int k = 0; k < TRIALS; k++)
            v[k] = pingpong(8, n);
        if (me == 0)
            bench_report("notify_pingpong", 8, bench_median(v, TRIALS) * 1e6, "us");
    }
    if (bench_wants("rpc_null_rtt")) {
        for (int k = 0; k < TRIALS; k++)
            v[k] = am_round_trip(n);
        if (me == 0)
            bench_report("rpc_null_rtt", 0, bench_median(v, TRIALS) * 1e6, "us");
    }
}

int main(int argc, char **argv)
{
    int coll = argc > 1 && strcmp(argv[1], "coll") == 0;
    if (coll) {
        argc--;
        argv++;
    }
    double scale = argc > 1 && strcmp(argv[1], "quick") == 0 ? 0.05 : 1.0;
    pid_t child = -1;
    int sock;
    const char *tcp = getenv("UCP_BENCH_TCP");
    if (tcp != NULL) {
        if ((sock = tcp_peer(tcp)) < 0)
            return 1;
    } else {
        int sv[2];
        if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv) != 0)
            return 1;
        child = fork();
        if (child < 0)
            return 1;
        me = child == 0 ? 1 : 0;
        sock = sv[me];
        close(sv[1 - me]);
    }

    ucp_params_t params = {.field_mask = UCP_PARAM_FIELD_FEATURES,
                           .features = UCP_FEATURE_RMA | UCP_FEATURE_AMO64 | UCP_FEATURE_AM};
    CHECK_UCS(ucp_init(&params, NULL, &ctx));
    ucp_worker_params_t wp = {.field_mask = UCP_WORKER_PARAM_FIELD_THREAD_MODE,
                              .thread_mode = UCS_THREAD_MODE_SINGLE};
    CHECK_UCS(ucp_worker_create(ctx, &wp, &worker));
    ucp_am_handler_param_t hp = {.field_mask = UCP_AM_HANDLER_PARAM_FIELD_ID |
                                               UCP_AM_HANDLER_PARAM_FIELD_CB,
                                 .id = 1,
                                 .cb = on_am};
    CHECK_UCS(ucp_worker_set_am_recv_handler(worker, &hp));
    hp.id = 2;
    hp.cb = on_rt;
    CHECK_UCS(ucp_worker_set_am_recv_handler(worker, &hp));
    hp.id = 3;
    hp.cb = on_val;
    CHECK_UCS(ucp_worker_set_am_recv_handler(worker, &hp));
    size_t win_len = BENCH_MAX_MSG + 4096;
    win = aligned_alloc(4096, win_len);
    src = aligned_alloc(4096, BENCH_MAX_MSG);
    if (win == NULL || src == NULL)
        return 1;
    memset(win, 0, win_len);
    memset(src, 0x5a, BENCH_MAX_MSG);
    flag = (volatile uint64_t *)(void *)(win + FLAG_OFF);
    counter = (uint64_t *)(void *)(win + COUNTER_OFF);
    ucp_mem_map_params_t mp = {.field_mask = UCP_MEM_MAP_PARAM_FIELD_ADDRESS |
                                             UCP_MEM_MAP_PARAM_FIELD_LENGTH,
                               .address = win,
                               .length = win_len};
    ucp_mem_h mem;
    CHECK_UCS(ucp_mem_map(ctx, &mp, &mem));
    connect_peer(sock, mem);

    if (coll)
        coll_floor(scale < 1.0);
    else
        all_metrics(scale);

    barrier();
    flush();
    char done = 1;
    xfer(sock, &done, 1, 1); /* neither closes its endpoint while the other works */
    progress_until_readable(sock); /* the peer's flush may need my worker */
    xfer(sock, &done, 1, 0);
    ucp_rkey_destroy(rkey);
    ucp_request_param_t cp = {.op_attr_mask = UCP_OP_ATTR_FIELD_FLAGS,
                              .flags = UCP_EP_CLOSE_FLAG_FORCE};
    wait_req(ucp_ep_close_nbx(ep, &cp));
    ucp_mem_unmap(ctx, mem);
    ucp_worker_destroy(worker);
    ucp_cleanup(ctx);
    free(src);
    free(win);
    if (child > 0)
        waitpid(child, NULL, 0);
    return 0;
}
