/* What aosrun has yet to send one PE over its bootstrap socket. Sending
 * queues and writes what the socket takes without blocking: a PE that
 * stops reading (stopped, stuck, or one that never reads) must not stop
 * aosrun's loop, which also watches --timeout, signals and the other PEs.
 *
 * A message is an item, made once and queued for any number of PEs (one
 * copy of a blob however many PEs still have to read it). An item may
 * carry a descriptor (SCM_RIGHTS), sent with its first byte: such an item
 * must be small enough to go in one piece (the reader's recvmsg stops at
 * the descriptor), and its descriptor stays the caller's, open while an
 * outbox holds it (aosrun_outbox_holds_fd). */
#ifndef AOSRUN_OUTBOX_H
#define AOSRUN_OUTBOX_H

#include <stddef.h>

struct aosrun_outbox_item;
struct aosrun_outbox_msg;

struct aosrun_outbox {
    struct aosrun_outbox_msg *head, *tail;
    size_t fds;  /* queued messages that carry a descriptor */
    int stalled; /* the last send was refused for descriptors in flight */
};

/* An item of a then b (b may be empty) with fd (-1: none), held once by
 * the caller; NULL when memory ran out. */
struct aosrun_outbox_item *aosrun_outbox_item(const void *a, size_t alen, const void *b,
                                              size_t blen, int fd);
/* Lets go of the caller's hold; the item lives on in the outboxes. */
void aosrun_outbox_item_release(struct aosrun_outbox_item *it);

/* Queues it and sends what sock takes now. Returns 0, or -1 with errno
 * set when the PE's end is gone (EPIPE, ECONNRESET), the socket failed or
 * memory ran out: the outbox is then cleared. */
int aosrun_outbox_send(struct aosrun_outbox *o, int sock, struct aosrun_outbox_item *it);
/* Sends what is queued as far as sock takes it; 0 or -1 as above. */
int aosrun_outbox_flush(struct aosrun_outbox *o, int sock);
/* Whether something waits to be sent (the loop then polls for POLLOUT). */
int aosrun_outbox_waiting(const struct aosrun_outbox *o);
/* Whether the outbox waits, not for room in the socket, but for the PEs
 * to take descriptors in flight: the kernel counts those against the
 * sender's descriptor limit (ETOOMANYREFS), and poll does not say when
 * that changes, so the caller tries again after a while. */
int aosrun_outbox_stalled(const struct aosrun_outbox *o);
/* Whether a queued message carries a descriptor. */
int aosrun_outbox_holds_fd(const struct aosrun_outbox *o);
/* Drops what is queued (the PE's socket is closed). */
void aosrun_outbox_clear(struct aosrun_outbox *o);

#endif
