#ifndef AOS_CORE_BOOTSTRAP_H
#define AOS_CORE_BOOTSTRAP_H

#include "core/runtime.h"

/* Reads AOS_RANK/AOS_NPES/AOS_BOOT_FD set by aosrun into rt (me, npes,
 * boot_fd); without them this process is PE 0 of 1. The variables are
 * removed from the environment and the socket moved to a high,
 * close-on-exec descriptor, so programs this PE starts run alone. */
int aos__bootstrap_identify(struct aos__runtime *rt);

/* Sends my arena (rt->arena_fd) and layout to aosrun and receives every
 * PE's. On success peer_fds[pe] is pe's arena memfd (-1 for me) and
 * rt->peers[].pid/cluster/node are set. A peer whose layout differs from
 * mine (another executable, other AOS_HEAP_SIZE) is AOS_ERR_BOOTSTRAP. */
int aos__bootstrap_exchange(struct aos__runtime *rt, int *peer_fds);

/* All-gather of one blob per PE (len <= AOS__BOOT_BLOB_MAX) through the
 * launcher. On success *all is one malloc'd block holding every PE's blob
 * back to back in rank order, (*offs)[pe] where pe's starts and (*offs)[npes]
 * the total; the caller frees both. Alone (no launcher) only my blob. */
int aos__bootstrap_allgather(struct aos__runtime *rt, const void *mine, size_t len,
                             char **all, size_t **offs);

/* 1 when rt->boot_fd is still the socket aosrun passed; 0 (saying so once)
 * when the program closed it, whatever now has that number. */
int aos__bootstrap_fd_ok(struct aos__runtime *rt);

/* Tells aosrun this PE finalized (so its exit is not a failure). */
void aos__bootstrap_bye(struct aos__runtime *rt);

/* Tells aosrun to stop every PE and exit with `status` (aos_global_exit);
 * nothing without aosrun. */
void aos__bootstrap_global_exit(struct aos__runtime *rt, int status);

#endif
