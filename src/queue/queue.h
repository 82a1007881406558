/* Remote queues: the shared layout and the hooks the core calls. */
#ifndef AOS_QUEUE_H
#define AOS_QUEUE_H

#include <stddef.h>
#include <stdint.h>

#include "aos.h"
#include "core/layout.h"
#include "core/progress.h"
#include "mem/segment.h"

#define AOS__QUEUE_MAGIC 0x616f735155455545ull /* "aosQUEUE" */
#define AOS__QUEUE_MAX_ITEM 256

/* At the start of the queue's segment. Slots follow, `slot_size` bytes each
 * (whole cache lines): a 64-bit sequence word, then the item.
 *
 * Slot protocol (a bounded multi-producer queue with per-slot sequence
 * numbers, in the doubled encoding that also works for capacity 1): the slot
 * for position p is slots[p % capacity]; its sequence is
 *   2p        free for the producer that claims position p,
 *   2p + 1    holding p's item, for the consumer,
 *   2(p + capacity) once consumed: free for position p + capacity.
 * A producer claims p by a CAS of `tail` from p to p+1 after seeing 2p, fills
 * the item and publishes 2p+1 with release. The owner consumes in position
 * order, so each producer's items come out in the order it enqueued them. */
struct aos__queue_header {
    uint64_t magic;
    uint64_t capacity;
    uint32_t item_size;
    uint32_t slot_size;
    uint64_t own_bell; /* 1: the owner's consumer sleeps on `items`, not the PE's bell */
    /* Pending writes of this node's PEs waiting for a slot (mailbox writes
     * with events, aos__queue_try_enqueue_watched), whose threads sleep on
     * their own PE's bell: while there are any, a dequeue rings the node's. */
    uint64_t space_watchers;
    uint64_t pad0[AOS__LINE / 8 - 5];
    uint64_t tail; /* next position to claim; CAS by producers */
    uint64_t pad1[AOS__LINE / 8 - 1];
    /* Producers waiting for space sleep here, apart from the owner's own
     * bell, so that publishing an item never wakes them and freeing a slot
     * wakes one of them, not all. */
    struct aos__bell space;
    /* A consumer that should not share the owner's bell with its other
     * threads (the RPC progress thread) sleeps here; see own_bell. */
    struct aos__bell items;
};
_Static_assert(sizeof(struct aos__queue_header) == 6 * AOS__LINE, "queue header is six lines");
_Static_assert(offsetof(struct aos__queue_header, items) == 4 * AOS__LINE, "items bell lines");
_Static_assert(offsetof(struct aos__queue_header, space) == 2 * AOS__LINE, "space bell line");
_Static_assert(offsetof(struct aos__queue_header, tail) == AOS__LINE, "tail on its own line");


/* The keys of aos's own queues and segments; reserved: aos_seg_* and
 * aos_queue_* calls with them get AOS_ERR_INVALID. (AOS__RESERVED_KEY
 * itself named the notification queue before notifications had lanes.) */
#define AOS__RPC_QUEUE_KEY (AOS__RESERVED_KEY - 1)
#define AOS__RPC_AREA_KEY (AOS__RESERVED_KEY - 2)
int aos__queue_create_reserved(uint64_t key, size_t item_size, size_t capacity,
                               aos_queue_t **q);
int aos__queue_attach_reserved(int owner, uint64_t key, aos_queue_t **q);
void aos__queue_destroy_reserved(aos_queue_t *q);
/* aos_queue_destroy without the reserved-key check: owner only, no
 * asynchronous dequeue pending (AOS_ERR_AGAIN). */
int aos__queue_destroy_checked(aos_queue_t *q);

/* Notified access (notify.c): set up and torn down with the runtime; the
 * progress hook drains my notification lanes into requests. */
int aos__notify_start(void);
void aos__notify_stop(void);

/* aos_try_enqueue without looking for RPCs to serve first: for aos's own
 * producers that run inside progress (pending RPC calls, mailbox writes),
 * where serving could re-enter the list being walked. */
int aos__queue_try_enqueue(aos_queue_t *q, const void *item);
/* The same for a pending write polled until it goes in, whose issuing
 * thread waits on its own PE's bell (an event): from the first refusal,
 * *watching is set and every dequeue rings the bells of the queue's node,
 * until a later call puts it in (or finds the queue destroyed). watching
 * NULL: aos__queue_try_enqueue. A queue on another node: no watching. */
int aos__queue_try_enqueue_watched(aos_queue_t *q, const void *item, int *watching);
/* From now on every dequeue from q keeps *hint at q's head (owner only):
 * *word holds want once an item waits there. Every dequeue updates it
 * (under the queue's consumer lock); others read both fields relaxed, as a
 * hint for whether a dequeue is worth trying, since a reader racing a
 * dequeue may see one field new and the other old. */
void aos__queue_set_hint(aos_queue_t *q, struct aos__work_hint *hint);

/* Queues across nodes (queue_net.c). An off-node producer's handle has no
 * mapping; its items go to the owner in messages and wait for the answer
 * (with ev: ev completes when it comes, and *unanswered, unless NULL,
 * counts the push until then). */
void aos__queue_net_start(void);
void aos__queue_net_stop(void);
/* The queue layer's start and stop with the runtime: its progress hook
 * (pending asynchronous dequeues) and the off-node side. */
int aos__queue_start(void);
void aos__queue_stop(void);
int aos__queue_net_push(const aos_seg_t *seg, const void *item, size_t len, int wait,
                        aos_event_t *ev, uint32_t *unanswered, int posted);
/* aos_enqueue's push: returns once the item is sent, holding one of the
 * handle's credits until the owner answers (waits while none is free). An
 * item the owner refused (destroyed) is reported by the next call. */
#define AOS__QUEUE_NET_CREDITS 64u
struct aos__queue_credits {
    uint32_t in_flight; /* pushes sent and not answered */
    int32_t error;      /* the first refusal not yet reported */
};
int aos__queue_net_stream(const aos_seg_t *seg, const void *item, size_t len,
                          struct aos__queue_credits *c);
/* Waits until every streamed push of the handle has been answered. */
int aos__queue_net_drain(struct aos__queue_credits *c);
/* The owner's side. A queue's creation is announced before its segment is
 * published (creating) and ended after (created: q, or NULL when it failed;
 * seg, or NULL when none was published): from then q takes pushes from
 * other nodes, those that came since seg was published first. created
 * returns AOS_ERR_NO_MEMORY when q could not be registered (the caller then
 * destroys it). disowned: q takes none from now on (parked ones are
 * answered AOS_ERR_DESTROYED). */
void aos__queue_net_creating(void);
int aos__queue_net_created(aos_queue_t *q, const aos_seg_t *seg);
void aos__queue_net_disowned(aos_queue_t *q);
/* seg (a copy of the handle) is destroyed: pushes that reached it while it
 * was published but not owned are answered AOS_ERR_DESTROYED. */
void aos__queue_net_gone(const aos_seg_t *seg);
/* Non-zero while pushes wait at this PE for space; a dequeue then retries
 * them (aos__queue_net_retry). */
extern uint32_t aos__queue_net_parked;
void aos__queue_net_retry(void);
/* Puts item into my queue q, parking it when q is full: it goes in with a
 * later dequeue (RPC requests from other nodes, which cannot wait). */
int aos__queue_deliver(aos_queue_t *q, const void *item, size_t len);
/* A write with an event to a queue of another node: sent now, ev completes
 * when the owner has it (or has destroyed the queue); *unanswered (unless
 * NULL) counts such writes until then. posted: the writer posted ev for it
 * already (the caller may be another thread, which must not post it); the
 * write takes that post over, completing it even when sending fails.
 * Without ev: returns the owner's answer, once it has the item.
 * AOS_ERR_AGAIN for a queue on this node (the caller keeps its own pending
 * list). */
int aos__queue_enqueue_event(aos_queue_t *q, const void *item, aos_event_t *ev,
                             uint32_t *unanswered, int posted);

/* From now on producers wake q's consumer on this bell of q's own instead
 * of the owner's bell (owner only; before any producer attaches). */
struct aos__bell *aos__queue_own_bell(aos_queue_t *q);

#endif
