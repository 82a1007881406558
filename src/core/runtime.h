/* Process-wide state of aos between aos_init and aos_finalize. */
#ifndef AOS_CORE_RUNTIME_H
#define AOS_CORE_RUNTIME_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "aos.h"
#include "core/config.h"
#include "core/layout.h"
#include "mem/range_alloc.h"
#include "transport/transport.h"

struct aos__peer {
    const struct aos__transport *tp;   /* the transport that serves this peer */
    char *base;                        /* this PE's mapping of the peer's arena; NULL if off-node */
    struct aos__arena_header *header;  /* == base */
    int cluster;                       /* last-level-cache domain; -1 unknown */
    int node;                          /* node index (0 on a single node) */
    int host;                          /* the host it runs on (nodes without AOS_NODE_SIZE) */
    pid_t pid;
    uint64_t machine;                  /* the kernel it runs under (bootstrap.h), 0 unknown */
    int lost;                          /* its connection failed (core/peer_loss.c) */
};

/* A buffer whose pages aos_seg_create_from moved into the arena. */
struct aos__remap {
    uintptr_t lo, hi;  /* page-aligned user range */
    uint64_t arena_off;
    struct aos__remap *next;
};

struct aos__boot;

/* Where the bootstrap found this PE: real hosts, not AOS_NODE_SIZE's
 * pseudo-nodes. */
struct aos__host_info {
    int hosts;      /* hosts the job spans */
    int host;       /* mine, 0 .. hosts-1 */
    int local_rank; /* my index among the PEs of my host, in rank order */
    int local_size; /* PEs on my host */
    int machine_size; /* PEs sharing my CPUs: my host's, and those of hosts
                       * under the same kernel (containers, namespaces) */
};

struct aos__runtime {
    int initialized;
    int finalized_launched; /* finalized after a launch: no second aos_init */
    int finalizing;  /* past aos_finalize's barrier: peers are going away */
    int leaving;     /* in aos_finalize: a peer's closed connection is no loss */
    int me;
    int npes;
    struct aos__config cfg;
    const struct aos__transport *net; /* serves the PEs of other nodes; NULL if none */
    struct aos__peer *peers;

    /* Arena layout, identical on every PE (checked at bootstrap). */
    uint64_t arena_size;
    uint64_t coll_off, coll_size; /* team slots (coll/team.h) */
    uint64_t notify_off, notify_size; /* notification lanes (queue/notify_lanes.h) */
    uint64_t keys_off, keys_size;     /* network remote keys (struct aos__key_entry) */
    uint64_t static_off, static_len;
    uintptr_t static_lo; /* address of the program's writable data (page aligned) */
    uint64_t heap_off, heap_size;
    uint64_t heap_top; /* the heap's bytes up to the end of the highest block
                          it ever gave (symheap.c): symmetric addresses end
                          there, the same on every PE */
    uint64_t segspace_off, segspace_size;

    int arena_fd;   /* my arena's memfd until the PEs have it, then -1 */
    char *my_base;  /* == peers[me].base */
    const struct aos__boot *boot; /* core/bootstrap.h; NULL when not running */
    struct aos__host_info host;
    uint64_t machine; /* aos__boot_machine_id(), in my hellos */

    struct aos__range_alloc heap;     /* symmetric heap, same calls on every PE */
    struct aos__range_alloc segspace; /* owner-private segment memory */
    struct aos__remap *remaps;

    size_t pending_requests; /* asynchronous requests aos__progress must poll */
    size_t page_size;
};

extern struct aos__runtime aos__rt;

/* Returns AOS_ERR_NOT_INITIALIZED unless between init and finalize. */
#define AOS__CHECK_INIT()                                                                  \
    do {                                                                                   \
        if (!aos__rt.initialized)                                                          \
            return AOS_ERR_NOT_INITIALIZED;                                                \
    } while (0)

#define AOS__CHECK_PE(pe)                                                                  \
    do {                                                                                   \
        if ((pe) < 0 || (pe) >= aos__rt.npes)                                              \
            return AOS_ERR_PE;                                                             \
    } while (0)

/* The transport that serves pe (checked: 0 <= pe < npes). */
static inline const struct aos__transport *aos__tp(int pe)
{
    return aos__rt.peers[pe].tp;
}

/* 1 when pe's memory is mapped here (same node), so load/store reaches it. */
static inline int aos__on_node(int pe)
{
    return aos__rt.peers[pe].base != NULL;
}

/* Operations over every transport in use (core/transports.c). */
int aos__quiet_all(void);
/* Fences every peer of every transport. */
int aos__fence_all(void);
void aos__progress_transports(void);
/* A thread goes to sleep in the kernel until a write wakes it, and wakes
 * (the transport contract's sleep_begin/sleep_end). sleep_begin says
 * whether it told the transport (transports.c), which sleep_end is given
 * back: sleeps nest (a wait in a handler a sleeping wait ran). */
int aos__sleep_begin(void);
void aos__sleep_end(int announced);
int aos__expose(uint64_t off, uint64_t len);

/* Prints "aos[pe]: message" to stderr when AOS_DEBUG=1. */
void aos__debug(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif
