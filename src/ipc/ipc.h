/* IPC objects (mailboxes, portals, syncs): their keys and the list of
 * asynchronous operations progress drives for them. */
#ifndef AOS_IPC_H
#define AOS_IPC_H

#include <stdint.h>

#include "aos.h"

/* Each kind has its own ports: (kind, port) makes a reserved segment key. */
enum aos__ipc_kind { AOS__IPC_MBOX = 1, AOS__IPC_PORTAL = 2, AOS__IPC_SYNC = 3 };

static inline uint64_t aos__ipc_key(enum aos__ipc_kind kind, uint32_t port)
{
    return AOS_KEY_RESERVED_FROM | ((uint64_t)kind << 32) | port;
}
_Static_assert((AOS_KEY_RESERVED_FROM & 0xffffffffffffull) == 0,
               "kinds and ports fit below the reserved prefix");

/* An operation that completes later: progress calls poll until it returns 1,
 * then frees it. Operations with the same `order` mark (one per object)
 * complete in the order issued: once one of them is not ready, later ones
 * are not polled in that pass. `pending` counts the object's operations, so
 * that closing it can refuse while some remain (an atomic count: read it
 * with aos__load_*). */
struct aos__ipc_op {
    int (*poll)(struct aos__ipc_op *op);
    uint64_t *order;
    uint32_t *pending;
    struct aos__ipc_op *next;
};

/* Appends op (allocated by the caller with malloc) and counts it; any
 * thread, never waits. */
void aos__ipc_op_add(struct aos__ipc_op *op);

/* Portals across nodes: the handler for grants, and my mirrors of remote
 * receivers' permissions (set up and torn down with the runtime). */
void aos__portal_start(void);
void aos__portal_stop(void);
/* The IPC layer with the runtime: its progress hook (pending operations)
 * and the portals' side. */
int aos__ipc_start(void);
void aos__ipc_stop(void);

/* Attaches owner's IPC segment `key`, waiting (and serving) until the owner
 * has created it: creation of a sync is collective, so it will. */
int aos__ipc_attach_wait(int owner, uint64_t key, aos_seg_t **seg);

#endif
