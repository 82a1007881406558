/* Wire format between the root aosrun and its per-host daemons (aosrun
 * --daemon, started by the remote-shell command with its stdin and stdout
 * as the channel). Both ends are the same aosrun binary on the same
 * architecture: fields travel in host byte order.
 *
 * Every message is a frame: a struct aosrun_frame header, then len bytes
 * (at most AOSRUN_FRAME_MAX).
 *
 *  root -> daemon: START (who the daemon is: host index, its ranks, the job
 *                  size, the host's name for messages).
 *  daemon -> root: READY once START made sense; then the daemon starts its
 *                  PEs. A channel that ends before READY is a host that
 *                  could not be reached.
 *  daemon -> root: HELLO for each local PE's hello (its memfd stays on the
 *                  daemon: only PEs on that host may map it).
 *  root -> daemon: once all PEs said hello, HELLO for every PE in rank
 *                  order with .node its host index: the daemon then sends
 *                  its PEs the aos__boot_peer messages (boot_proto.h).
 *  daemon -> root: BLOB, one PE's contribution to an all-gather round.
 *  root -> daemon: once every PE's blob of the round is in, BLOB for every
 *                  PE in rank order; the daemon passes them to its PEs.
 *  daemon -> root: EXIT (a PE's aos_global_exit), END (a PE ended: wait
 *                  status, whether it said hello and bye), OUT (bytes the
 *                  PEs wrote to stdout), FAIL (the daemon stopped its PEs
 *                  for a reason it reported on stderr), ALIVE (nothing,
 *                  every AOSRUN_ALIVE_MS: a daemon that goes silent is
 *                  stopped or cut off), DONE (every local PE has ended;
 *                  the last frame: what comes after, such as a remote
 *                  shell's parting words, is no frame).
 *  root -> daemon: STOP (signal the local PEs; the daemon escalates to
 *                  SIGKILL itself). EOF: the root is gone, the daemon kills
 *                  its PEs and exits. */
#ifndef AOSRUN_HOSTS_PROTO_H
#define AOSRUN_HOSTS_PROTO_H

#include <stdint.h>

#include "core/boot_proto.h"

#define AOSRUN_HOSTS_MAGIC 0x616f73484f535432ull /* "aosHOST2" */
/* The largest payload: a blob and its rank. */
#define AOSRUN_FRAME_MAX (AOS__BOOT_BLOB_MAX + 64u)
#define AOSRUN_HOST_NAME_MAX 256

enum aosrun_frame_type {
    AOSRUN_F_START = 1, /* root -> daemon: struct aosrun_f_start + host name */
    AOSRUN_F_READY,     /* daemon -> root: struct aosrun_f_ready */
    AOSRUN_F_HELLO,     /* both ways: struct aos__boot_peer */
    AOSRUN_F_BLOB,      /* both ways: uint32_t rank, then the blob */
    AOSRUN_F_EXIT,      /* daemon -> root: struct aosrun_f_exit */
    AOSRUN_F_END,       /* daemon -> root: struct aosrun_f_end */
    AOSRUN_F_OUT,       /* daemon -> root: bytes for the root's stdout */
    AOSRUN_F_FAIL,      /* daemon -> root: int32_t exit status */
    AOSRUN_F_DONE,      /* daemon -> root: empty */
    AOSRUN_F_STOP,      /* root -> daemon: int32_t signal */
    AOSRUN_F_ALIVE,     /* daemon -> root: empty, every AOSRUN_ALIVE_MS */
};
/* How often a daemon tells the root it is alive (hosts.c judges silence). */
#define AOSRUN_ALIVE_MS 1000

struct aosrun_frame {
    uint32_t type;
    uint32_t len;
};

struct aosrun_f_start {
    uint64_t magic;
    int32_t host;  /* this daemon's host index: the PEs' .node */
    int32_t first; /* global rank of its first PE */
    int32_t count; /* PEs it starts: ranks first .. first+count-1 */
    int32_t npes;  /* PEs in the job */
    /* then the host's name as the user gave it, for messages */
};

struct aosrun_f_ready {
    uint64_t magic;
    int32_t pid; /* the daemon's, for messages */
    int32_t pad;
};

struct aosrun_f_exit {
    int32_t rank;
    int32_t status;
};

#define AOSRUN_END_HELLO 1u /* the PE said hello (called aos_init) */
#define AOSRUN_END_BYE 2u   /* ... and finalized */

struct aosrun_f_end {
    int32_t rank;
    int32_t pid;
    int32_t wait_status;
    uint32_t flags; /* AOSRUN_END_* */
};

#endif
