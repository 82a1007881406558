/* What a PE does when a transport loses the connection to a peer. */
#ifndef AOS_CORE_PEER_LOSS_H
#define AOS_CORE_PEER_LOSS_H

/* Called by a transport, from progress on any thread, when the connection
 * to pe has failed (why: the transport's words). A peer that closes it
 * while this PE is in aos_finalize is leaving normally. Before that, the
 * peer died or exited without aos_finalize: every PE still waiting on it
 * would wait forever, so unless the launcher stops the job itself, this PE
 * says so and ends the job (aos_global_exit(1)). */
void aos__peer_lost(int pe, const char *why);

#endif
