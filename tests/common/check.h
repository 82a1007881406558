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

#endif
