/* Assertions for aos tests: a failed check prints where and on which PE,
 * then exits non-zero (aosrun then stops the job and reports it). */
#ifndef AOS_TEST_CHECK_H
#define AOS_TEST_CHECK_H

#include <stdio.h>
#include <stdlib.h>

#include "aos.h"

#define CHECK(cond)                                                                        \
    do {                                                                                   \
        if (!(cond)) {                                                                     \
            fprintf(stderr, "FAIL %s:%d PE %d: %s\n", __FILE__, __LINE__, aos_my_pe(),     \
                    #cond);                                                                \
            exit(1);                                                                       \
        }                                                                                  \
    } while (0)

/* Checks that expr returns the status `want`. */
#define CHECK_RC(expr, want)                                                               \
    do {                                                                                   \
        int check_rc_ = (expr);                                                            \
        if (check_rc_ != (want)) {                                                         \
            fprintf(stderr, "FAIL %s:%d PE %d: %s returned %d (%s), expected %d (%s)\n",   \
                    __FILE__, __LINE__, aos_my_pe(), #expr, check_rc_,                     \
                    aos_strerror(check_rc_), (want), aos_strerror(want));                  \
            exit(1);                                                                       \
        }                                                                                  \
    } while (0)

#define CHECK_OK(expr) CHECK_RC(expr, AOS_OK)

#include <stddef.h>
#include <stdint.h>

/* A byte pattern that differs with the seed and the position, so that
 * shifted, truncated or stale data never matches. */
static inline uint8_t pattern_byte(unsigned seed, size_t i)
{
    return (uint8_t)(seed * 131u + i * 7u + (i >> 8) * 13u + (i >> 16));
}

static inline void pattern_fill(void *buf, size_t len, unsigned seed)
{
    uint8_t *p = buf;
    for (size_t i = 0; i < len; i++)
        p[i] = pattern_byte(seed, i);
}

/* Index of the first byte that differs from the pattern, or len. */
static inline size_t pattern_check(const void *buf, size_t len, unsigned seed)
{
    const uint8_t *p = buf;
    for (size_t i = 0; i < len; i++)
        if (p[i] != pattern_byte(seed, i))
            return i;
    return len;
}

#include "nodes.h"

#endif
