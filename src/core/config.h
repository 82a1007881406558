/* The table of AOS_* environment variables. One row drives parsing, defaults,
 * validation (a bad value is an error naming the variable) and aos-info. */
#ifndef AOS_CORE_CONFIG_H
#define AOS_CORE_CONFIG_H

#include <stdint.h>

/* X(field, variable, kind, default, minimum, meaning); kind is SIZE (bytes,
 * with an optional K/M/G/T suffix), UINT or BOOL (0/1/yes/no/true/false). */
#define AOS__CONFIG_TABLE(X)                                                               \
    X(heap_size, "AOS_HEAP_SIZE", SIZE, "32G", 1u << 20,                                   \
      "address space reserved for each PE's symmetric heap; sparse, so only pages "        \
      "touched use memory")                                                                \
    X(segment_space, "AOS_SEGMENT_SPACE", SIZE, "32G", 1u << 20,                           \
      "address space reserved for the segments each PE creates with aos_seg_create")       \
    X(spin_count, "AOS_SPIN_COUNT", UINT, "2000", 0,                                       \
      "polls of a waited-on word before a waiter starts yielding the CPU (unset: "         \
      "20 when the PEs sharing the machine's CPUs outnumber them, so spinning does not "  \
      "starve them)")                                                                     \
    X(yield_count, "AOS_YIELD_COUNT", UINT, "20", 0,                                       \
      "sched_yield calls before a waiter sleeps in the kernel until a writer wakes it "    \
      "(unset: 50 when the PEs sharing the machine's CPUs outnumber them)")               \
    X(sleep_us, "AOS_SLEEP_US", UINT, "2000", 1,                                           \
      "longest single kernel sleep of a waiter before it looks again (writers normally "   \
      "wake it sooner)")                                                                   \
    X(symmetric_static, "AOS_SYMMETRIC_STATIC", BOOL, "1", 0,                              \
      "make the program's global and static variables remotely accessible by address")    \
    X(rpc_queue_depth, "AOS_RPC_QUEUE_DEPTH", UINT, "64", 1,                               \
      "RPC requests each PE's queue holds; a caller finding it full waits (serving its "   \
      "own RPCs meanwhile) or runs an AOS_RPC_ANYWHERE handler itself")                    \
    X(rpc_pending_max, "AOS_RPC_PENDING_MAX", UINT, "4096", 1,                             \
      "RPC calls with an event each PE keeps until the target's queue has room (each "     \
      "holds a copy of its arguments, up to 4 KiB); beyond, aos_rpc gives AOS_ERR_AGAIN")  \
    X(progress_thread, "AOS_PROGRESS_THREAD", BOOL, "0", 0,                                \
      "run RPC handlers on a progress thread while the program computes (else they run "   \
      "when the PE waits, tests or calls aos_progress)")                                  \
    X(cluster_size, "AOS_CLUSTER_SIZE", UINT, "0", 0,                                       \
      "treat every N consecutive PEs as one cluster instead of the last-level caches "    \
      "found (0); lets one cache exercise the cluster-aware collectives")                 \
    X(node_size, "AOS_NODE_SIZE", UINT, "0", 0,                                             \
      "split the PEs into pseudo-nodes of N consecutive PEs that reach each other only "  \
      "through the network transport (0: nodes as the launcher found them); for testing " \
      "the off-node path on one machine")                                                 \
    X(boot_timeout, "AOS_BOOT_TIMEOUT", UINT, "120", 1,                                     \
      "seconds a PE waits for the other PEs at start-up (aosrun's exchanges, PMIx "       \
      "fences, the memory exchange among the PEs of a host) before aos_init fails")       \
    X(check, "AOS_CHECK", BOOL, "0", 0,                                                     \
      "compare each collective's arguments (sizes, roots, types, counts, aos_malloc "     \
      "sizes) across the team before running it: a mismatch fails every member with "    \
      "AOS_ERR_INVALID and a message instead of hanging or giving wrong data; costs one " \
      "small exchange per collective; set it alike on every PE")                          \
    X(net_as_rdma, "AOS_NET_AS_RDMA", BOOL, "0", 0,                                         \
      "treat every network peer as RDMA does: a wake message after each off-node write "  \
      "that may end a wait, a flush to order an atomic or signal after puts, even where " \
      "one TCP stream makes both needless; for testing the paths RDMA networks take")    \
    X(net_coalesce, "AOS_NET_COALESCE", BOOL, "1", 0,                                       \
      "send the small puts with events, the posted atomics and the queue items a PE "     \
      "streams to one network peer several to a message, where one TCP stream carries "   \
      "them all in order and the peer's CPU applies them; 0 sends each on its own")       \
    X(net_wakeup, "AOS_NET_WAKEUP", UINT, "1", 0,                                           \
      "how the network progress thread waits for arrivals while it serves: 1 sleeps on "  \
      "descriptors (the TCP interfaces' own where UCX found only TCP, else the worker's); " \
      "2 always on the worker's, which costs every message over TCP a little; 0 polls "   \
      "with pauses that grow to 1 ms, serving a PE that computes up to 1 ms late")        \
    X(debug, "AOS_DEBUG", BOOL, "0", 0, "print start-up diagnostics to stderr")

struct aos__config {
#define AOS__CONFIG_FIELD(field, var, kind, def, min, meaning) uint64_t field;
    AOS__CONFIG_TABLE(AOS__CONFIG_FIELD)
#undef AOS__CONFIG_FIELD
};

/* Parses every variable (defaults for unset ones). On a bad value prints
 * "aos: AOS_X=...: why" to stderr and returns AOS_ERR_CONFIG; *out is
 * written only on success. */
int aos__config_load(struct aos__config *out);

/* Parses text as the given kind; 0 on success. Exposed for unit tests. */
int aos__config_parse_size(const char *text, uint64_t *out);
int aos__config_parse_uint(const char *text, uint64_t *out);
int aos__config_parse_bool(const char *text, uint64_t *out);

#endif
