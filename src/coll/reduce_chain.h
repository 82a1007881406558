/* The all-reduce across a few nodes by a chain of node leaders
 * (coll/reduce_chain.c). */
#ifndef AOS_COLL_REDUCE_CHAIN_H
#define AOS_COLL_REDUCE_CHAIN_H

#include <stddef.h>
#include <stdint.h>

#include "aos.h"
#include "coll/team.h"

/* 1 when the chain serves an all-reduce of `bytes` on team t: members on
 * 2-4 nodes, each node's ranks consecutive, at most 1 MiB. Every member
 * decides alike. */
int aos__reduce_chain_fits(const aos_team_t *t, size_t bytes);

/* The all-reduce of `bytes` (elements of tsize bytes) from source (arena
 * offset src_off on every member) into dest (dest_off), arguments checked
 * and agreed. */
int aos__reduce_chain(aos_team_t *t, void *dest, const void *source, uint64_t dest_off,
                      uint64_t src_off, size_t bytes, size_t tsize, aos_type_t type,
                      aos_op_t op);

#endif
