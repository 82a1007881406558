/* The UCX transport: start-up (context, worker, endpoints, the address and
 * key exchange through the bootstrap), teardown, and the operations table.
 * See ucx.h for the files and transport.h for the contract. */
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arch/atomics.h"
#include "arch/cpu.h"
#include "core/bootstrap.h"
#include "core/event.h"
#include "core/peer_loss.h"
#include "core/runtime.h"
#include "core/tls.h"
#include "core/wait.h"
#include "transport/ucx/ucx.h"

struct aos__ucx aos__ucx;
#define U aos__ucx

int aos__ucx_failure(ucs_status_t st, int pe)
{
    /* Relaxed: a flag set once (core/peer_loss.c); a stale 0 only names the
     * failure by its UCX status. */
    if (st == UCS_ERR_CONNECTION_RESET || st == UCS_ERR_ENDPOINT_TIMEOUT ||
        (pe >= 0 && pe < aos__rt.npes && aos__load_relaxed(&aos__rt.peers[pe].lost)))
        return AOS_ERR_PE_DIED;
    return st == UCS_ERR_NO_MEMORY ? AOS_ERR_NO_MEMORY : AOS_ERR_NETWORK;
}

void aos__ucx_event_done(aos_event_t *ev, ucs_status_t st, int pe)
{
    aos__event_done_async(ev, st == UCS_OK ? AOS_OK : aos__ucx_failure(st, pe));
}

int aos__ucx_status(ucs_status_t st, const char *what, int pe)
{
    if (st == UCS_OK)
        return AOS_OK;
    int rc = aos__ucx_failure(st, pe);
    /* A lost peer is reported once, by the launcher or else by
     * core/peer_loss.c: not by every operation that fails on it, whose
     * lines would bury the launcher's report. */
    if (rc != AOS_ERR_PE_DIED)
        fprintf(stderr, "aos: PE %d: UCX failed %s (PE %d): %s\n", aos__rt.me, what, pe,
                ucs_status_string(st));
    return rc;
}

unsigned aos__ucx_drive_once(void)
{
    /* Records coalesced for other peers leave whenever this thread drives
     * the worker (it waits for something, or issues a stream of other
     * operations): a program that spins on one peer while its records for
     * another wait would wait forever for that peer's answer. */
    aos__ucx_coalesce_send_all();
    aos__ucx_driven(); /* the progress thread stands aside meanwhile */
    aos__ucx_enter();
    unsigned n = ucp_worker_progress(U.worker);
    aos__ucx_leave();
    if (n != 0) /* peers whose writes this CPU applies send no wakes */
        aos__ucx_ring_all();
    /* A peer's flush waits for my answer: not for the end of a stream of
     * issues that turns the worker only here (ack.c). */
    aos__ucx_ack_send();
    return n;
}

void aos__ucx_progress_idle(unsigned *idle)
{
    unsigned n = aos__ucx_drive_once();
    aos__ucx_send_deferred();
    /* After as many empty turns as a waiter spins: the peer may need this
     * CPU to answer where PEs share CPUs (a few turns then), and a yield
     * just before the answer comes delays it where they do not. */
    if (n != 0)
        *idle = 0;
    else if (++*idle >= aos__rt.cfg.spin_count / AOS__POLLS_PER_PAUSE)
        sched_yield();
}

/* Operations issued between two turns of the worker taken by a program
 * thread that issues them in a stream, and the age of its last such turn
 * at which an issue takes one anyway: the progress thread stands aside
 * while the stream lasts (aos__ucx_driven), so peers' requests wait for
 * these turns, about TURN_EVERY_NS and the gap to the next issue. */
#define ISSUES_PER_TURN 8
#define TURN_EVERY_NS 100000u

void aos__ucx_issued(void)
{
    static AOS__TLS unsigned count;
    static AOS__TLS uint64_t last_turn;
    uint64_t now = aos__now_ns();
    if (++count >= ISSUES_PER_TURN || now - last_turn >= TURN_EVERY_NS) {
        last_turn = now;
        count = 0;
        (void)aos__ucx_drive_once();
    } else { /* each issue held UCP's lock: a progress thread serving meanwhile waits for it */
        aos__ucx_driven();
    }
}

int aos__ucx_wait(ucs_status_ptr_t req, const char *what, int pe)
{
    if (req == NULL) {
        aos__ucx_issued();
        return AOS_OK;
    }
    if (UCS_PTR_IS_ERR(req))
        return aos__ucx_status(UCS_PTR_STATUS(req), what, pe);
    ucs_status_t st;
    unsigned idle = 0;
    while ((st = ucp_request_check_status(req)) == UCS_INPROGRESS)
        aos__ucx_progress_idle(&idle);
    ucp_request_free(req);
    return aos__ucx_status(st, what, pe);
}

/* What each PE publishes: its arena's address, worker address and the
 * fixed part's key. */
struct blob_head {
    uint64_t base;
    uint32_t addr_len;
    uint32_t key_len;
};

static void on_peer_error(void *arg, ucp_ep_h ep, ucs_status_t st)
{
    (void)ep;
    /* Operations on the endpoint fail with AOS_ERR_NETWORK from now on; the
     * core decides whether the job can go on. */
    aos__peer_lost((int)(intptr_t)arg, ucs_status_string(st));
    aos__ucx_ack_lost((int)(intptr_t)arg); /* marked lost first: see ack.c */
}

static int connect_peers(const char *all, const size_t *offs)
{
    for (int pe = 0; pe < aos__rt.npes; pe++) {
        if (aos__rt.peers[pe].tp != &aos__transport_net)
            continue;
        struct blob_head h;
        const char *b = all + offs[pe];
        if (offs[pe + 1] - offs[pe] < sizeof h)
            return AOS_ERR_BOOTSTRAP;
        memcpy(&h, b, sizeof h);
        if (sizeof h + (size_t)h.addr_len + h.key_len > offs[pe + 1] - offs[pe])
            return AOS_ERR_BOOTSTRAP;
        ucp_ep_params_t ep = {
            .field_mask = UCP_EP_PARAM_FIELD_REMOTE_ADDRESS | UCP_EP_PARAM_FIELD_ERR_HANDLING_MODE |
                          UCP_EP_PARAM_FIELD_ERR_HANDLER,
            .address = (const ucp_address_t *)(const void *)(b + sizeof h),
            .err_mode = UCP_ERR_HANDLING_MODE_PEER,
            .err_handler = {.cb = on_peer_error, .arg = (void *)(intptr_t)pe},
        };
        struct aos__ucx_peer *p = &U.peers[pe];
        int rc = aos__ucx_status(ucp_ep_create(U.worker, &ep, &p->ep), "connecting", pe);
        if (rc != AOS_OK)
            return rc;
        p->base = h.base;
        unsigned traits = aos__ucx_lane_traits(p->ep);
        aos__ucx_sleep_peer(pe, traits);
        if (aos__rt.cfg.net_as_rdma)
            traits = 0;
        p->target_applies = (traits & AOS__UCX_APPLIED_BY_CPU) != 0;
        p->ordered = (traits & AOS__UCX_ORDERED) != 0;
        p->acks = p->ordered && p->target_applies;
        /* Both complete what they send as messages with a flush (UCP's too,
         * as the transport stops). */
        int messages_ok = p->acks && U.flush_covers_messages;
        p->co.on = messages_ok && aos__rt.cfg.net_coalesce;
        p->put_messages = messages_ok && U.put_fragment != 0;
        aos__debug("PE %d: writes %s; operations %s", pe,
                   p->target_applies ? "applied by its CPU (no wake messages)"
                                     : "may bypass its CPU (a wake message after each)",
                   p->ordered ? "applied in issue order (no ordering flushes)"
                              : "ordered by flushes");
        aos__debug("PE %d: flushes %s", pe,
                   p->acks ? "by a request it answers" : "by UCP");
        aos__debug("PE %d: small puts with events and posted atomics %s", pe,
                   p->co.on ? "coalesced into messages" : "issued one by one");
        if (p->put_messages)
            aos__debug("PE %d: puts of %u B or more sent as messages of up to %zu B", pe,
                       AOS__UCX_PUT_MESSAGE_MIN, U.put_fragment);
        else
            aos__debug("PE %d: large puts are UCP's", pe);
        rc = aos__ucx_status(ucp_ep_rkey_unpack(p->ep, b + sizeof h + h.addr_len, &p->fixed),
                             "unpacking a remote key", pe);
        if (rc != AOS_OK)
            return rc;
    }
    return AOS_OK;
}

/* Publishes my addresses and connects to every off-node peer. */
static int exchange(struct aos__runtime *rt)
{
    void *key = NULL;
    size_t key_len = 0;
    int rc = aos__ucx_keys_start(&key, &key_len);
    if (rc != AOS_OK)
        return rc;
    ucp_address_t *addr;
    size_t addr_len;
    rc = aos__ucx_status(ucp_worker_get_address(U.worker, &addr, &addr_len),
                         "getting the worker address", rt->me);
    if (rc != AOS_OK)
        goto fail_key;
    struct blob_head h = {.base = (uint64_t)(uintptr_t)rt->my_base,
                          .addr_len = (uint32_t)addr_len,
                          .key_len = (uint32_t)key_len};
    size_t len = sizeof h + addr_len + key_len;
    char *mine = malloc(len);
    if (mine == NULL) {
        rc = AOS_ERR_NO_MEMORY;
        goto fail_addr;
    }
    memcpy(mine, &h, sizeof h);
    memcpy(mine + sizeof h, addr, addr_len);
    memcpy(mine + sizeof h + addr_len, key, key_len);
    char *all;
    size_t *offs;
    rc = aos__bootstrap_allgather(rt, mine, len, &all, &offs);
    free(mine);
    if (rc == AOS_OK) {
        rc = connect_peers(all, offs);
        free(all);
        free(offs);
    }
fail_addr:
    ucp_worker_release_address(U.worker, addr);
fail_key:
    ucp_rkey_buffer_release(key);
    return rc;
}

/* UCP connects in the background: the socket of an endpoint I create
 * exists at once, but the peer's end of it is accepted by UCX's own thread
 * whenever that runs, and a worker flush waits for neither. A message from
 * every off-node peer proves the connection it came on open at my end
 * before start-up marks UCX's descriptors (fds.c): one accepted later
 * would be inherited by the programs a PE starts (a second connection of
 * the pair: settle_accepts). */
static int greet(struct aos__runtime *rt)
{
    uint32_t peers = 0;
    for (int pe = 0; pe < rt->npes; pe++) {
        if (rt->peers[pe].tp != &aos__transport_net)
            continue;
        peers++;
        int rc = aos__ucx_am(pe, AOS__UCX_HELLO, 0, 0, NULL, 0);
        if (rc != AOS_OK)
            return rc;
    }
    uint64_t deadline = aos__now_ns() + rt->cfg.boot_timeout * 1000000000u;
    unsigned idle = 0;
    while (aos__load_relaxed(&U.hellos) < peers) { /* relaxed: see am.c */
        if (aos__now_ns() >= deadline) {
            fprintf(stderr,
                    "aos: PE %d: heard from %u of %u PEs on other nodes within %u s "
                    "(AOS_BOOT_TIMEOUT)\n",
                    rt->me, aos__load_relaxed(&U.hellos), peers, (unsigned)rt->cfg.boot_timeout);
            return AOS_ERR_BOOTSTRAP;
        }
        aos__ucx_progress_idle(&idle);
    }
    return AOS_OK;
}

/* Waits, for at most ACCEPT_WAIT_NS, until UCX's thread has accepted every
 * connection that reached its listening sockets: two PEs that connected to
 * each other at once may each keep both connections, and the second is
 * accepted whenever that thread runs, after greet's messages crossed on
 * the first. It was connected before its PE sent its greeting, so it
 * waits in the accept queue by now. */
#define ACCEPT_WAIT_NS 1000000000u
static void settle_accepts(const struct aos__ucx_fds *before)
{
    uint64_t deadline = aos__now_ns() + ACCEPT_WAIT_NS;
    unsigned idle = 0;
    while (aos__ucx_fds_accepting(before) && aos__now_ns() < deadline)
        aos__ucx_progress_idle(&idle);
}

/* UCX's TCP sends in segments of 8 KiB unless told otherwise (and receives
 * in 64 KiB), each a system call and a turn of the target's progress, so
 * large puts, gets and broadcasts are paced by those rather than by the
 * link: in 256 KiB segments a 64 KiB put is one. An endpoint takes a
 * segment from its interface's pool only while a transfer is under way
 * (the pools grow several at a time and keep what they grew to). UCP takes
 * transport settings only from the environment (its config_modify refuses
 * them), which UCT reads when the worker opens its interfaces: set there
 * for that moment unless the user set them, then taken out again. */
#define TCP_SEG_SIZE "256k"
static const char *const tcp_seg_vars[] = {"UCX_TCP_TX_SEG_SIZE", "UCX_TCP_RX_SEG_SIZE"};
#define TCP_SEG_VARS ((int)(sizeof tcp_seg_vars / sizeof *tcp_seg_vars))

/* Returns bit i set for each tcp_seg_vars[i] it set. */
static int set_tcp_segments(void)
{
    int set = 0;
    for (int i = 0; i < TCP_SEG_VARS; i++)
        if (getenv(tcp_seg_vars[i]) == NULL && setenv(tcp_seg_vars[i], TCP_SEG_SIZE, 0) == 0)
            set |= 1 << i;
    return set;
}

static void unset_tcp_segments(int set)
{
    for (int i = 0; i < TCP_SEG_VARS; i++)
        if (set & (1 << i))
            (void)unsetenv(tcp_seg_vars[i]);
}

static int init_context(struct aos__runtime *rt, ucp_config_t *cfg, int wakeup)
{
    ucp_params_t params = {
        .field_mask = UCP_PARAM_FIELD_FEATURES | UCP_PARAM_FIELD_MT_WORKERS_SHARED,
        .features = UCP_FEATURE_RMA | UCP_FEATURE_AMO32 | UCP_FEATURE_AMO64 | UCP_FEATURE_AM,
        .mt_workers_shared = 1,
    };
    /* The worker's event descriptor only where the progress thread sleeps
     * on it (sleep.c): the feature costs every message over TCP. */
    if (wakeup)
        params.features |= UCP_FEATURE_WAKEUP;
    return aos__ucx_status(ucp_init(&params, cfg, &U.context), "initialising", rt->me);
}

static int open_worker(struct aos__runtime *rt, const struct aos__ucx_fds *before)
{
    U.efd = -1;
    U.wake_fd = -1;
    ucp_config_t *cfg;
    int rc = aos__ucx_status(ucp_config_read(NULL, NULL, &cfg), "reading its configuration",
                             rt->me);
    if (rc != AOS_OK)
        return rc;
    /* Two threads drive the worker (the program's and the progress thread),
     * often more threads than CPUs: a holder of UCP's lock that sleeps must
     * not leave the other spinning on it, so a mutex, unless set. */
    if (getenv("UCX_USE_MT_MUTEX") == NULL)
        (void)ucp_config_modify(cfg, "USE_MT_MUTEX", "y");
    /* The interfaces' event sets where UCX found only TCP (and transports
     * within this host), else the worker's descriptor: a second context. */
    U.sleep_on = rt->cfg.net_wakeup == 0   ? AOS__UCX_SLEEP_DOZE
                 : rt->cfg.net_wakeup == 2 ? AOS__UCX_SLEEP_WORKER
                                           : AOS__UCX_SLEEP_IFACES;
    rc = init_context(rt, cfg, U.sleep_on == AOS__UCX_SLEEP_WORKER);
    if (rc == AOS_OK && U.sleep_on == AOS__UCX_SLEEP_IFACES &&
        !aos__ucx_context_tcp_only(U.context)) {
        ucp_cleanup(U.context);
        U.sleep_on = AOS__UCX_SLEEP_WORKER;
        rc = init_context(rt, cfg, 1);
    }
    ucp_config_release(cfg);
    if (rc != AOS_OK)
        return rc;
    ucp_worker_params_t wp = {.field_mask = UCP_WORKER_PARAM_FIELD_THREAD_MODE,
                              .thread_mode = UCS_THREAD_MODE_MULTI};
    int seg_set = set_tcp_segments();
    rc = aos__ucx_status(ucp_worker_create(U.context, &wp, &U.worker), "creating a worker",
                         rt->me);
    U.put_fragment = aos__ucx_put_fragment(); /* from the sizes the worker took */
    /* UCX's TCP flush waits for the target's answer after anything was
     * sent, a message too, from UCX 1.12 on; before, only after puts. */
    unsigned major, minor, release;
    ucp_get_version(&major, &minor, &release);
    U.flush_covers_messages = major > 1 || (major == 1 && minor >= 12);
    unset_tcp_segments(seg_set);
    if (rc != AOS_OK)
        goto fail_context;
    ucp_worker_attr_t attr = {.field_mask = UCP_WORKER_ATTR_FIELD_THREAD_MODE};
    rc = aos__ucx_status(ucp_worker_query(U.worker, &attr), "querying the worker", rt->me);
    if (rc == AOS_OK && attr.thread_mode != UCS_THREAD_MODE_MULTI) {
        fprintf(stderr, "aos: PE %d: this UCX was built without thread support "
                        "(--enable-mt), which aos needs\n", rt->me);
        rc = AOS_ERR_NETWORK;
    }
    if (rc == AOS_OK)
        rc = aos__ucx_sleep_open(before);
    if (rc == AOS_OK)
        rc = aos__ucx_am_start();
    if (rc != AOS_OK)
        goto fail_worker;
    return AOS_OK;

fail_worker:
    aos__ucx_sleep_close();
    ucp_worker_destroy(U.worker);
fail_context:
    ucp_cleanup(U.context);
    return rc;
}

static void close_peers(void)
{
    /* Nothing is coalesced or sent on the endpoints from here on (quiet
     * sent what was; the waits below drive the worker, whose turns would
     * send records). */
    for (int pe = 0; pe < aos__rt.npes; pe++)
        U.peers[pe].co.on = 0;
    aos__ucx_keys_stop();
    ucp_request_param_t force = {.op_attr_mask = UCP_OP_ATTR_FIELD_FLAGS,
                                 .flags = UCP_EP_CLOSE_FLAG_FORCE};
    for (int pe = 0; pe < aos__rt.npes; pe++) {
        struct aos__ucx_peer *p = &U.peers[pe];
        if (p->ep != NULL)
            (void)aos__ucx_wait(ucp_ep_close_nbx(p->ep, &force), "closing", pe);
        p->ep = NULL;
        free(p->waiting.ev);
    }
}

static int ucx_start(struct aos__runtime *rt)
{
    memset(&U, 0, sizeof U);
    U.peers = calloc((size_t)rt->npes, sizeof *U.peers);
    U.askers = calloc(((size_t)rt->npes + 63) / 64, sizeof *U.askers);
    if (U.peers == NULL || U.askers == NULL) {
        free(U.askers);
        free(U.peers);
        U.peers = NULL;
        U.askers = NULL;
        return AOS_ERR_NO_MEMORY;
    }
    pthread_mutex_init(&U.lock, NULL);
    pthread_mutex_init(&U.key_lock, NULL);
    for (int pe = 0; pe < rt->npes; pe++)
        aos__ucx_coalesce_start(pe);
    struct aos__ucx_fds before;
    aos__ucx_fds_note(&before);
    int rc = open_worker(rt, &before);
    if (rc != AOS_OK)
        goto fail_peers;
    rc = exchange(rt);
    if (rc == AOS_OK) /* every connection open: UCX opens no more sockets */
        rc = greet(rt);
    if (rc == AOS_OK)
        settle_accepts(&before);
    if (rc != AOS_OK)
        goto fail_connected;
    aos__ucx_fds_cloexec_new(&before);
    rc = aos__ucx_thread_start();
    if (rc != AOS_OK)
        goto fail_connected;
    return AOS_OK;

fail_connected:
    close_peers();
    aos__ucx_sleep_close();
    ucp_worker_destroy(U.worker);
    ucp_cleanup(U.context);
fail_peers:
    free(before.fd);
    for (int pe = 0; pe < rt->npes; pe++)
        aos__ucx_coalesce_stop(pe);
    pthread_mutex_destroy(&U.key_lock);
    pthread_mutex_destroy(&U.lock);
    free(U.askers);
    U.askers = NULL;
    free(U.peers);
    U.peers = NULL;
    return rc;
}

static void ucx_stop(struct aos__runtime *rt)
{
    /* Every message and write of mine reaches its target before the
     * endpoints go (the last barrier's signals among them). */
    ucp_request_param_t none = {0};
    /* UCP's flushes from here on: a peer that is stopping too may have
     * stopped answering requests (a flush by request already under way
     * still ends, by its answer or by the peer's loss). Under the lock:
     * the progress thread's settle reads it there. */
    pthread_mutex_lock(&U.lock);
    for (int pe = 0; pe < rt->npes; pe++)
        U.peers[pe].acks = 0;
    pthread_mutex_unlock(&U.lock);
    (void)aos__ucx_quiet();
    (void)aos__ucx_wait(ucp_worker_flush_nbx(U.worker, &none), "flushing at the end", rt->me);
    aos__ucx_thread_stop();
    aos__ucx_drop_deferred();
    close_peers();
    aos__ucx_sleep_close();
    ucp_worker_destroy(U.worker);
    ucp_cleanup(U.context);
    for (int pe = 0; pe < rt->npes; pe++)
        aos__ucx_coalesce_stop(pe);
    pthread_mutex_destroy(&U.key_lock);
    pthread_mutex_destroy(&U.lock);
    free(U.askers);
    U.askers = NULL;
    free(U.peers);
    U.peers = NULL;
}

static int ucx_thread_start(void)
{
    return AOS_OK; /* UCP state is per process; the worker takes any thread */
}

static void ucx_thread_stop(void)
{
}

static int ucx_progress(void)
{
    unsigned n = aos__ucx_drive_once();
    aos__ucx_settle(aos__events_wanted ? AOS__UCX_SETTLE_EAGER : 0);
    return n != 0;
}

static int ucx_local_ptr(int pe, uint64_t off, void **ptr)
{
    (void)pe, (void)off, (void)ptr;
    return AOS_ERR_NOT_LOCAL;
}

const struct aos__transport aos__transport_net = {
    .name = "ucx",
    .start = ucx_start,
    .stop = ucx_stop,
    .thread_start = ucx_thread_start,
    .thread_stop = ucx_thread_stop,
    .put = aos__ucx_put,
    .put_held = aos__ucx_put_held,
    .get = aos__ucx_get,
    .put_block = aos__ucx_put_block,
    .get_block = aos__ucx_get_block,
    .signal_store = aos__ucx_signal_store,
    .put_signal = aos__ucx_put_signal,
    .amo = aos__ucx_amo,
    .progress = ucx_progress,
    .sleep_begin = aos__ucx_sleep_begin,
    .sleep_end = aos__ucx_sleep_end,
    .fence = aos__ucx_fence,
    .fence_all = aos__ucx_fence_all,
    .quiet = aos__ucx_quiet,
    .local_ptr = ucx_local_ptr,
    .expose = aos__ucx_expose,
    .am_send = aos__ucx_core_am,
};
