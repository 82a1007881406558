/* An aos atomic operation applied by this CPU to a word it can address: the
 * shared-memory transport's atomics, and the network transport's atomics
 * that a peer sent for this PE to apply. Both apply them the same way, so
 * that the PEs of a node and those of other nodes may target one word. */
#ifndef AOS_ARCH_CPU_AMO_H
#define AOS_ARCH_CPU_AMO_H

#include <stdint.h>

#include "aos.h"

/* Every form is a seq_cst read-modify-write (or load), so it is ordered
 * after this thread's earlier copies to the same memory: the rule that an
 * atomic follows the same PE's earlier puts holds with no extra fence. */
#define AOS__CPU_AMO_APPLY(T, p, op, operand, compare)                                     \
    do {                                                                                   \
        T opd_ = (T)(operand), cmp_ = (T)(compare);                                        \
        switch (op) {                                                                      \
        case AOS_AMO_ADD: return __atomic_fetch_add(p, opd_, __ATOMIC_SEQ_CST);            \
        case AOS_AMO_AND: return __atomic_fetch_and(p, opd_, __ATOMIC_SEQ_CST);            \
        case AOS_AMO_OR: return __atomic_fetch_or(p, opd_, __ATOMIC_SEQ_CST);              \
        case AOS_AMO_XOR: return __atomic_fetch_xor(p, opd_, __ATOMIC_SEQ_CST);            \
        case AOS_AMO_SET: return __atomic_exchange_n(p, opd_, __ATOMIC_SEQ_CST);           \
        case AOS_AMO_CLEAR: return __atomic_exchange_n(p, (T)0, __ATOMIC_SEQ_CST);         \
        case AOS_AMO_READ: return __atomic_load_n(p, __ATOMIC_SEQ_CST);                    \
        case AOS_AMO_CAS:                                                                  \
            __atomic_compare_exchange_n(p, &cmp_, opd_, 0, __ATOMIC_SEQ_CST,               \
                                        __ATOMIC_SEQ_CST);                                 \
            return cmp_; /* the old value whether or not it matched */                     \
        }                                                                                  \
        return 0;                                                                          \
    } while (0)

static inline uint64_t aos__cpu_amo32(uint32_t *p, aos_amo_op_t op, uint64_t operand,
                                      uint64_t compare)
{
    AOS__CPU_AMO_APPLY(uint32_t, p, op, operand, compare);
}

static inline uint64_t aos__cpu_amo64(uint64_t *p, aos_amo_op_t op, uint64_t operand,
                                      uint64_t compare)
{
    AOS__CPU_AMO_APPLY(uint64_t, p, op, operand, compare);
}

/* The previous value (width 4: its low 32 bits). p is width-aligned. */
static inline uint64_t aos__cpu_amo(void *p, unsigned width, aos_amo_op_t op, uint64_t operand,
                                    uint64_t compare)
{
    if (width == 4)
        return aos__cpu_amo32(p, op, operand, compare);
    return aos__cpu_amo64(p, op, operand, compare);
}

#endif
