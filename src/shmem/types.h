/* The aos element type of a C type, for reductions. */
#ifndef AOS_SHMEM_TYPES_H
#define AOS_SHMEM_TYPES_H

#include <complex.h>
#include <limits.h>

#include "aos.h"

/* Fixed-width and size types are other names of these, so every type of
 * the specification's tables finds its entry. */
#define SHMEM__AOS_TYPE(T)                                                                 \
    _Generic((T *)0,                                                                       \
        char *: (CHAR_MIN < 0 ? AOS_TYPE_INT8 : AOS_TYPE_UINT8),                           \
        signed char *: AOS_TYPE_INT8,                                                      \
        unsigned char *: AOS_TYPE_UINT8,                                                   \
        short *: AOS_TYPE_INT16,                                                           \
        unsigned short *: AOS_TYPE_UINT16,                                                 \
        int *: AOS_TYPE_INT32,                                                             \
        unsigned int *: AOS_TYPE_UINT32,                                                   \
        long *: AOS_TYPE_INT64,                                                            \
        unsigned long *: AOS_TYPE_UINT64,                                                  \
        long long *: AOS_TYPE_INT64,                                                       \
        unsigned long long *: AOS_TYPE_UINT64,                                             \
        float *: AOS_TYPE_FLOAT,                                                           \
        double *: AOS_TYPE_DOUBLE,                                                         \
        long double *: AOS_TYPE_LONG_DOUBLE,                                               \
        float _Complex *: AOS_TYPE_FLOAT_COMPLEX,                                          \
        double _Complex *: AOS_TYPE_DOUBLE_COMPLEX)

_Static_assert(sizeof(short) == 2 && sizeof(int) == 4 && sizeof(long) == 8 &&
                   sizeof(long long) == 8,
               "integer widths match the aos types they map to");

#endif
