/* The bootstrap: how a PE learns its rank and meets the other PEs at
 * start-up (their arenas, addresses and keys), separate from the transports
 * that carry data afterwards. One backend per kind of launcher, chosen by
 * aos_init in this order (core/bootstrap.c):
 *   aosrun  AOS_BOOT_FD is set: a socketpair to aosrun (core/boot/aosrun.c)
 *   pmix    a PMIx server started the process (mpirun, srun --mpi=pmix):
 *           core/boot/pmix.c, or core/boot/pmix_none.c when aos was built
 *           without libpmix
 *   single  neither: this process is PE 0 of 1 (core/boot/single.c) */
#ifndef AOS_CORE_BOOTSTRAP_H
#define AOS_CORE_BOOTSTRAP_H

#include <stddef.h>

#include "core/boot_proto.h"
#include "core/runtime.h"

struct aos__boot {
    const char *name;
    /* Sets rt->me and rt->npes. */
    int (*start)(struct aos__runtime *rt);
    /* Gives my arena (rt->arena_fd) and layout to the PEs of my host and
     * learns every PE's. On success peer_fds[pe] is the arena memfd of each
     * other PE on my host (-1 for me and for PEs elsewhere), rt->peers[]
     * .pid/.cluster/.node and rt->host are set. A peer whose layout differs
     * from mine is AOS_ERR_BOOTSTRAP. */
    int (*exchange)(struct aos__runtime *rt, int *peer_fds);
    /* All-gather of one blob per PE, len <= AOS__BOOT_BLOB_MAX. On success
     * *all is one malloc'd block with every PE's blob back to back in rank
     * order, (*offs)[pe] where pe's starts and (*offs)[npes] the total; the
     * caller frees both. */
    int (*allgather)(struct aos__runtime *rt, const void *mine, size_t len, char **all,
                     size_t **offs);
    /* Every PE has called it. */
    int (*barrier)(struct aos__runtime *rt);
    /* Asks the launcher to stop every PE, the job ending with `status`. */
    void (*global_exit)(struct aos__runtime *rt, int status);
    /* 1: the launcher itself stops the job, with its own report, when a PE
     * dies or ends without aos_finalize (aosrun; Open MPI's mpirun, which
     * the pmix backend recognizes); a PE that loses a peer gives it time to
     * (core/peer_loss.c). 0: it may not (srun without --kill-on-bad-exit),
     * so such a PE ends the job at once. */
    int (*stops_on_loss)(void);
    /* 1: global_exit stops every PE, whatever the status (aosrun); 0: it
     * may not (a PMIx server takes no abort with status 0), so
     * aos_global_exit tells the other PEs first (core/peer_loss.c). */
    int stops_on_exit;
    /* Ends the bootstrap: finalized 1 after aos_finalize (the launcher learns
     * this PE's exit is not a failure), 0 after a failed aos_init. */
    void (*stop)(struct aos__runtime *rt, int finalized);
};

extern const struct aos__boot aos__boot_aosrun;
extern const struct aos__boot aos__boot_pmix;
extern const struct aos__boot aos__boot_single;

/* Chooses the backend (order above) into rt->boot and starts it. */
int aos__bootstrap_start(struct aos__runtime *rt);

/* The chosen backend's operations (see struct aos__boot). */
int aos__bootstrap_exchange(struct aos__runtime *rt, int *peer_fds);
int aos__bootstrap_allgather(struct aos__runtime *rt, const void *mine, size_t len,
                             char **all, size_t **offs);
int aos__bootstrap_barrier(struct aos__runtime *rt);
/* Nothing when no bootstrap is running. */
void aos__bootstrap_global_exit(struct aos__runtime *rt, int status);
void aos__bootstrap_stop(struct aos__runtime *rt, int finalized);

/* For backends whose launcher always stops the job on a loss. */
int aos__boot_stops_always(void);

/* The kernel this process runs under: a hash of its boot id, the same for
 * every "host" that is a container or network namespace of one machine,
 * whose PEs then share its CPUs; 0 when unknown. */
uint64_t aos__boot_machine_id(void);

/* For the backends. The hello a PE gives the others: its pid, layout and
 * machine (rt->machine). */
struct aos__boot_hello aos__boot_my_hello(const struct aos__runtime *rt);

/* AOS_ERR_BOOTSTRAP, saying so, when pe's layout (hello h) differs from
 * mine: the PEs run different programs or configurations. */
int aos__boot_check_layout(const struct aos__runtime *rt, int pe,
                           const struct aos__boot_hello *h);

/* Records which host each PE runs on (host[pe], 0 .. hosts-1): rt->host
 * and rt->peers[].node, which AOS_NODE_SIZE splits further into
 * pseudo-nodes that never span two hosts. Counts the PEs sharing my
 * machine from rt->peers[].machine, which the backend has set. */
void aos__boot_place(struct aos__runtime *rt, const int *host);

#endif
