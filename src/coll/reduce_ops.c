/* Reduction kernels. Each (type, op) pair is its own loop, so the compiler
 * vectorises it; the switch runs once per call. */
#include "coll/reduce_ops.h"

#include <complex.h>
#include <stdint.h>

/* (type, C type, unsigned type at least as wide as int that sums and
 * multiplies it without overflow being undefined: integers wrap). */
#define AOS__INT_TYPES(X)                                                                  \
    X(AOS_TYPE_INT8, int8_t, uint32_t)                                                     \
    X(AOS_TYPE_INT16, int16_t, uint32_t)                                                   \
    X(AOS_TYPE_INT32, int32_t, uint32_t)                                                   \
    X(AOS_TYPE_INT64, int64_t, uint64_t)                                                   \
    X(AOS_TYPE_UINT8, uint8_t, uint32_t)                                                   \
    X(AOS_TYPE_UINT16, uint16_t, uint32_t)                                                 \
    X(AOS_TYPE_UINT32, uint32_t, uint32_t)                                                 \
    X(AOS_TYPE_UINT64, uint64_t, uint64_t)

#define AOS__REAL_TYPES(X)                                                                 \
    X(AOS_TYPE_FLOAT, float)                                                               \
    X(AOS_TYPE_DOUBLE, double)                                                             \
    X(AOS_TYPE_LONG_DOUBLE, long double)

#define AOS__COMPLEX_TYPES(X)                                                              \
    X(AOS_TYPE_FLOAT_COMPLEX, float _Complex)                                              \
    X(AOS_TYPE_DOUBLE_COMPLEX, double _Complex)

static const size_t type_sizes[AOS_TYPE_COUNT_] = {
#define SIZE_ROW(id, T) [id] = sizeof(T),
#define INT_SIZE_ROW(id, T, U) SIZE_ROW(id, T)
    AOS__INT_TYPES(INT_SIZE_ROW) AOS__REAL_TYPES(SIZE_ROW) AOS__COMPLEX_TYPES(SIZE_ROW)
#undef INT_SIZE_ROW
#undef SIZE_ROW
};

size_t aos_type_size(aos_type_t type)
{
    return (unsigned)type < AOS_TYPE_COUNT_ ? type_sizes[type] : 0;
}

static int is_int(aos_type_t type)
{
    return type <= AOS_TYPE_UINT64;
}

int aos__reduce_check(aos_type_t type, aos_op_t op)
{
    if ((unsigned)type >= AOS_TYPE_COUNT_ || (unsigned)op >= AOS_OP_COUNT_)
        return AOS_ERR_INVALID;
    if (op >= AOS_OP_AND && !is_int(type))
        return AOS_ERR_INVALID; /* bitwise needs integers */
    if ((op == AOS_OP_MIN || op == AOS_OP_MAX) &&
        (type == AOS_TYPE_FLOAT_COMPLEX || type == AOS_TYPE_DOUBLE_COMPLEX))
        return AOS_ERR_INVALID; /* complex numbers have no order */
    return AOS_OK;
}

#define LOOP(T, expr)                                                                      \
    do {                                                                                   \
        T *a = acc;                                                                        \
        const T *b = in;                                                                   \
        for (size_t i = 0; i < count; i++) {                                               \
            T x = a[i], y = b[i];                                                          \
            a[i] = (T)(expr);                                                              \
        }                                                                                  \
    } while (0)

#define ARITH_CASES(T)                                                                     \
    case AOS_OP_SUM:                                                                       \
        LOOP(T, x + y);                                                                    \
        return;                                                                            \
    case AOS_OP_PROD:                                                                      \
        LOOP(T, x * y);                                                                    \
        return;

#define ORDER_CASES(T)                                                                     \
    case AOS_OP_MIN:                                                                       \
        LOOP(T, y < x ? y : x);                                                            \
        return;                                                                            \
    case AOS_OP_MAX:                                                                       \
        LOOP(T, y > x ? y : x);                                                            \
        return;

#define INT_ROW(id, T, U)                                                                  \
    case id:                                                                               \
        switch (op) {                                                                      \
        case AOS_OP_SUM:                                                                   \
            LOOP(T, (U)x + (U)y);                                                          \
            return;                                                                        \
        case AOS_OP_PROD:                                                                  \
            LOOP(T, (U)x * (U)y);                                                          \
            return;                                                                        \
            ORDER_CASES(T)                                                                 \
        case AOS_OP_AND:                                                                   \
            LOOP(T, x & y);                                                                \
            return;                                                                        \
        case AOS_OP_OR:                                                                    \
            LOOP(T, x | y);                                                                \
            return;                                                                        \
        case AOS_OP_XOR:                                                                   \
            LOOP(T, x ^ y);                                                                \
            return;                                                                        \
        default:                                                                           \
            return;                                                                        \
        }

#define REAL_ROW(id, T)                                                                    \
    case id:                                                                               \
        switch (op) {                                                                      \
            ARITH_CASES(T)                                                                 \
            ORDER_CASES(T)                                                                 \
        default:                                                                           \
            return;                                                                        \
        }

#define COMPLEX_ROW(id, T)                                                                 \
    case id:                                                                               \
        switch (op) {                                                                      \
            ARITH_CASES(T)                                                                 \
        default:                                                                           \
            return;                                                                        \
        }

void aos__reduce_fold(void *acc, const void *in, size_t count, aos_type_t type, aos_op_t op)
{
    switch (type) {
        AOS__INT_TYPES(INT_ROW)
        AOS__REAL_TYPES(REAL_ROW)
        AOS__COMPLEX_TYPES(COMPLEX_ROW)
    default:
        return;
    }
}

int aos_reduce_local(void *acc, const void *in, size_t count, aos_type_t type, aos_op_t op)
{
    int rc = aos__reduce_check(type, op);
    if (rc != AOS_OK)
        return rc;
    if (count == 0)
        return AOS_OK;
    if (acc == NULL || in == NULL)
        return AOS_ERR_NULL;
    if (count > SIZE_MAX / aos_type_size(type))
        return AOS_ERR_SIZE;
    aos__reduce_fold(acc, in, count, type, op);
    return AOS_OK;
}
