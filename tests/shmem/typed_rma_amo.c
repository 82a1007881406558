/* Every typed, sized and mem RMA routine and every typed AMO, in its
 * context form (on a created context) and its default form, for every type
 * of the specification's tables (walked through shmem.h's own X-macro
 * tables): each PE writes into its right neighbour and reads from it, and
 * checks exact values. Built inline and with SHMEM_NO_INLINE. */
#include <string.h>

#include "check_shmem.h"

#define NEL 8
static int me, npes, right, left;
static shmem_ctx_t ctx;
static uint64_t sig;       /* put-with-signal adds 1 here per signalled put */
static uint64_t sig_want;  /* what sig holds once every signalled put is in */

/* Element i of PE pe's source: small enough for every type. */
#define VAL(T, pe, i) ((T)((pe) * NEL + (i) + 1))

/* ---- RMA, per type ---------------------------------------------------------- */

#define RMA_TYPE(T, N)                                                                     \
    static T dst_##N[2 * NEL], src_##N[2 * NEL];                                           \
    static void rma_##N(void)                                                              \
    {                                                                                      \
        for (int i = 0; i < 2 * NEL; i++)                                                  \
            src_##N[i] = VAL(T, me, i);                                                    \
        for (int form = 0; form < 12; form++) {                                            \
            memset(dst_##N, 0, sizeof dst_##N);                                            \
            shmem_barrier_all();                                                           \
            switch (form) {                                                                \
            case 0: shmem_ctx_##N##_put(ctx, dst_##N, src_##N, NEL, right); break;         \
            case 1:                                                                        \
                shmem_ctx_##N##_put_nbi(ctx, dst_##N, src_##N, NEL, right);                \
                shmem_ctx_quiet(ctx);                                                      \
                break;                                                                     \
            case 2:                                                                        \
                for (int i = 0; i < NEL; i++)                                              \
                    shmem_ctx_##N##_p(ctx, &dst_##N[i], src_##N[i], right);                \
                break;                                                                     \
            case 3: shmem_ctx_##N##_iput(ctx, dst_##N, src_##N, 2, 1, NEL, right); break;  \
            case 4: shmem_##N##_iput(dst_##N, src_##N, 2, 1, NEL, right); break;           \
            case 5:                                                                        \
                shmem_ctx_##N##_put_signal(ctx, dst_##N, src_##N, NEL, &sig, 1,            \
                                           SHMEM_SIGNAL_ADD, right);                       \
                break;                                                                     \
            case 6:                                                                        \
                shmem_ctx_##N##_put_signal_nbi(ctx, dst_##N, src_##N, NEL, &sig, 1,        \
                                               SHMEM_SIGNAL_ADD, right);                   \
                shmem_ctx_quiet(ctx);                                                      \
                break;                                                                     \
            case 7:                                                                        \
                shmem_##N##_put_signal(dst_##N, src_##N, NEL, &sig, 1, SHMEM_SIGNAL_ADD,   \
                                       right);                                             \
                break;                                                                     \
            case 8:                                                                        \
                shmem_##N##_put_signal_nbi(dst_##N, src_##N, NEL, &sig, 1,                 \
                                           SHMEM_SIGNAL_ADD, right);                       \
                shmem_quiet();                                                             \
                break;                                                                     \
            case 9: shmem_##N##_put(dst_##N, src_##N, NEL, right); break;                  \
            case 10:                                                                       \
                shmem_##N##_put_nbi(dst_##N, src_##N, NEL, right);                         \
                shmem_quiet();                                                             \
                break;                                                                     \
            default:                                                                       \
                for (int i = 0; i < NEL; i++)                                              \
                    shmem_##N##_p(&dst_##N[i], src_##N[i], right);                         \
                break;                                                                     \
            }                                                                              \
            shmem_barrier_all();                                                           \
            int stride = form == 3 || form == 4 ? 2 : 1;                                   \
            for (int i = 0; i < NEL; i++)                                                  \
                CHECK(dst_##N[stride * i] == VAL(T, left, i));                             \
        }                                                                                  \
        sig_want += 4;                                                                     \
        CHECK(shmem_signal_fetch(&sig) == sig_want);                                       \
        T got[2 * NEL];                                                                    \
        for (int form = 0; form < 8; form++) {                                             \
            memset(got, 0, sizeof got);                                                    \
            switch (form) {                                                                \
            case 0: shmem_ctx_##N##_get(ctx, got, src_##N, NEL, right); break;             \
            case 1:                                                                        \
                shmem_ctx_##N##_get_nbi(ctx, got, src_##N, NEL, right);                    \
                shmem_ctx_quiet(ctx);                                                      \
                break;                                                                     \
            case 2:                                                                        \
                for (int i = 0; i < NEL; i++)                                              \
                    got[i] = shmem_ctx_##N##_g(ctx, &src_##N[i], right);                   \
                break;                                                                     \
            case 3: shmem_ctx_##N##_iget(ctx, got, src_##N, 1, 2, NEL, right); break;      \
            case 4: shmem_##N##_iget(got, src_##N, 1, 2, NEL, right); break;               \
            case 5: shmem_##N##_get(got, src_##N, NEL, right); break;                      \
            case 6:                                                                        \
                shmem_##N##_get_nbi(got, src_##N, NEL, right);                             \
                shmem_quiet();                                                             \
                break;                                                                     \
            default:                                                                       \
                for (int i = 0; i < NEL; i++)                                              \
                    got[i] = shmem_##N##_g(&src_##N[i], right);                            \
                break;                                                                     \
            }                                                                              \
            int stride = form == 3 || form == 4 ? 2 : 1;                                   \
            for (int i = 0; i < NEL; i++)                                                  \
                CHECK(got[i] == VAL(T, right, stride * i));                                \
        }                                                                                  \
        shmem_barrier_all();                                                               \
    }
SHMEM__RMA_TYPES(RMA_TYPE)
#undef RMA_TYPE

/* ---- sized and mem RMA -------------------------------------------------------- */

static unsigned char bdst[2 * NEL * 16], bsrc[2 * NEL * 16];

/* Element i of PE pe's source, `size` bytes: byte b of it. */
static unsigned char byte_of(int pe, size_t i, size_t b)
{
    return (unsigned char)(pe * 31 + i * 7 + b + 1);
}

/* dst (elements of `size` bytes, every stride-th) holds PE pe's first NEL
 * source elements. */
static void check_bytes(const unsigned char *dst, size_t size, int stride, int pe)
{
    for (size_t i = 0; i < NEL; i++)
        for (size_t b = 0; b < size; b++)
            CHECK(dst[i * (size_t)stride * size + b] == byte_of(pe, i, b));
}

#define SIZED(S)                                                                           \
    static void sized_##S(void)                                                            \
    {                                                                                      \
        const size_t size = S / 8;                                                         \
        for (size_t i = 0; i < 2 * NEL; i++)                                               \
            for (size_t b = 0; b < size; b++)                                              \
                bsrc[i * size + b] = byte_of(me, i, b);                                    \
        for (int form = 0; form < 9; form++) {                                             \
            memset(bdst, 0, sizeof bdst);                                                  \
            shmem_barrier_all();                                                           \
            switch (form) {                                                                \
            case 0: shmem_ctx_put##S(ctx, bdst, bsrc, NEL, right); break;                  \
            case 1:                                                                        \
                shmem_ctx_put##S##_nbi(ctx, bdst, bsrc, NEL, right);                       \
                shmem_ctx_quiet(ctx);                                                      \
                break;                                                                     \
            case 2: shmem_ctx_iput##S(ctx, bdst, bsrc, 2, 1, NEL, right); break;           \
            case 3: shmem_iput##S(bdst, bsrc, 2, 1, NEL, right); break;                    \
            case 4:                                                                        \
                shmem_ctx_put##S##_signal(ctx, bdst, bsrc, NEL, &sig, 1, SHMEM_SIGNAL_ADD, \
                                          right);                                          \
                break;                                                                     \
            case 5:                                                                        \
                shmem_ctx_put##S##_signal_nbi(ctx, bdst, bsrc, NEL, &sig, 1,               \
                                              SHMEM_SIGNAL_ADD, right);                    \
                shmem_ctx_quiet(ctx);                                                      \
                break;                                                                     \
            case 6:                                                                        \
                shmem_put##S##_signal(bdst, bsrc, NEL, &sig, 1, SHMEM_SIGNAL_ADD, right);  \
                break;                                                                     \
            case 7:                                                                        \
                shmem_put##S##_signal_nbi(bdst, bsrc, NEL, &sig, 1, SHMEM_SIGNAL_ADD,      \
                                          right);                                          \
                shmem_quiet();                                                             \
                break;                                                                     \
            default:                                                                       \
                shmem_put##S##_nbi(bdst, bsrc, NEL, right);                                \
                shmem_quiet();                                                             \
                break;                                                                     \
            }                                                                              \
            shmem_barrier_all();                                                           \
            check_bytes(bdst, size, form == 2 || form == 3 ? 2 : 1, left);                 \
        }                                                                                  \
        sig_want += 4;                                                                     \
        CHECK(shmem_signal_fetch(&sig) == sig_want);                                       \
        unsigned char got[2 * NEL * 16];                                                   \
        for (int form = 0; form < 6; form++) {                                             \
            memset(got, 0, sizeof got);                                                    \
            switch (form) {                                                                \
            case 0: shmem_ctx_get##S(ctx, got, bsrc, NEL, right); break;                   \
            case 1:                                                                        \
                shmem_ctx_get##S##_nbi(ctx, got, bsrc, NEL, right);                        \
                shmem_ctx_quiet(ctx);                                                      \
                break;                                                                     \
            case 2: shmem_ctx_iget##S(ctx, got, bsrc, 1, 1, NEL, right); break;            \
            case 3: shmem_iget##S(got, bsrc, 1, 1, NEL, right); break;                     \
            case 4: shmem_get##S(got, bsrc, NEL, right); break;                            \
            default:                                                                       \
                shmem_get##S##_nbi(got, bsrc, NEL, right);                                 \
                shmem_quiet();                                                             \
                break;                                                                     \
            }                                                                              \
            check_bytes(got, size, 1, right);                                              \
        }                                                                                  \
        shmem_barrier_all();                                                               \
    }
SHMEM__SIZES(SIZED)
#undef SIZED

static void mem_forms(void)
{
    const size_t len = NEL;
    for (size_t i = 0; i < len; i++)
        bsrc[i] = byte_of(me, i, 0);
    for (int form = 0; form < 6; form++) {
        memset(bdst, 0, sizeof bdst);
        shmem_barrier_all();
        switch (form) {
        case 0: shmem_ctx_putmem(ctx, bdst, bsrc, len, right); break;
        case 1:
            shmem_ctx_putmem_nbi(ctx, bdst, bsrc, len, right);
            shmem_ctx_quiet(ctx);
            break;
        case 2: shmem_ctx_putmem_signal(ctx, bdst, bsrc, len, &sig, 1, SHMEM_SIGNAL_ADD, right); break;
        case 3:
            shmem_ctx_putmem_signal_nbi(ctx, bdst, bsrc, len, &sig, 1, SHMEM_SIGNAL_ADD, right);
            shmem_ctx_quiet(ctx);
            break;
        case 4:
            shmem_putmem_signal_nbi(bdst, bsrc, len, &sig, 1, SHMEM_SIGNAL_ADD, right);
            shmem_quiet();
            break;
        default: shmem_putmem(bdst, bsrc, len, right); break;
        }
        shmem_fence();
        shmem_barrier_all();
        check_bytes(bdst, 1, 1, left);
    }
    sig_want += 3;
    CHECK(shmem_signal_fetch(&sig) == sig_want);
    unsigned char got[NEL];
    for (int form = 0; form < 4; form++) {
        memset(got, 0, sizeof got);
        if (form == 0)
            shmem_ctx_getmem(ctx, got, bsrc, len, right);
        else if (form == 1)
            shmem_ctx_getmem_nbi(ctx, got, bsrc, len, right);
        else if (form == 2)
            shmem_getmem(got, bsrc, len, right);
        else
            shmem_getmem_nbi(got, bsrc, len, right);
        shmem_ctx_fence(ctx);
        shmem_quiet();
        check_bytes(got, 1, 1, right);
    }
    shmem_barrier_all();
}

/* ---- AMOs, per type --------------------------------------------------------------- */

/* Each PE works on its right neighbour's cells (one writer per cell). */
#define AMO_EXT(T, N)                                                                      \
    static T ext_##N;                                                                      \
    static void amo_ext_##N(void)                                                          \
    {                                                                                      \
        T f = 0;                                                                           \
        shmem_ctx_##N##_atomic_set(ctx, &ext_##N, (T)3, right);                            \
        CHECK(shmem_ctx_##N##_atomic_fetch(ctx, &ext_##N, right) == (T)3);                 \
        CHECK(shmem_ctx_##N##_atomic_swap(ctx, &ext_##N, (T)5, right) == (T)3);            \
        shmem_ctx_##N##_atomic_fetch_nbi(ctx, &f, &ext_##N, right);                        \
        shmem_ctx_quiet(ctx);                                                              \
        CHECK(f == (T)5);                                                                  \
        shmem_ctx_##N##_atomic_swap_nbi(ctx, &f, &ext_##N, (T)6, right);                   \
        shmem_ctx_quiet(ctx);                                                              \
        CHECK(f == (T)5);                                                                  \
        shmem_##N##_atomic_set(&ext_##N, (T)7, right);                                     \
        CHECK(shmem_##N##_atomic_fetch(&ext_##N, right) == (T)7);                          \
        CHECK(shmem_##N##_atomic_swap(&ext_##N, (T)8, right) == (T)7);                     \
        shmem_##N##_atomic_fetch_nbi(&f, &ext_##N, right);                                 \
        shmem_quiet();                                                                     \
        CHECK(f == (T)8);                                                                  \
        shmem_##N##_atomic_swap_nbi(&f, &ext_##N, (T)9, right);                            \
        shmem_quiet();                                                                     \
        CHECK(f == (T)8);                                                                  \
        shmem_barrier_all();                                                               \
        CHECK(ext_##N == (T)9);                                                            \
    }
SHMEM__AMO_STD_TYPES(AMO_EXT)
SHMEM__AMO_EXT_ONLY_TYPES(AMO_EXT)
#undef AMO_EXT

#define AMO_STD(T, N)                                                                      \
    static T std_##N;                                                                      \
    static void amo_std_##N(void)                                                          \
    {                                                                                      \
        T f = 0;                                                                           \
        shmem_ctx_##N##_atomic_set(ctx, &std_##N, (T)10, right);                           \
        CHECK(shmem_ctx_##N##_atomic_compare_swap(ctx, &std_##N, (T)10, (T)20, right) == (T)10); \
        CHECK(shmem_ctx_##N##_atomic_compare_swap(ctx, &std_##N, (T)10, (T)30, right) == (T)20); \
        CHECK(shmem_ctx_##N##_atomic_fetch_inc(ctx, &std_##N, right) == (T)20);            \
        shmem_ctx_##N##_atomic_inc(ctx, &std_##N, right);                                  \
        CHECK(shmem_ctx_##N##_atomic_fetch_add(ctx, &std_##N, (T)5, right) == (T)22);      \
        shmem_ctx_##N##_atomic_add(ctx, &std_##N, (T)3, right);                            \
        shmem_ctx_##N##_atomic_compare_swap_nbi(ctx, &f, &std_##N, (T)30, (T)40, right);   \
        shmem_ctx_quiet(ctx);                                                              \
        CHECK(f == (T)30);                                                                 \
        shmem_ctx_##N##_atomic_fetch_inc_nbi(ctx, &f, &std_##N, right);                    \
        shmem_ctx_quiet(ctx);                                                              \
        CHECK(f == (T)40);                                                                 \
        shmem_ctx_##N##_atomic_fetch_add_nbi(ctx, &f, &std_##N, (T)9, right);              \
        shmem_ctx_quiet(ctx);                                                              \
        CHECK(f == (T)41);                                                                 \
        CHECK(shmem_##N##_atomic_compare_swap(&std_##N, (T)50, (T)60, right) == (T)50);    \
        CHECK(shmem_##N##_atomic_fetch_inc(&std_##N, right) == (T)60);                     \
        shmem_##N##_atomic_inc(&std_##N, right);                                           \
        CHECK(shmem_##N##_atomic_fetch_add(&std_##N, (T)2, right) == (T)62);               \
        shmem_##N##_atomic_add(&std_##N, (T)1, right);                                     \
        shmem_##N##_atomic_compare_swap_nbi(&f, &std_##N, (T)65, (T)70, right);            \
        shmem_##N##_atomic_fetch_inc_nbi(&f, &std_##N, right);                             \
        shmem_quiet();                                                                     \
        CHECK(f == (T)70);                                                                 \
        shmem_##N##_atomic_fetch_add_nbi(&f, &std_##N, (T)4, right);                       \
        shmem_quiet();                                                                     \
        CHECK(f == (T)71);                                                                 \
        shmem_barrier_all();                                                               \
        CHECK(std_##N == (T)75);                                                           \
    }
SHMEM__AMO_STD_TYPES(AMO_STD)
#undef AMO_STD

#define AMO_BIT(T, N)                                                                      \
    static T bit_##N;                                                                      \
    static void amo_bit_##N(void)                                                          \
    {                                                                                      \
        T f = 0;                                                                           \
        shmem_ctx_##N##_atomic_set(ctx, &bit_##N, (T)0xF0, right);                         \
        CHECK(shmem_ctx_##N##_atomic_fetch_and(ctx, &bit_##N, (T)0x3C, right) == (T)0xF0); \
        CHECK(shmem_ctx_##N##_atomic_fetch_or(ctx, &bit_##N, (T)0x03, right) == (T)0x30);  \
        CHECK(shmem_ctx_##N##_atomic_fetch_xor(ctx, &bit_##N, (T)0x11, right) == (T)0x33); \
        shmem_ctx_##N##_atomic_and(ctx, &bit_##N, (T)0x0F, right);    /* 0x22 -> 0x02 */   \
        shmem_ctx_##N##_atomic_or(ctx, &bit_##N, (T)0x40, right);     /* 0x42 */           \
        shmem_ctx_##N##_atomic_xor(ctx, &bit_##N, (T)0x03, right);    /* 0x41 */           \
        shmem_ctx_##N##_atomic_fetch_and_nbi(ctx, &f, &bit_##N, (T)0x4F, right);           \
        shmem_ctx_quiet(ctx);                                                              \
        CHECK(f == (T)0x41);                                                               \
        shmem_ctx_##N##_atomic_fetch_or_nbi(ctx, &f, &bit_##N, (T)0x80, right);            \
        shmem_ctx_quiet(ctx);                                                              \
        CHECK(f == (T)0x41);                                                               \
        shmem_ctx_##N##_atomic_fetch_xor_nbi(ctx, &f, &bit_##N, (T)0x01, right);           \
        shmem_ctx_quiet(ctx);                                                              \
        CHECK(f == (T)0xC1);                                                               \
        CHECK(shmem_##N##_atomic_fetch_and(&bit_##N, (T)0xF0, right) == (T)0xC0);          \
        CHECK(shmem_##N##_atomic_fetch_or(&bit_##N, (T)0x05, right) == (T)0xC0);           \
        CHECK(shmem_##N##_atomic_fetch_xor(&bit_##N, (T)0x0F, right) == (T)0xC5);          \
        shmem_##N##_atomic_and(&bit_##N, (T)0x3F, right);             /* 0xCA -> 0x0A */   \
        shmem_##N##_atomic_or(&bit_##N, (T)0x20, right);              /* 0x2A */           \
        shmem_##N##_atomic_xor(&bit_##N, (T)0x02, right);             /* 0x28 */           \
        shmem_##N##_atomic_fetch_and_nbi(&f, &bit_##N, (T)0xFF, right);                    \
        shmem_##N##_atomic_fetch_or_nbi(&f, &bit_##N, (T)0x01, right);                     \
        shmem_quiet();                                                                     \
        CHECK(f == (T)0x28);                                                               \
        shmem_##N##_atomic_fetch_xor_nbi(&f, &bit_##N, (T)0x29, right);                    \
        shmem_quiet();                                                                     \
        CHECK(f == (T)0x29);                                                               \
        shmem_barrier_all();                                                               \
        CHECK(bit_##N == (T)0);                                                            \
    }
SHMEM__AMO_BIT_TYPES(AMO_BIT)
#undef AMO_BIT

int main(void)
{
    shmem_init();
    me = shmem_my_pe();
    npes = shmem_n_pes();
    right = (me + 1) % npes;
    left = (me + npes - 1) % npes;
    CHECK(shmem_ctx_create(SHMEM_CTX_PRIVATE, &ctx) == 0);
#define RUN(T, N) rma_##N();
    SHMEM__RMA_TYPES(RUN)
#undef RUN
#define RUN(S) sized_##S();
    SHMEM__SIZES(RUN)
#undef RUN
    mem_forms();
#define RUN(T, N) amo_ext_##N();
    SHMEM__AMO_STD_TYPES(RUN)
    SHMEM__AMO_EXT_ONLY_TYPES(RUN)
#undef RUN
#define RUN(T, N) amo_std_##N();
    SHMEM__AMO_STD_TYPES(RUN)
#undef RUN
#define RUN(T, N) amo_bit_##N();
    SHMEM__AMO_BIT_TYPES(RUN)
#undef RUN
    shmem_ctx_destroy(ctx);
    shmem_barrier_all();
    if (me == 0)
        printf("typed_rma_amo: every RMA and AMO form and type on %d PEs\n", npes);
    shmem_finalize();
    return 0;
}
