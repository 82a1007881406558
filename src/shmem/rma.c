/* RMA: typed, sized and byte put/get, p/g, strided iput/iget, non-blocking
 * forms; every one with and without a context.
 *
 * Completion: a put returns once its source may be reused (aos copies it
 * out before returning), a put_nbi may read its source until shmem_quiet;
 * both are complete at the target after shmem_quiet (or a barrier). Puts attach to the thread's event, so they need not wake the
 * target one by one: quiet, fence and this PE's own waits do that. Blocking
 * gets return with the data; non-blocking ones have it after quiet. The
 * default-context contiguous forms are shmem_inline.h's (fast.c). */
#include "shmem/shmem_internal.h"

/* nbi: src is read until shmem_quiet (aos_putmem_nbi); else it may be
 * reused on return. */
static __attribute__((noinline)) void put_slow(shmem_ctx_t ctx, void *dest, const void *src,
                                               size_t nbytes, int nbi, int pe, const char *fn)
{
    int wpe = shmem__ctx_pe(ctx, pe, fn);
    SHMEM__TRY(fn, (nbi ? aos_putmem_nbi : aos_putmem)(wpe, dest, src, nbytes, shmem__ev()));
}

static inline void put_bytes(shmem_ctx_t ctx, void *dest, const void *src, size_t nbytes,
                             int nbi, int pe, const char *fn)
{
    if (!shmem__fast(ctx)) {
        put_slow(ctx, dest, src, nbytes, nbi, pe, fn);
        return;
    }
    SHMEM__TRY(fn, (nbi ? aos_putmem_nbi : aos_putmem)(pe, dest, src, nbytes,
                                                       shmem__thread_ev));
}

/* ev NULL: blocking (the data is here on return). */
static inline void get_bytes(shmem_ctx_t ctx, void *dest, const void *src, size_t nbytes,
                             int pe, aos_event_t *ev, const char *fn)
{
    int wpe = shmem__ctx_pe(ctx, pe, fn);
    SHMEM__TRY(fn, aos_getmem(wpe, dest, src, nbytes, ev));
}

/* Strided: nelems elements of `size` bytes, dest every tst, source every sst
 * elements. */
static void strided(int put, shmem_ctx_t ctx, void *dest, const void *src, ptrdiff_t tst,
                    ptrdiff_t sst, size_t nelems, size_t size, int pe, const char *fn)
{
    if (nelems == 0)
        return;
    if (tst < 0 || sst < 0)
        shmem__fail(fn, AOS_ERR_INVALID);
    int wpe = shmem__ctx_pe(ctx, pe, fn);
    size_t dst_stride = (size_t)tst * size, src_stride = (size_t)sst * size;
    aos_block_t b = {.run = size,
                     .count = {nelems, 1},
                     .local_stride = {put ? src_stride : dst_stride, 0},
                     .remote_stride = {put ? dst_stride : src_stride, 0}};
    if (put)
        SHMEM__TRY(fn, aos_putmem_block(wpe, dest, src, &b, shmem__ev()));
    else
        SHMEM__TRY(fn, aos_getmem_block(wpe, dest, src, &b, NULL));
}

/* The context forms of put/get and their nbi forms, for pointers to PT and
 * elements of ESIZE bytes, under the names given (the default-context ones
 * are shmem_inline.h's, compiled in fast.c). */
#define CONTIGUOUS(PT, ESIZE, cput, cputn, cget, cgetn)                                    \
    void cput(shmem_ctx_t ctx, PT *dest, const PT *source, size_t nelems, int pe)          \
    {                                                                                      \
        put_bytes(ctx, dest, source, shmem__bytes_or_fail(nelems, ESIZE, __func__), 0, pe, \
                  __func__);                                                               \
    }                                                                                      \
    void cputn(shmem_ctx_t ctx, PT *dest, const PT *source, size_t nelems, int pe)         \
    {                                                                                      \
        put_bytes(ctx, dest, source, shmem__bytes_or_fail(nelems, ESIZE, __func__), 1, pe, \
                  __func__);                                                               \
    }                                                                                      \
    void cget(shmem_ctx_t ctx, PT *dest, const PT *source, size_t nelems, int pe)          \
    {                                                                                      \
        get_bytes(ctx, dest, source, shmem__bytes_or_fail(nelems, ESIZE, __func__), pe, NULL,          \
                  __func__);                                                               \
    }                                                                                      \
    void cgetn(shmem_ctx_t ctx, PT *dest, const PT *source, size_t nelems, int pe)         \
    {                                                                                      \
        get_bytes(ctx, dest, source, shmem__bytes_or_fail(nelems, ESIZE, __func__), pe, shmem__ev(),   \
                  __func__);                                                               \
    }

#define STRIDED(PT, ESIZE, iput, ciput, iget, ciget)                                       \
    void iput(PT *dest, const PT *source, ptrdiff_t tst, ptrdiff_t sst, size_t nelems,     \
              int pe)                                                                      \
    {                                                                                      \
        strided(1, SHMEM__DEFAULT, dest, source, tst, sst, nelems, ESIZE, pe, __func__); \
    }                                                                                      \
    void ciput(shmem_ctx_t ctx, PT *dest, const PT *source, ptrdiff_t tst, ptrdiff_t sst,  \
               size_t nelems, int pe)                                                      \
    {                                                                                      \
        strided(1, ctx, dest, source, tst, sst, nelems, ESIZE, pe, __func__);              \
    }                                                                                      \
    void iget(PT *dest, const PT *source, ptrdiff_t tst, ptrdiff_t sst, size_t nelems,     \
              int pe)                                                                      \
    {                                                                                      \
        strided(0, SHMEM__DEFAULT, dest, source, tst, sst, nelems, ESIZE, pe, __func__); \
    }                                                                                      \
    void ciget(shmem_ctx_t ctx, PT *dest, const PT *source, ptrdiff_t tst, ptrdiff_t sst,  \
               size_t nelems, int pe)                                                      \
    {                                                                                      \
        strided(0, ctx, dest, source, tst, sst, nelems, ESIZE, pe, __func__);              \
    }

#define TYPED(T, N)                                                                        \
    CONTIGUOUS(T, sizeof(T), shmem_ctx_##N##_put, shmem_ctx_##N##_put_nbi,                 \
               shmem_ctx_##N##_get, shmem_ctx_##N##_get_nbi)                               \
    STRIDED(T, sizeof(T), shmem_##N##_iput, shmem_ctx_##N##_iput, shmem_##N##_iget,        \
            shmem_ctx_##N##_iget)                                                          \
    void shmem_ctx_##N##_p(shmem_ctx_t ctx, T *dest, T value, int pe)                      \
    {                                                                                      \
        put_bytes(ctx, dest, &value, sizeof value, 0, pe, __func__);                       \
    }                                                                                      \
    T shmem_ctx_##N##_g(shmem_ctx_t ctx, const T *source, int pe)                          \
    {                                                                                      \
        T value;                                                                           \
        get_bytes(ctx, &value, source, sizeof value, pe, NULL, __func__);                  \
        return value;                                                                      \
    }
SHMEM__RMA_TYPES(TYPED)

#define SIZED(S)                                                                           \
    CONTIGUOUS(void, (S) / 8, shmem_ctx_put##S, shmem_ctx_put##S##_nbi, shmem_ctx_get##S,  \
               shmem_ctx_get##S##_nbi)                                                     \
    STRIDED(void, (S) / 8, shmem_iput##S, shmem_ctx_iput##S, shmem_iget##S, shmem_ctx_iget##S)
SHMEM__SIZES(SIZED)

CONTIGUOUS(void, 1, shmem_ctx_putmem, shmem_ctx_putmem_nbi, shmem_ctx_getmem,
           shmem_ctx_getmem_nbi)
