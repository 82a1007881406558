/* What a PE does when a transport loses the connection to a peer, and how
 * aos_global_exit ends a job whose launcher would not stop the other PEs
 * with its status. */
#ifndef AOS_CORE_PEER_LOSS_H
#define AOS_CORE_PEER_LOSS_H

#include <stdint.h>

struct aos__runtime;

/* The bits of a PE's arena header word `ended` (core/layout.h). */
#define AOS__ENDED_STATUS 0xffu   /* the status the job ends with */
#define AOS__ENDED_BY_PEER 0x100u /* a PE called aos_global_exit and told me */
#define AOS__ENDED_NOW 0x200u     /* ...from my node, waking my watcher: leave now */
#define AOS__ENDED_STOP 0x400u    /* my aos_finalize stopped the watcher */

/* Called by a transport, from progress on any thread, when the connection
 * to pe has failed (why: the transport's words). A peer that closes it
 * while this PE is in aos_finalize is leaving normally, and one that called
 * aos_global_exit and told this PE so ended the job: this PE exits quietly
 * with that status. Otherwise the peer died or exited without aos_finalize:
 * every PE still waiting on it would wait forever, so this PE says so and
 * ends the job (aos_global_exit(1)): at once, or, under a launcher that
 * stops the job itself with its own report (boot->stops_on_loss), only if
 * it has not done so within a few seconds. */
void aos__peer_lost(int pe, const char *why);

/* For aos_global_exit(status), before the bootstrap's global_exit: under a
 * launcher whose global exit may not stop every PE (boot->stops_on_exit 0),
 * marks `ended` in every other PE's arena header, those of other nodes
 * first (a remote atomic completed before the next), then those of my node
 * (whose watcher it wakes). Nothing when aos is not running, when the
 * launcher stops the job, or when this PE is already ending the job. */
void aos__peer_tell_exit(int status);

/* The thread that makes a PE of a node whose peer called aos_global_exit
 * leave with that status while its own threads compute and call nothing:
 * asleep on my header's `ended` until a PE of my node sets
 * AOS__ENDED_NOW. Started by aos_init under such a launcher when other
 * PEs share my node; stopped by aos_finalize
 * after its barrier. */
int aos__peer_watch_start(struct aos__runtime *rt);
void aos__peer_watch_stop(struct aos__runtime *rt);

#endif
