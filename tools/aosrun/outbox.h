/* What aosrun has yet to send one PE over its bootstrap socket. Sending
 * queues and writes what the socket takes without blocking: a PE that
 * stops reading (stopped, stuck, or one that never reads) must not stop
 * aosrun's loop, which also watches --timeout, signals and the other PEs.
 * A message may carry a descriptor (SCM_RIGHTS), sent with its first byte;
 * the descriptor stays the caller's and must stay open until the outbox
 * is empty or cleared. */
#ifndef AOSRUN_OUTBOX_H
#define AOSRUN_OUTBOX_H

#include <stddef.h>

struct aosrun_outbox_msg;

struct aosrun_outbox {
    struct aosrun_outbox_msg *head, *tail;
};

/* Queues one message, a then b (b may be empty), with fd (-1: none), and
 * sends what sock takes now. Returns 0, or -1 when the PE's end is gone
 * or memory ran out: the outbox is then cleared. */
int aosrun_outbox_send(struct aosrun_outbox *o, int sock, const void *a, size_t alen,
                       const void *b, size_t blen, int fd);
/* Sends what is queued as far as sock takes it; 0 or -1 as above. */
int aosrun_outbox_flush(struct aosrun_outbox *o, int sock);
/* Whether something waits to be sent (the loop then polls for POLLOUT). */
int aosrun_outbox_waiting(const struct aosrun_outbox *o);
/* Drops what is queued (the PE's socket is closed). */
void aosrun_outbox_clear(struct aosrun_outbox *o);

#endif
