#ifndef AOS_TRANSPORT_SHM_H
#define AOS_TRANSPORT_SHM_H

#include "core/runtime.h"

/* Creates my arena memfd (rt->arena_fd), maps it (rt->my_base) and writes
 * its header. */
int aos__shm_arena_create(struct aos__runtime *rt);
/* Maps peer pe's arena from fd into rt->peers[pe] and checks its header. */
int aos__shm_arena_map_peer(struct aos__runtime *rt, int pe, int fd);
/* Unmaps every arena and closes my memfd. */
void aos__shm_arena_destroy(struct aos__runtime *rt);

#endif
