/* Remote procedure calls: exact replies for arguments of 0 B-4 KiB from every
 * PE to every PE, 200 KiB of arguments through symmetric memory, many outstanding calls with events, posted calls counted
 * exactly, nested calls through a third PE, the execute-at-caller fallback
 * with a queue of depth 1 (every PE calling PE 0), a table mismatch, and
 * bad input. */
#include <stdlib.h>
#include <string.h>

#include "../common/check.h"

static uint64_t counter;       /* symmetric: posted adds and fallback adds land here */
static aos_rpc_id_t id_add, id_echo, id_relay, id_atomic_add, id_slow_add, id_odd;

/* reply = args with every byte + 1 */
static size_t echo(const aos_rpc_info_t *info, const void *args, size_t len, void *reply,
                   size_t cap)
{
    CHECK(info->home == aos_my_pe() && !info->at_caller);
    size_t n = len < cap ? len : cap;
    for (size_t i = 0; i < n; i++)
        ((uint8_t *)reply)[i] = (uint8_t)(((const uint8_t *)args)[i] + 1);
    return n;
}

/* counter += args (8 bytes); reply: my PE number */
static size_t add(const aos_rpc_info_t *info, const void *args, size_t len, void *reply,
                  size_t cap)
{
    (void)info;
    uint64_t v;
    CHECK(len == sizeof v);
    memcpy(&v, args, sizeof v);
    /* Handlers run one at a time at home, but with AOS_PROGRESS_THREAD=1 on
     * another thread than main, which reads and resets the counter. */
    __atomic_fetch_add(&counter, v, __ATOMIC_RELAXED);
    int me = aos_my_pe();
    if (cap >= sizeof me)
        memcpy(reply, &me, sizeof me);
    return cap >= sizeof me ? sizeof me : 0;
}

/* Calls `add` on the next PE (a nested RPC) and returns what it answered. */
static size_t relay(const aos_rpc_info_t *info, const void *args, size_t len, void *reply,
                    size_t cap)
{
    (void)info;
    (void)len;
    int next = (aos_my_pe() + 1) % aos_n_pes(), who = -1;
    size_t got = 0;
    CHECK_OK(aos_rpc(next, id_add, args, sizeof(uint64_t), &who, sizeof who, &got, NULL));
    CHECK(got == sizeof who && who == next);
    memcpy(reply, &who, cap < sizeof who ? cap : sizeof who);
    return sizeof who;
}

/* Adds 1 to home's counter wherever it runs: through the localized address
 * and an atomic, as AOS_RPC_ANYWHERE handlers must. */
static size_t atomic_add(const aos_rpc_info_t *info, const void *args, size_t len, void *reply,
                         size_t cap)
{
    (void)args;
    (void)len;
    (void)reply;
    (void)cap;
    uint64_t *c;
    CHECK_OK(aos_rpc_localize(info, &counter, (void **)&c));
    __atomic_fetch_add(c, 1, __ATOMIC_SEQ_CST);
    return 0;
}

/* Arguments larger than AOS_RPC_MAX_INLINE travel through memory the
 * target can read: the call carries {key, length} of a segment the caller
 * created (or names a symmetric variable, whose address in the handler's
 * own process names the caller's copy); the handler gets the bytes and
 * replies with their FNV-1a hash. Raw addresses are never sent: processes
 * may load the program at different addresses. */
#define BIG (200 * 1024 + 3)
static uint8_t big_args[BIG];   /* symmetric: each caller's argument bytes */
static uint8_t big_copy[BIG];   /* the handler's copy (handlers run one at a time) */
static aos_rpc_id_t id_hash_big;

static uint64_t fnv(const uint8_t *p, size_t n)
{
    uint64_t h = 1469598103934665603ull;
    for (size_t i = 0; i < n; i++)
        h = (h ^ p[i]) * 1099511628211ull;
    return h;
}

static size_t hash_big(const aos_rpc_info_t *info, const void *args, size_t len, void *reply,
                       size_t cap)
{
    uint64_t ref[2]; /* segment key at the caller (0: big_args), length */
    CHECK(len == sizeof ref && cap >= sizeof(uint64_t));
    memcpy(ref, args, sizeof ref);
    CHECK(ref[1] <= BIG);
    if (ref[0] == 0) {
        CHECK_OK(aos_getmem(info->caller, big_copy, big_args, ref[1], NULL));
    } else {
        aos_seg_t *seg;
        CHECK_OK(aos_seg_attach(info->caller, ref[0], &seg));
        CHECK_OK(aos_get(big_copy, seg, 0, ref[1], NULL));
        CHECK_OK(aos_seg_detach(seg));
    }
    uint64_t h = fnv(big_copy, ref[1]);
    memcpy(reply, &h, sizeof h);
    return sizeof h;
}

static void big_arguments(int me, int n)
{
    /* through symmetric memory */
    pattern_fill(big_args, BIG, (unsigned)me + 77u);
    uint64_t ref[2] = {0, BIG}, h = 0;
    size_t got = 0;
    CHECK_OK(aos_rpc((me + 1) % n, id_hash_big, ref, sizeof ref, &h, sizeof h, &got, NULL));
    CHECK(got == sizeof h && h == fnv(big_args, BIG));
    /* through a segment of mine */
    aos_seg_t *seg;
    void *p;
    CHECK_OK(aos_seg_create(4242, BIG, AOS_PROTO_RMA | AOS_PROTO_LOADSTORE, &seg));
    CHECK_OK(aos_seg_ptr(seg, 0, &p));
    pattern_fill(p, BIG, (unsigned)me + 99u);
    ref[0] = 4242;
    got = 0;
    CHECK_OK(aos_rpc((me + 1) % n, id_hash_big, ref, sizeof ref, &h, sizeof h, &got, NULL));
    CHECK(got == sizeof h && h == fnv(p, BIG));
    CHECK_OK(aos_barrier_all()); /* nobody reads it any more */
    CHECK_OK(aos_seg_destroy(seg));
}

static size_t odd(const aos_rpc_info_t *info, const void *args, size_t len, void *reply,
                  size_t cap)
{
    (void)info, (void)args, (void)len, (void)reply, (void)cap;
    CHECK(0); /* never runs: the tables disagree */
    return 0;
}

static void echo_all(int me, int n)
{
    static const size_t sizes[] = {0, 1, 7, 64, 255, 1000, 4095, 4096};
    uint8_t *args = malloc(AOS_RPC_MAX_INLINE), *reply = malloc(AOS_RPC_MAX_INLINE);
    CHECK(args != NULL && reply != NULL);
    for (int pe = 0; pe < n; pe++) {
        for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
            pattern_fill(args, sizes[s], (unsigned)(me * 31 + pe * 7 + (int)s));
            memset(reply, 0xee, AOS_RPC_MAX_INLINE);
            size_t got = 12345;
            CHECK_OK(aos_rpc(pe, id_echo, args, sizes[s], reply, AOS_RPC_MAX_INLINE, &got, NULL));
            CHECK(got == sizes[s]);
            for (size_t i = 0; i < sizes[s]; i++)
                CHECK(reply[i] == (uint8_t)(args[i] + 1));
            CHECK(sizes[s] == AOS_RPC_MAX_INLINE || reply[sizes[s]] == 0xee);
        }
    }
    free(args);
    free(reply);
}

/* 100 calls with events outstanding at once to the next PE. */
static void many_outstanding(int me, int n)
{
    enum { CALLS = 100 };
    aos_event_t *ev;
    CHECK_OK(aos_event_create(&ev));
    static uint64_t args[CALLS], replies[CALLS];
    static size_t lens[CALLS];
    int to = (me + 1) % n;
    for (int i = 0; i < CALLS; i++) {
        args[i] = (uint64_t)me << 32 | (uint64_t)i;
        lens[i] = 0;
        CHECK_OK(aos_rpc(to, id_echo, &args[i], sizeof args[i], &replies[i], sizeof replies[i],
                         &lens[i], ev));
    }
    CHECK_OK(aos_event_wait(ev));
    for (int i = 0; i < CALLS; i++) {
        uint64_t want = args[i];
        uint8_t *w = (uint8_t *)&want;
        for (size_t b = 0; b < sizeof want; b++)
            w[b] = (uint8_t)(w[b] + 1);
        CHECK(lens[i] == sizeof want && replies[i] == want);
    }
    CHECK_OK(aos_event_destroy(ev));
}

int main(void)
{
    /* Depth 1: every call from 15 PEs to PE 0 finds the queue full often. */
    setenv("AOS_RPC_QUEUE_DEPTH", "1", 1);
    CHECK_OK(aos_init());
    int me = aos_my_pe(), n = aos_n_pes();
    CHECK_OK(aos_rpc_register("echo", echo, 0, &id_echo));
    CHECK_OK(aos_rpc_register("add", add, 0, &id_add));
    CHECK_OK(aos_rpc_register("relay", relay, 0, &id_relay));
    CHECK_OK(aos_rpc_register("atomic_add", atomic_add, AOS_RPC_ANYWHERE, &id_atomic_add));
    CHECK_OK(aos_rpc_register("slow_add", add, 0, &id_slow_add));
    /* PE 1 registers another name at the same id: calls between PE 1 and
     * anyone else must be refused. */
    CHECK_OK(aos_rpc_register(me == 1 ? "odd-one" : "odd", odd, 0, &id_odd));
    CHECK_OK(aos_rpc_register("hash_big", hash_big, 0, &id_hash_big));
    CHECK_OK(aos_barrier_all());

    echo_all(me, n);
    CHECK_OK(aos_barrier_all());
    big_arguments(me, n);
    many_outstanding(me, n);
    CHECK_OK(aos_barrier_all());

    /* Posted adds to PE 0, then a blocking call: the queue is FIFO, so its
     * reply means my posted calls have run. */
    enum { POSTS = 500 };
    uint64_t one = 1;
    for (int i = 0; i < POSTS; i++)
        CHECK_OK(aos_rpc_post(0, id_slow_add, &one, sizeof one));
    int who = -1;
    size_t got = 0;
    uint64_t zero = 0;
    CHECK_OK(aos_rpc(0, id_add, &zero, sizeof zero, &who, sizeof who, &got, NULL));
    CHECK(who == 0 && got == sizeof who);
    CHECK_OK(aos_barrier_all());
    if (me == 0)
        CHECK(__atomic_load_n(&counter, __ATOMIC_RELAXED) == (uint64_t)POSTS * (uint64_t)n);
    CHECK_OK(aos_barrier_all());

    /* Nested: relay on the next PE calls add on the one after it. */
    __atomic_store_n(&counter, 0, __ATOMIC_RELAXED);
    CHECK_OK(aos_barrier_all());
    uint64_t two = 2;
    CHECK_OK(aos_rpc((me + 1) % n, id_relay, &two, sizeof two, &who, sizeof who, &got, NULL));
    CHECK(who == (me + 2) % n);
    CHECK_OK(aos_barrier_all());
    CHECK_OK(aos_barrier_all()); /* every relayed add has been answered */
    CHECK(__atomic_load_n(&counter, __ATOMIC_RELAXED) == 2);

    /* Fallback: everyone hammers PE 0 (queue depth 1) with an ANYWHERE
     * handler; PE 0 serves while it waits in the barrier. */
    CHECK_OK(aos_barrier_all());
    __atomic_store_n(&counter, 0, __ATOMIC_RELAXED);
    CHECK_OK(aos_barrier_all());
    enum { HITS = 2000 };
    if (me != 0)
        for (int i = 0; i < HITS; i++)
            CHECK_OK(aos_rpc(0, id_atomic_add, NULL, 0, NULL, 0, NULL, NULL));
    CHECK_OK(aos_barrier_all());
    if (me == 0)
        CHECK(__atomic_load_n(&counter, __ATOMIC_SEQ_CST) == (uint64_t)HITS * (uint64_t)(n - 1));
    aos_rpc_stats_t st;
    CHECK_OK(aos_rpc_stats(&st));
    if (n <= 4 || me < 2)
        printf("PE %d: rpc sent %llu, ran at caller %llu, served %llu\n", me,
               (unsigned long long)st.sent, (unsigned long long)st.fallback,
               (unsigned long long)st.served);

    /* Mismatch and bad input. */
    if (n > 1) {
        int other = me == 1 ? 0 : 1;
        CHECK_RC(aos_rpc(other, id_odd, NULL, 0, NULL, 0, NULL, NULL), AOS_ERR_RPC_MISMATCH);
        CHECK_RC(aos_rpc_post(other, id_odd, NULL, 0), AOS_ERR_RPC_MISMATCH);
    }
    uint8_t big[AOS_RPC_MAX_INLINE + 1] = {0};
    CHECK_RC(aos_rpc(n, id_echo, NULL, 0, NULL, 0, NULL, NULL), AOS_ERR_PE);
    CHECK_RC(aos_rpc(-1, id_echo, NULL, 0, NULL, 0, NULL, NULL), AOS_ERR_PE);
    CHECK_RC(aos_rpc(0, 9999, NULL, 0, NULL, 0, NULL, NULL), AOS_ERR_INVALID);
    CHECK_RC(aos_rpc(0, id_echo, big, sizeof big, NULL, 0, NULL, NULL), AOS_ERR_SIZE);
    CHECK_RC(aos_rpc(0, id_echo, NULL, 4, NULL, 0, NULL, NULL), AOS_ERR_NULL);
    CHECK_RC(aos_rpc(0, id_echo, big, 4, NULL, 4, NULL, NULL), AOS_ERR_NULL);
    CHECK_RC(aos_rpc_register(NULL, echo, 0, &id_odd), AOS_ERR_NULL);
    CHECK_RC(aos_rpc_register("x", echo, 42, &id_odd), AOS_ERR_INVALID);
    CHECK_RC(aos_rpc_stats(NULL), AOS_ERR_NULL);
    CHECK_RC(aos_rpc_localize(NULL, &counter, NULL), AOS_ERR_NULL);
    CHECK_OK(aos_progress());

    CHECK_OK(aos_finalize());
    CHECK_RC(aos_rpc(0, id_echo, NULL, 0, NULL, 0, NULL, NULL), AOS_ERR_NOT_INITIALIZED);
    CHECK_RC(aos_progress(), AOS_ERR_NOT_INITIALIZED);
    return 0;
}
