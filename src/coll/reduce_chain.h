/* The all-reduce across a few nodes by a chain of node leaders
 * (coll/reduce_chain.c). */
#ifndef AOS_COLL_REDUCE_CHAIN_H
#define AOS_COLL_REDUCE_CHAIN_H

#include <stddef.h>
#include <stdint.h>

#include "aos.h"
#include "coll/team.h"

/* The all-reduce of `bytes` (elements of tsize bytes) from source (arena
 * offset src_off on every member) into dest (dest_off), arguments checked
 * and agreed, on a team whose shape the planner found fit for the chain
 * (coll/model.h: 2 to AOS__CHAIN_MAX_NODES nodes, each node's ranks
 * consecutive, so that folding them in rank order gives the bits of every
 * other path; at most AOS__CHAIN_MAX_BYTES). */
int aos__reduce_chain(aos_team_t *t, void *dest, const void *source, uint64_t dest_off,
                      uint64_t src_off, size_t bytes, size_t tsize, aos_type_t type,
                      aos_op_t op);

#endif
