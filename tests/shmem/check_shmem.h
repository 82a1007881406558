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

/* The PEs of a's node under AOS_NODE_SIZE pseudo-nodes (tests/CMakeLists.txt):
 * nodes of k consecutive PEs; unset, one node. */
static inline int test_node_size(int npes)
{
    const char *s = getenv("AOS_NODE_SIZE");
    int k = s != NULL ? atoi(s) : 0;
    return k > 0 && k < npes ? k : npes;
}

static inline int test_same_node(int a, int b, int npes)
{
    int k = test_node_size(npes);
    return a / k == b / k;
}

/* How many PEs share a's node. */
static inline int test_node_pes(int a, int npes)
{
    int k = test_node_size(npes), first = a / k * k;
    return npes - first < k ? npes - first : k;
}

#endif
