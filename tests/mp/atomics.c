/* Remote atomics: exact results of concurrent operations from every PE on
 * one word, for every operation and type, blocking and with events, on
 * segments and symmetric addresses; and the bad-input cases. */
#include <string.h>

#include "../common/check.h"

#define N 2000

static uint64_t sym_word; /* symmetric static */
static int32_t sym_i32;
static uint64_t seen[64];

int main(void)
{
    CHECK_OK(aos_init());
    int me = aos_my_pe(), n = aos_n_pes();
    aos_seg_t *mine, *root;
    CHECK_OK(aos_seg_create(77, 4096, AOS_PROTO_ATOMIC | AOS_PROTO_LOADSTORE, &mine));
    CHECK_OK(aos_barrier_all());
    CHECK_OK(aos_seg_attach(0, 77, &root));
    void *rootmem;
    aos_event_t *ev;
    CHECK_OK(aos_event_create(&ev));

    /* fetch-add u64: every PE adds 1 N times; old values from one PE rise. */
    uint64_t prev = 0, old = 0;
    for (int i = 0; i < N; i++) {
        CHECK_OK(aos_fetch_add_u64(root, 0, 1, &old, i % 2 ? ev : NULL));
        if (i % 2)
            CHECK_OK(aos_event_wait(ev));
        CHECK(i == 0 || old > prev);
        prev = old;
    }
    /* posted adds of a negative i32 and a wrapping u32 */
    for (int i = 0; i < N; i++) {
        CHECK_OK(aos_postadd_i32(root, 8, -3));
        CHECK_OK(aos_postadd_u32(root, 12, 0x80000001u));
        CHECK_OK(aos_postadd_i64(root, 16, (int64_t)me - 1000000000000LL));
    }
    /* CAS-loop increments on a separate word */
    for (int i = 0; i < N / 4; i++) {
        uint64_t cur = 0, seen_v;
        for (;;) {
            CHECK_OK(aos_cas_u64(root, 24, cur, cur + 1, &seen_v, NULL));
            if (seen_v == cur)
                break;
            cur = seen_v;
        }
    }
    /* bitwise: each PE sets its bit, flips bit 63 twice, clears bit 62 */
    CHECK_OK(aos_post_or_u64(root, 32, (uint64_t)1 << (me % 62)));
    CHECK_OK(aos_post_xor_u64(root, 40, (uint64_t)1 << 63));
    CHECK_OK(aos_post_xor_u64(root, 40, (uint64_t)1 << 63));
    CHECK_OK(aos_fetch_or_u64(root, 48, (uint64_t)3 << 62, &old, NULL));
    CHECK_OK(aos_post_and_u64(root, 48, ~((uint64_t)1 << 62)));
    /* swap: each PE swaps its number + 1 into one word; PE 0 collects olds */
    uint32_t got = 0;
    CHECK_OK(aos_swap_u32(root, 56, (uint32_t)me + 1, &got, ev));
    CHECK_OK(aos_event_wait(ev));
    uint64_t g64 = got;
    CHECK_OK(aos_putmem(0, &seen[me], &g64, sizeof g64, NULL));
    CHECK_OK(aos_barrier_all());

    if (me == 0) {
        CHECK_OK(aos_seg_ptr(root, 0, &rootmem));
        uint8_t *m = rootmem;
        uint64_t v64;
        int32_t v32;
        uint32_t u32;
        int64_t i64;
        CHECK_OK(aos_peek_u64(root, 0, &v64, NULL));
        CHECK(v64 == (uint64_t)n * N);
        CHECK_OK(aos_peek_i32(root, 8, &v32, ev));
        CHECK_OK(aos_event_wait(ev));
        CHECK(v32 == -3 * N * n);
        memcpy(&u32, m + 12, 4);
        CHECK(u32 == (uint32_t)(0x80000001u * (uint32_t)(N * n)));
        memcpy(&i64, m + 16, 8);
        int64_t want = 0;
        for (int p = 0; p < n; p++)
            want += ((int64_t)p - 1000000000000LL) * N;
        CHECK(i64 == want);
        CHECK_OK(aos_peek_u64(root, 24, &v64, NULL));
        CHECK(v64 == (uint64_t)n * (N / 4));
        uint64_t bits = 0;
        for (int p = 0; p < n; p++)
            bits |= (uint64_t)1 << (p % 62);
        CHECK_OK(aos_peek_u64(root, 32, &v64, NULL));
        CHECK(v64 == bits);
        CHECK_OK(aos_peek_u64(root, 40, &v64, NULL));
        CHECK(v64 == 0);
        CHECK_OK(aos_peek_u64(root, 48, &v64, NULL));
        CHECK(v64 == (uint64_t)1 << 63);
        /* swap: the olds and the final value are 0..n, each exactly once */
        uint32_t last;
        CHECK_OK(aos_fetch_clear_u32(root, 56, &last, NULL));
        uint64_t mask = (uint64_t)1 << last;
        for (int p = 0; p < n; p++)
            mask |= (uint64_t)1 << seen[p];
        CHECK(mask == ((uint64_t)1 << (n + 1)) - 1);
        CHECK_OK(aos_peek_u32(root, 56, &last, NULL));
        CHECK(last == 0);
    }
    CHECK_OK(aos_barrier_all());

    /* symmetric forms: everyone adds its number to PE 0's static word */
    CHECK_OK(aos_amo_post_sym(0, &sym_word, AOS_AMO_ADD, AOS_AMO_U64, (uint64_t)me + 1));
    int32_t o32;
    CHECK_OK(aos_amo_fetch_sym(n - 1, &sym_i32, AOS_AMO_ADD, AOS_AMO_I32, (uint64_t)-1, 0, &o32,
                               NULL));
    CHECK_OK(aos_barrier_all());
    if (me == 0)
        CHECK(sym_word == (uint64_t)n * (n + 1) / 2);
    if (me == n - 1)
        CHECK(sym_i32 == -n);
    /* poke then peek across PEs */
    CHECK_OK(aos_barrier_all());
    CHECK_OK(aos_amo_post_sym((me + 1) % n, &sym_word, AOS_AMO_SET, AOS_AMO_U64,
                              0xfeed0000u + (uint64_t)me));
    CHECK_OK(aos_barrier_all());
    CHECK(sym_word == 0xfeed0000u + (uint64_t)((me + n - 1) % n));
    uint64_t peeked;
    CHECK_OK(aos_amo_fetch_sym((me + 1) % n, &sym_word, AOS_AMO_READ, AOS_AMO_U64, 0, 0, &peeked,
                               NULL));
    CHECK(peeked == 0xfeed0000u + (uint64_t)me);

    /* bad input */
    aos_seg_t *rma_only, *r_rma;
    CHECK_OK(aos_seg_create(78, 64, AOS_PROTO_RMA, &rma_only));
    CHECK_OK(aos_barrier_all());
    CHECK_OK(aos_seg_attach(0, 78, &r_rma));
    CHECK_RC(aos_postadd_u64(root, 4, 1), AOS_ERR_ALIGN);
    CHECK_RC(aos_postadd_u32(root, 2, 1), AOS_ERR_ALIGN);
    CHECK_RC(aos_fetch_add_u64(root, 3, 1, &old, NULL), AOS_ERR_ALIGN);
    CHECK_RC(aos_postadd_u64(r_rma, 0, 1), AOS_ERR_PROTOCOL);
    CHECK_RC(aos_postadd_u64(root, 4096, 1), AOS_ERR_BOUNDS);
    CHECK_RC(aos_postadd_u64(root, 4092, 1), AOS_ERR_BOUNDS);
    CHECK_OK(aos_postadd_u32(root, 4092, 0)); /* the last 32-bit word is fine */
    CHECK_RC(aos_amo_post(root, 0, AOS_AMO_ADD, (aos_amo_type_t)9, 1), AOS_ERR_INVALID);
    CHECK_RC(aos_amo_post(root, 0, AOS_AMO_CAS, AOS_AMO_U64, 1), AOS_ERR_INVALID);
    CHECK_RC(aos_amo_post(root, 0, AOS_AMO_READ, AOS_AMO_U64, 1), AOS_ERR_INVALID);
    CHECK_RC(aos_amo_post(root, 0, (aos_amo_op_t)42, AOS_AMO_U64, 1), AOS_ERR_INVALID);
    CHECK_RC(aos_amo_fetch(root, 0, AOS_AMO_ADD, AOS_AMO_U64, 1, 0, NULL, NULL), AOS_ERR_NULL);
    CHECK_RC(aos_postadd_u64(NULL, 0, 1), AOS_ERR_NULL);
    int on_stack = 0;
    CHECK_RC(aos_amo_post_sym(0, &on_stack, AOS_AMO_ADD, AOS_AMO_I32, 1), AOS_ERR_NOT_SYMMETRIC);
    CHECK_RC(aos_amo_post_sym(n, &sym_word, AOS_AMO_ADD, AOS_AMO_U64, 1), AOS_ERR_PE);
    CHECK_RC(aos_amo_post_sym(0, (char *)&sym_word + 4, AOS_AMO_ADD, AOS_AMO_U64, 1),
             AOS_ERR_ALIGN);
    old = 12345;
    CHECK_RC(aos_fetch_add_u64(root, 4, 1, &old, NULL), AOS_ERR_ALIGN);
    CHECK(old == 12345); /* untouched on failure */

    CHECK_OK(aos_barrier_all());
    CHECK_OK(aos_seg_detach(r_rma));
    CHECK_OK(aos_seg_destroy(rma_only));
    CHECK_OK(aos_event_destroy(ev));
    CHECK_OK(aos_seg_detach(root));
    CHECK_OK(aos_seg_destroy(mine));
    CHECK_OK(aos_finalize());
    return 0;
}
