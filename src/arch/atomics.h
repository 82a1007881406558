/* The one atomics header. Every operation is named by its memory order, so a
 * reader sees the ordering at the call site. Implemented with the GCC/Clang
 * __atomic builtins so that they apply to plain integers in shared memory and
 * to user words (wait_until) alike. Callers comment what each acquire or
 * release pairs with and why each relaxed access is enough. */
#ifndef AOS_ARCH_ATOMICS_H
#define AOS_ARCH_ATOMICS_H

#include <stdint.h>

#define aos__load_relaxed(p) __atomic_load_n((p), __ATOMIC_RELAXED)
#define aos__load_acquire(p) __atomic_load_n((p), __ATOMIC_ACQUIRE)
#define aos__load_seq_cst(p) __atomic_load_n((p), __ATOMIC_SEQ_CST)

#define aos__store_relaxed(p, v) __atomic_store_n((p), (v), __ATOMIC_RELAXED)
#define aos__store_release(p, v) __atomic_store_n((p), (v), __ATOMIC_RELEASE)
#define aos__store_seq_cst(p, v) __atomic_store_n((p), (v), __ATOMIC_SEQ_CST)

#define aos__fetch_add_relaxed(p, v) __atomic_fetch_add((p), (v), __ATOMIC_RELAXED)
#define aos__fetch_add_release(p, v) __atomic_fetch_add((p), (v), __ATOMIC_RELEASE)
#define aos__fetch_add_acq_rel(p, v) __atomic_fetch_add((p), (v), __ATOMIC_ACQ_REL)
#define aos__fetch_add_seq_cst(p, v) __atomic_fetch_add((p), (v), __ATOMIC_SEQ_CST)
#define aos__fetch_sub_relaxed(p, v) __atomic_fetch_sub((p), (v), __ATOMIC_RELAXED)
#define aos__fetch_sub_release(p, v) __atomic_fetch_sub((p), (v), __ATOMIC_RELEASE)
#define aos__fetch_sub_seq_cst(p, v) __atomic_fetch_sub((p), (v), __ATOMIC_SEQ_CST)
#define aos__exchange_relaxed(p, v) __atomic_exchange_n((p), (v), __ATOMIC_RELAXED)
#define aos__exchange_acquire(p, v) __atomic_exchange_n((p), (v), __ATOMIC_ACQUIRE)
#define aos__exchange_seq_cst(p, v) __atomic_exchange_n((p), (v), __ATOMIC_SEQ_CST)
/* *p = desired if *p == *expected; else *expected = *p. Returns whether it
 * stored. */
#define aos__cas_relaxed(p, expected, desired)                                             \
    __atomic_compare_exchange_n((p), (expected), (desired), 0, __ATOMIC_RELAXED,            \
                                __ATOMIC_RELAXED)
#define aos__cas_acquire(p, expected, desired)                                             \
    __atomic_compare_exchange_n((p), (expected), (desired), 0, __ATOMIC_ACQUIRE,            \
                                __ATOMIC_ACQUIRE)
#define aos__fetch_or_relaxed(p, v) __atomic_fetch_or((p), (v), __ATOMIC_RELAXED)
#define aos__fetch_or_seq_cst(p, v) __atomic_fetch_or((p), (v), __ATOMIC_SEQ_CST)

/* *p = max(*p, v), for words that only grow written by several threads. */
static inline void aos__raise_relaxed(uint64_t *p, uint64_t v)
{
    uint64_t cur = __atomic_load_n(p, __ATOMIC_RELAXED);
    while (cur < v &&
           !__atomic_compare_exchange_n(p, &cur, v, 1, __ATOMIC_RELAXED, __ATOMIC_RELAXED))
        ;
}

/* Fences. On x86-64 (TSO) acquire and release fences only restrain the
 * compiler, and a locked no-op on the stack is a full barrier that costs
 * less than mfence. Written as asm they are also acceptable to
 * ThreadSanitizer, which rejects __atomic_thread_fence. */
#if defined(__x86_64__)
static inline void aos__fence_acquire(void)
{
    __asm__ __volatile__("" ::: "memory");
}
static inline void aos__fence_release(void)
{
    __asm__ __volatile__("" ::: "memory");
}
static inline void aos__fence_seq_cst(void)
{
    __asm__ __volatile__("lock; orq $0, (%%rsp)" ::: "memory", "cc");
}
/* After a seq_cst read-modify-write: locked instructions are full barriers
 * on x86-64, so nothing more is needed to order later loads. */
static inline void aos__fence_after_rmw(void)
{
    __asm__ __volatile__("" ::: "memory");
}
#else
#define aos__fence_after_rmw() __atomic_thread_fence(__ATOMIC_SEQ_CST)
#define aos__fence_acquire() __atomic_thread_fence(__ATOMIC_ACQUIRE)
#define aos__fence_release() __atomic_thread_fence(__ATOMIC_RELEASE)
#define aos__fence_seq_cst() __atomic_thread_fence(__ATOMIC_SEQ_CST)
#endif

#endif
