/* Active messages: the handlers the core and the layers above register for
 * messages a network transport delivers (transport.h, am_send). The core
 * sits below every layer: it only dispatches by id. On a node nobody sends
 * these; the layers use the mapped memory instead. */
#ifndef AOS_CORE_AM_H
#define AOS_CORE_AM_H

#include <stddef.h>

#define AOS__AM_MAX 8192 /* largest payload: an RPC call with its arguments fits */

enum aos__am_id {
    AOS__AM_SEG_STATE,  /* a segment of the sender changed state (mem/segment.c) */
    AOS__AM_SEG_STATE_SEEN, /* the answer: my mirror has that state (mem/segment.c) */
    AOS__AM_NOTE,       /* a notification in the sender's lane (queue/notify.c) */
    AOS__AM_QUEUE_PUSH, /* an item for one of my queues (queue/queue_net.c) */
    AOS__AM_QUEUE_DONE, /* the outcome of a push of mine (queue/queue_net.c) */
    AOS__AM_RPC_CALL,   /* a call with its arguments (rpc/net.c) */
    AOS__AM_RPC_REPLY,  /* the reply to a call of mine (rpc/net.c) */
    AOS__AM_PORTAL_GRANT, /* a receiver's permission for me (ipc/portal.c) */
    AOS__AM_COUNT
};

/* Runs at the target on the thread that drives the transport's progress;
 * must not block. src is the sending PE. A handler may send messages
 * (am_send): the transport sends them once the handler has returned. */
typedef void (*aos__am_handler)(int src, const void *payload, size_t len);

/* Registered at start-up, before the first message can arrive. */
void aos__am_register(enum aos__am_id id, aos__am_handler fn);
/* Called by a transport for each message that arrives. */
void aos__am_dispatch(int src, unsigned id, const void *payload, size_t len);

#endif
