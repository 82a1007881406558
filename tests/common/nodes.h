/* Nodes in tests: the PEs of one node are AOS_NODE_SIZE consecutive PEs
 * when a test runs split into pseudo-nodes (the off-node variants,
 * tests/CMakeLists.txt), AOS_TEST_HOST_PES consecutive PEs when a two-host
 * test bed starts that many on each host (tests/launcher/netns_*.sh), else
 * all of them. */
#ifndef AOS_TEST_NODES_H
#define AOS_TEST_NODES_H

#include <stdlib.h>

static inline int test_node_size(int npes)
{
    const char *s = getenv("AOS_NODE_SIZE");
    if (s == NULL)
        s = getenv("AOS_TEST_HOST_PES");
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
