/* Assertions for the OpenSHMEM tests, which use shmem.h alone: a failed
 * check prints where and on which PE and exits non-zero (oshrun/aosrun
 * then stops the job). */
#ifndef AOS_TEST_CHECK_SHMEM_H
#define AOS_TEST_CHECK_SHMEM_H

#include <shmem.h>
#include <stdio.h>
#include <stdlib.h>

#define CHECK(cond)                                                                        \
    do {                                                                                   \
        if (!(cond)) {                                                                     \
            fprintf(stderr, "FAIL %s:%d PE %d: %s\n", __FILE__, __LINE__, shmem_my_pe(),   \
                    #cond);                                                                \
            exit(1);                                                                       \
        }                                                                                  \
    } while (0)

#include "../common/nodes.h"

#endif
