/* The typed forms of the native API on symmetric addresses and words:
 *  - the atomic shorthands' _sym_ forms, every operation and type, with
 *    exact old values and nothing written past a 32-bit result;
 *  - wait_until / wait_until_timed / test for all four integer types
 *    (signed comparisons, timeouts, a neighbour's put ending a wait);
 *  - zero-length puts and gets count on their event;
 *  - aos_rpc clamps a reply capacity above AOS_RPC_MAX_INLINE and writes
 *    *reply_len when reply is NULL. */
#include <string.h>

#include "../common/check.h"

#define MS 1000000ull

/* One symmetric cell per type, written only by my left neighbour, with a
 * guard after it that no operation may touch. */
#define TYPES(X) X(int32_t, i32) X(uint32_t, u32) X(int64_t, i64) X(uint64_t, u64)
#define SIGNED(T) (!((T)-1 > (T)1)) /* not "< 0": unsigned types would warn */
#define CELL(T, t) static struct { T cell, guard; } sym_##t;
TYPES(CELL)
#undef CELL

/* Every shorthand on the right neighbour's cell, in an order whose old
 * values are all known; a fetched 32-bit result must not spill over. */
#define AMO_SEQUENCE(T, t)                                                                 \
    static void amo_##t(int right)                                                         \
    {                                                                                      \
        struct { T v, guard; } r = {0, (T)0x5A5A5A5A};                                     \
        T *cell = &sym_##t.cell;                                                           \
        CHECK_OK(aos_poke_sym_##t(right, cell, (T)10));                                    \
        CHECK_OK(aos_peek_sym_##t(right, cell, &r.v, NULL)); CHECK(r.v == 10);             \
        CHECK_OK(aos_postadd_sym_##t(right, cell, (T)5));                                  \
        CHECK_OK(aos_fetch_add_sym_##t(right, cell, (T)3, &r.v, NULL)); CHECK(r.v == 15);  \
        CHECK_OK(aos_swap_sym_##t(right, cell, (T)100, &r.v, NULL)); CHECK(r.v == 18);     \
        CHECK_OK(aos_cas_sym_##t(right, cell, (T)100, (T)7, &r.v, NULL)); CHECK(r.v == 100); \
        CHECK_OK(aos_cas_sym_##t(right, cell, (T)1, (T)9, &r.v, NULL)); CHECK(r.v == 7);   \
        CHECK_OK(aos_post_and_sym_##t(right, cell, (T)6));                                 \
        CHECK_OK(aos_post_or_sym_##t(right, cell, (T)9));                                  \
        CHECK_OK(aos_post_xor_sym_##t(right, cell, (T)5));                                 \
        CHECK_OK(aos_fetch_and_sym_##t(right, cell, (T)12, &r.v, NULL)); CHECK(r.v == 10); \
        CHECK_OK(aos_fetch_or_sym_##t(right, cell, (T)1, &r.v, NULL)); CHECK(r.v == 8);    \
        CHECK_OK(aos_fetch_xor_sym_##t(right, cell, (T)3, &r.v, NULL)); CHECK(r.v == 9);   \
        CHECK_OK(aos_fetch_clear_sym_##t(right, cell, &r.v, NULL)); CHECK(r.v == 10);      \
        CHECK_OK(aos_postadd_sym_##t(right, cell, (T)-1)); /* all ones: the full width */  \
        aos_event_t *ev;                                                                   \
        CHECK_OK(aos_event_create(&ev));                                                   \
        CHECK_OK(aos_peek_sym_##t(right, cell, &r.v, ev));                                 \
        CHECK_OK(aos_event_wait(ev));                                                      \
        CHECK(r.v == (T)-1 && r.guard == (T)0x5A5A5A5A);                                   \
        CHECK_OK(aos_event_destroy(ev));                                                   \
        CHECK_RC(aos_fetch_add_sym_##t(right, (T *)(void *)((char *)cell + 1), 1, &r.v,    \
                                       NULL), AOS_ERR_ALIGN);                              \
        T local_var = 0;                                                                   \
        CHECK_RC(aos_postadd_sym_##t(right, &local_var, 1), AOS_ERR_NOT_SYMMETRIC);        \
    }
TYPES(AMO_SEQUENCE)
#undef AMO_SEQUENCE

/* wait/test forms of one type on my cell, which my left neighbour sets to
 * `value` after the barrier. */
#define WAIT_FORMS(T, t)                                                                   \
    static void wait_##t(int right)                                                        \
    {                                                                                      \
        T *cell = &sym_##t.cell;                                                           \
        *cell = (T)-5;                                                                     \
        CHECK_OK(aos_barrier_all());                                                       \
        int met = 7;                                                                       \
        CHECK_OK(aos_test_##t(cell, AOS_CMP_EQ, (T)-5, &met)); CHECK(met == 1);            \
        CHECK_OK(aos_test_##t(cell, AOS_CMP_LT, (T)0, &met));                              \
        CHECK(met == SIGNED(T)); /* signed types compare signed */                         \
        met = 7;                                                                           \
        CHECK_RC(aos_test_##t(NULL, AOS_CMP_EQ, 0, &met), AOS_ERR_NULL); CHECK(met == 7);  \
        CHECK_RC(aos_test_##t(cell, (aos_cmp_t)99, 0, &met), AOS_ERR_INVALID);             \
        CHECK_RC(aos_wait_until_timed_##t(cell, AOS_CMP_EQ, (T)1, 1 * MS), AOS_ERR_TIMEOUT); \
        CHECK_OK(aos_wait_until_timed_##t(cell, AOS_CMP_NE, (T)1, 1 * MS));                \
        CHECK_OK(aos_barrier_all()); /* everyone has read -5 before it changes */          \
        T v = (T)(40 + right);                                                             \
        CHECK_OK(aos_putmem(right, cell, &v, sizeof v, NULL));                             \
        T want = (T)(40 + aos_my_pe());                                                    \
        CHECK_OK(aos_wait_until_timed_##t(cell, AOS_CMP_EQ, want, 60000 * MS));            \
        CHECK_OK(aos_wait_until_##t(cell, AOS_CMP_GE, want));                              \
        CHECK_OK(aos_barrier_all());                                                       \
    }
TYPES(WAIT_FORMS)
#undef WAIT_FORMS

static char zbuf[64];

static void zero_length(int right)
{
    aos_seg_t *seg, *peer;
    CHECK_OK(aos_seg_create(26, 64, AOS_PROTO_RMA, &seg));
    CHECK_OK(aos_barrier_all());
    CHECK_OK(aos_seg_attach(right, 26, &peer));
    aos_event_t *ev;
    CHECK_OK(aos_event_create(&ev));
    char local[8] = "abcdefg";
    for (int i = 0; i < 8; i++) {
        CHECK_OK(aos_putmem(right, zbuf + i, local, 1, ev));
        CHECK_OK(aos_putmem(right, zbuf, local, 0, ev));
        CHECK_OK(aos_getmem(right, local, zbuf, 0, ev));
        CHECK_OK(aos_put(peer, 0, local, 0, ev));
        CHECK_OK(aos_get(local, peer, 0, 0, ev));
        CHECK_OK(aos_put(peer, (size_t)i, local, 1, ev));
        CHECK_OK(aos_getmem(right, local, zbuf, 0, ev));
        CHECK_OK(aos_put(peer, 64, local, 0, ev)); /* at the end: still in bounds */
    }
    CHECK_OK(aos_event_wait(ev));
    uint64_t count = 0;
    CHECK_OK(aos_event_count(ev, &count));
    CHECK(count == 64);
    CHECK_RC(aos_put(peer, 65, local, 0, ev), AOS_ERR_BOUNDS);
    CHECK_OK(aos_event_count(ev, &count));
    CHECK(count == 64);
    CHECK_OK(aos_event_destroy(ev));
    CHECK_OK(aos_barrier_all());
    CHECK_OK(aos_seg_detach(peer));
    CHECK_OK(aos_seg_destroy(seg));
}

static size_t echo(const aos_rpc_info_t *info, const void *args, size_t args_len, void *reply,
                   size_t reply_cap)
{
    (void)info;
    size_t n = args_len < reply_cap ? args_len : reply_cap;
    memcpy(reply, args, n);
    return n;
}

static char big_reply[2 * AOS_RPC_MAX_INLINE];

static void rpc_edges(int right)
{
    aos_rpc_id_t id;
    CHECK_OK(aos_rpc_register("api_forms_echo", echo, 0, &id));
    CHECK_OK(aos_barrier_all());
    char args[AOS_RPC_MAX_INLINE];
    pattern_fill(args, sizeof args, 26);
    size_t got = 0;
    /* a capacity past the inline limit is clamped to it */
    CHECK_OK(aos_rpc(right, id, args, sizeof args, big_reply, sizeof big_reply, &got, NULL));
    CHECK(got == sizeof args && memcmp(big_reply, args, got) == 0);
    /* no reply buffer: the reply's length (0) is still written */
    got = 999;
    CHECK_OK(aos_rpc(right, id, args, 16, NULL, 0, &got, NULL));
    CHECK(got == 0);
    aos_event_t *ev;
    CHECK_OK(aos_event_create(&ev));
    got = 999;
    CHECK_OK(aos_rpc(right, id, args, 16, NULL, 0, &got, ev));
    CHECK_OK(aos_event_wait(ev));
    CHECK(got == 0);
    got = 0;
    CHECK_OK(aos_rpc(right, id, args, 100, big_reply, sizeof big_reply, &got, ev));
    CHECK_OK(aos_event_wait(ev));
    CHECK(got == 100 && memcmp(big_reply, args, 100) == 0);
    CHECK_OK(aos_event_destroy(ev));
    CHECK_RC(aos_rpc(right, id, args, AOS_RPC_MAX_INLINE + 1, NULL, 0, &got, NULL), AOS_ERR_SIZE);
    CHECK_OK(aos_barrier_all());
}

int main(void)
{
    CHECK_OK(aos_init());
    int me = aos_my_pe(), n = aos_n_pes(), right = (me + 1) % n;
#define RUN(T, t) sym_##t.guard = (T)0x5A5A5A5A;
    TYPES(RUN)
#undef RUN
    CHECK_OK(aos_barrier_all());
#define RUN(T, t) amo_##t(right);
    TYPES(RUN)
#undef RUN
    CHECK_OK(aos_barrier_all());
#define RUN(T, t) CHECK(sym_##t.guard == (T)0x5A5A5A5A && sym_##t.cell == (T)-1);
    TYPES(RUN)
#undef RUN
#define RUN(T, t) wait_##t(right);
    TYPES(RUN)
#undef RUN
    zero_length(right);
    rpc_edges(right);
    if (me == 0)
        printf("api_forms: typed _sym atomics, wait/test forms, empty transfers, rpc edges "
               "on %d PEs\n", n);
    CHECK_OK(aos_finalize());
    return 0;
}
