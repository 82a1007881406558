/* Atomic memory operations: standard, extended and bitwise, blocking and
 * non-blocking fetching forms, with and without a context, and the
 * deprecated names. Every type is 32 or 64 bits wide and travels as an
 * unsigned word of its width (floats by their bit pattern); aos does the
 * operation with one CPU atomic on the target's memory. */
#include "shmem/shmem_internal.h"

_Static_assert(sizeof(int) == 4 && sizeof(long long) == 8 && sizeof(long) == 8 &&
                   sizeof(size_t) == 8 && sizeof(ptrdiff_t) == 8 && sizeof(float) == 4 &&
                   sizeof(double) == 8,
               "AMO types are 32 or 64 bits wide (an LP64 platform)");

static __attribute__((noinline)) void post_slow(shmem_ctx_t ctx, void *dest, aos_amo_op_t op,
                                                size_t size, uint64_t operand, int pe,
                                                const char *fn)
{
    int wpe = shmem__ctx_pe(ctx, pe, fn);
    SHMEM__TRY(fn, aos_amo_post_sym(wpe, dest, op, shmem__amo_type(size), operand));
}

static inline void amo_post(shmem_ctx_t ctx, void *dest, aos_amo_op_t op, size_t size,
                            uint64_t operand, int pe, const char *fn)
{
    if (__builtin_expect(ctx != SHMEM__DEFAULT && (ctx == NULL || ctx->team->world_pe != NULL),
                         0)) {
        post_slow(ctx, dest, op, size, operand, pe, fn);
        return;
    }
    SHMEM__TRY(fn, aos_amo_post_sym(pe, dest, op, shmem__amo_type(size), operand));
}

/* ev NULL: the old value is in *result on return; else once ev completes. */
static inline void amo_fetch(shmem_ctx_t ctx, const void *dest, aos_amo_op_t op, size_t size,
                             uint64_t operand, uint64_t compare, void *result, aos_event_t *ev,
                             int pe, const char *fn)
{
    int wpe = shmem__ctx_pe(ctx, pe, fn);
    SHMEM__TRY(fn, aos_amo_fetch_sym(wpe, (void *)dest, op, shmem__amo_type(size), operand,
                                     compare, result, ev));
}

/* The context forms of one fetching operation OP (blocking and _nbi) and of
 * one posted operation; PARAMS are the value parameters after dest, OPERAND
 * and COMPARE what aos gets. The default-context forms are
 * shmem_inline.h's, compiled in fast.c. */
#define FETCHING(T, N, NAME, OP, PARAMS, OPERAND, COMPARE)                                 \
    T shmem_ctx_##N##_atomic_##NAME(shmem_ctx_t ctx, T *dest PARAMS, int pe)               \
    {                                                                                      \
        T old;                                                                             \
        amo_fetch(ctx, dest, OP, sizeof(T), OPERAND, COMPARE, &old, NULL, pe, __func__);   \
        return old;                                                                        \
    }                                                                                      \
    void shmem_ctx_##N##_atomic_##NAME##_nbi(shmem_ctx_t ctx, T *fetch, T *dest PARAMS,    \
                                             int pe)                                       \
    {                                                                                      \
        amo_fetch(ctx, dest, OP, sizeof(T), OPERAND, COMPARE, fetch, shmem__ev(), pe,      \
                  __func__);                                                               \
    }

#define POSTED(T, N, NAME, OP, PARAMS, OPERAND)                                            \
    void shmem_ctx_##N##_atomic_##NAME(shmem_ctx_t ctx, T *dest PARAMS, int pe)            \
    {                                                                                      \
        amo_post(ctx, dest, OP, sizeof(T), OPERAND, pe, __func__);                         \
    }

/* fetch's source is const and has its own parameter name in the standard;
 * the pointer is only read. */
#define EXT(T, N)                                                                          \
    T shmem_ctx_##N##_atomic_fetch(shmem_ctx_t ctx, const T *source, int pe)               \
    {                                                                                      \
        T v;                                                                               \
        amo_fetch(ctx, source, AOS_AMO_READ, sizeof(T), 0, 0, &v, NULL, pe, __func__);     \
        return v;                                                                          \
    }                                                                                      \
    void shmem_ctx_##N##_atomic_fetch_nbi(shmem_ctx_t ctx, T *fetch, const T *source,      \
                                          int pe)                                          \
    {                                                                                      \
        amo_fetch(ctx, source, AOS_AMO_READ, sizeof(T), 0, 0, fetch, shmem__ev(), pe,      \
                  __func__);                                                               \
    }                                                                                      \
    POSTED(T, N, set, AOS_AMO_SET, SHMEM__P_VALUE(T), SHMEM__BITS(value))                  \
    FETCHING(T, N, swap, AOS_AMO_SET, SHMEM__P_VALUE(T), SHMEM__BITS(value), 0)
SHMEM__AMO_STD_TYPES(EXT)
SHMEM__AMO_EXT_ONLY_TYPES(EXT)

#define STD(T, N)                                                                          \
    FETCHING(T, N, compare_swap, AOS_AMO_CAS, SHMEM__P_COND_VALUE(T), SHMEM__BITS(value),  \
             SHMEM__BITS(cond))                                                            \
    FETCHING(T, N, fetch_inc, AOS_AMO_ADD, SHMEM__NO_PARAMS, 1, 0)                         \
    POSTED(T, N, inc, AOS_AMO_ADD, SHMEM__NO_PARAMS, 1)                                    \
    FETCHING(T, N, fetch_add, AOS_AMO_ADD, SHMEM__P_VALUE(T), SHMEM__BITS(value), 0)       \
    POSTED(T, N, add, AOS_AMO_ADD, SHMEM__P_VALUE(T), SHMEM__BITS(value))
SHMEM__AMO_STD_TYPES(STD)

#define BIT_OP(T, N, OP, AOS_OP)                                                           \
    FETCHING(T, N, fetch_##OP, AOS_OP, SHMEM__P_VALUE(T), SHMEM__BITS(value), 0)           \
    POSTED(T, N, OP, AOS_OP, SHMEM__P_VALUE(T), SHMEM__BITS(value))
#define BIT(T, N)                                                                          \
    BIT_OP(T, N, and, AOS_AMO_AND) BIT_OP(T, N, or, AOS_AMO_OR) BIT_OP(T, N, xor, AOS_AMO_XOR)
SHMEM__AMO_BIT_TYPES(BIT)

/* ---- deprecated names ------------------------------------------------------------ */

#define OLD(T, N)                                                                          \
    T shmem_##N##_fetch(const T *source, int pe)                                           \
    {                                                                                      \
        return shmem_##N##_atomic_fetch(source, pe);                                       \
    }                                                                                      \
    void shmem_##N##_set(T *dest, T value, int pe)                                         \
    {                                                                                      \
        shmem_##N##_atomic_set(dest, value, pe);                                           \
    }                                                                                      \
    T shmem_##N##_swap(T *dest, T value, int pe)                                           \
    {                                                                                      \
        return shmem_##N##_atomic_swap(dest, value, pe);                                   \
    }
#define OLD_STD(T, N)                                                                      \
    OLD(T, N)                                                                              \
    T shmem_##N##_cswap(T *dest, T cond, T value, int pe)                                  \
    {                                                                                      \
        return shmem_##N##_atomic_compare_swap(dest, cond, value, pe);                     \
    }                                                                                      \
    T shmem_##N##_finc(T *dest, int pe)                                                    \
    {                                                                                      \
        return shmem_##N##_atomic_fetch_inc(dest, pe);                                     \
    }                                                                                      \
    void shmem_##N##_inc(T *dest, int pe)                                                  \
    {                                                                                      \
        shmem_##N##_atomic_inc(dest, pe);                                                  \
    }                                                                                      \
    T shmem_##N##_fadd(T *dest, T value, int pe)                                           \
    {                                                                                      \
        return shmem_##N##_atomic_fetch_add(dest, value, pe);                              \
    }                                                                                      \
    void shmem_##N##_add(T *dest, T value, int pe)                                         \
    {                                                                                      \
        shmem_##N##_atomic_add(dest, value, pe);                                           \
    }
SHMEM__AMO_OLD_STD_TYPES(OLD_STD)
SHMEM__AMO_EXT_ONLY_TYPES(OLD)
