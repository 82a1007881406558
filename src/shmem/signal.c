/* Put with signal: the data, then a 64-bit atomic set or add on the
 * target's signal word. aos's outstanding-ordering rule (aos.h, remote
 * atomics) makes the atomic take effect only after this PE's earlier puts
 * to the same PE's symmetric memory are visible, so a target that sees the
 * signal sees the data, with no fence between the two. */
#include "shmem/shmem_internal.h"

static void put_signal(shmem_ctx_t ctx, void *dest, const void *source, size_t nelems,
                       size_t size, uint64_t *sig_addr, uint64_t signal, int sig_op, int pe,
                       const char *fn)
{
    if (sig_op != SHMEM_SIGNAL_SET && sig_op != SHMEM_SIGNAL_ADD)
        shmem__fail(fn, AOS_ERR_INVALID);
    size_t nbytes = shmem__bytes_or_fail(nelems, size, fn);
    int wpe = shmem__ctx_pe(ctx, pe, fn);
    SHMEM__TRY(fn, aos_putmem(wpe, dest, source, nbytes, shmem__ev()));
    SHMEM__TRY(fn, aos_amo_post_sym(wpe, sig_addr,
                                    sig_op == SHMEM_SIGNAL_SET ? AOS_AMO_SET : AOS_AMO_ADD,
                                    AOS_AMO_U64, signal));
}

#define SIGNAL_FORMS(PT, ESIZE, ps, cps, psn, cpsn)                                        \
    void ps(PT *dest, const PT *source, size_t nelems, uint64_t *sig_addr, uint64_t signal, \
            int sig_op, int pe)                                                            \
    {                                                                                      \
        put_signal(SHMEM__DEFAULT, dest, source, nelems, ESIZE, sig_addr, signal,       \
                   sig_op, pe, __func__);                                                  \
    }                                                                                      \
    void cps(shmem_ctx_t ctx, PT *dest, const PT *source, size_t nelems,                   \
             uint64_t *sig_addr, uint64_t signal, int sig_op, int pe)                      \
    {                                                                                      \
        put_signal(ctx, dest, source, nelems, ESIZE, sig_addr, signal, sig_op, pe,         \
                   __func__);                                                              \
    }                                                                                      \
    void psn(PT *dest, const PT *source, size_t nelems, uint64_t *sig_addr,                \
             uint64_t signal, int sig_op, int pe)                                          \
    {                                                                                      \
        put_signal(SHMEM__DEFAULT, dest, source, nelems, ESIZE, sig_addr, signal,       \
                   sig_op, pe, __func__);                                                  \
    }                                                                                      \
    void cpsn(shmem_ctx_t ctx, PT *dest, const PT *source, size_t nelems,                  \
              uint64_t *sig_addr, uint64_t signal, int sig_op, int pe)                     \
    {                                                                                      \
        put_signal(ctx, dest, source, nelems, ESIZE, sig_addr, signal, sig_op, pe,         \
                   __func__);                                                              \
    }

#define TYPED(T, N)                                                                        \
    SIGNAL_FORMS(T, sizeof(T), shmem_##N##_put_signal, shmem_ctx_##N##_put_signal,         \
                 shmem_##N##_put_signal_nbi, shmem_ctx_##N##_put_signal_nbi)
SHMEM__RMA_TYPES(TYPED)
#define SIZED(S)                                                                           \
    SIGNAL_FORMS(void, (S) / 8, shmem_put##S##_signal, shmem_ctx_put##S##_signal,          \
                 shmem_put##S##_signal_nbi, shmem_ctx_put##S##_signal_nbi)
SHMEM__SIZES(SIZED)
SIGNAL_FORMS(void, 1, shmem_putmem_signal, shmem_ctx_putmem_signal, shmem_putmem_signal_nbi,
             shmem_ctx_putmem_signal_nbi)

uint64_t shmem_signal_fetch(const uint64_t *sig_addr)
{
    uint64_t v = 0;
    /* Progress first, as the tests do (p2p.c): programs poll with this. */
    SHMEM__TRY(__func__, aos_progress());
    SHMEM__TRY(__func__, aos_amo_fetch_sym(shmem__st.me, (void *)sig_addr, AOS_AMO_READ,
                                           AOS_AMO_U64, 0, 0, &v, NULL));
    return v;
}

uint64_t shmem_signal_wait_until(uint64_t *sig_addr, int cmp, uint64_t cmp_value)
{
    for (;;) {
        SHMEM__TRY(__func__, aos_wait_until_u64(sig_addr, (aos_cmp_t)cmp, cmp_value));
        /* The value to return is one that satisfies the condition: read it
         * again and wait again if a later signal changed it meanwhile.
         * Acquire: pairs with the signalling PE's atomic, as the wait's did. */
        uint64_t v = __atomic_load_n(sig_addr, __ATOMIC_ACQUIRE);
        if (shmem__compare(v, cmp, cmp_value, 0))
            return v;
    }
}
