/* Remote queues over a segment of slots (protocol in queue/queue.h).
 * Producers on the node work on the owner's mapped memory with CPU atomics;
 * publishing an item is a release store that also wakes a sleeping owner,
 * and freeing a slot wakes one producer waiting for space on the queue's
 * own bell, and, while pending writes wait for one (mailbox writes with
 * events, whose threads wait on their own PE's bell), the node's bells.
 * Producers on other nodes send their items to the owner (queue_net.c).
 *
 * Threads: any of the owner's threads may dequeue and drive progress, so the
 * consumer side (every owner handle's head, its head hint, the pending
 * asynchronous dequeues) is guarded by consumer_lock. Progress only tries
 * the lock: a thread that holds it is completing the same requests. */
#include "queue/queue.h"
#include "core/handle.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "arch/atomics.h"
#include "core/event.h"
#include "core/runtime.h"
#include "core/wait.h"
#include "mem/segment.h"
#include "core/progress.h"

#define AOS__QUEUE_HANDLE_MAGIC 0x61717565u

struct aos_queue {
    uint32_t magic;
    int owner;
    int is_owner;                   /* my queue: I may dequeue and destroy */
    aos_seg_t *seg;
    struct aos__queue_header *hdr;  /* mapped; NULL for an owner on another node */
    char *slots;
    uint64_t slots_off;             /* arena offset of slot 0 (for waking) */
    uint64_t capacity;
    size_t item_size, slot_size;
    uint64_t head;                  /* owner only: next position to consume; consumer_lock */
    struct aos__work_hint *hint;   /* owner only: kept at the head; consumer_lock */
    struct aos__queue_credits credits; /* an off-node producer's pushes in flight */
};

/* Pending asynchronous dequeues, FIFO. */
struct pending {
    aos_queue_t *q;
    void *item;
    aos_event_t *ev;
    struct pending *next;
};
static struct pending *pending_head, **pending_tail = &pending_head;
static pthread_mutex_t consumer_lock = PTHREAD_MUTEX_INITIALIZER;

static void progress_locked(void);

static inline uint64_t *slot_seq(const aos_queue_t *q, uint64_t pos)
{
    return (uint64_t *)(void *)(q->slots + (pos % q->capacity) * q->slot_size);
}

static inline uint64_t slot_seq_off(const aos_queue_t *q, uint64_t pos)
{
    return q->slots_off + (pos % q->capacity) * q->slot_size;
}

static int check_queue(const aos_queue_t *q)
{
    if (q == NULL)
        return AOS_ERR_NULL;
    if (q->magic != AOS__QUEUE_HANDLE_MAGIC)
        return AOS_ERR_INVALID;
    uint64_t off; /* the segment's own checks: init, protocol, destroyed */
    return aos__seg_access(q->seg, 0, 0, AOS_PROTO_QUEUE, &off);
}

/* The segment found by key holds no queue: a queue is whole before its
 * segment is published (init_queue), so either it was destroyed since it
 * was found (its memory zeroed), and then there is no such queue now, or
 * the segment was never a queue (one of the user's, made with
 * AOS_PROTO_QUEUE). */
static int not_a_queue(const aos_seg_t *seg)
{
    return aos__seg_gone(seg) ? AOS_ERR_NO_KEY : AOS_ERR_PROTOCOL;
}

/* A producer's handle on a queue of another node: the geometry read once
 * by a get; items go by message (queue_net.c). */
static int open_remote(aos_seg_t *seg, aos_queue_t **out)
{
    struct aos__queue_header h;
    int rc = aos__tp(seg->owner)->get(&h, seg->owner, seg->arena_off, sizeof h, NULL);
    if (rc != AOS_OK)
        return rc;
    if (h.magic != AOS__QUEUE_MAGIC) /* see not_a_queue */
        return not_a_queue(seg);
    aos_queue_t *q = aos__handle_alloc(sizeof *q);
    if (q == NULL)
        return AOS_ERR_NO_MEMORY;
    *q = (aos_queue_t){.magic = AOS__QUEUE_HANDLE_MAGIC,
                       .owner = seg->owner,
                       .seg = seg,
                       .capacity = h.capacity,
                       .item_size = h.item_size,
                       .slot_size = h.slot_size};
    *out = q;
    return AOS_OK;
}

/* Builds a handle over an attached or created queue segment. */
static int open_handle(aos_seg_t *seg, int is_owner, aos_queue_t **out)
{
    void *p;
    int rc = aos__tp(seg->owner)->local_ptr(seg->owner, seg->arena_off, &p);
    if (rc == AOS_ERR_NOT_LOCAL && !is_owner)
        return open_remote(seg, out);
    if (rc != AOS_OK)
        return rc;
    struct aos__queue_header *h = p;
    if (aos__load_acquire(&h->magic) != AOS__QUEUE_MAGIC) /* pairs with init_queue's release */
        return not_a_queue(seg);
    aos_queue_t *q = aos__handle_alloc(sizeof *q);
    if (q == NULL)
        return AOS_ERR_NO_MEMORY;
    *q = (aos_queue_t){.magic = AOS__QUEUE_HANDLE_MAGIC,
                       .owner = seg->owner,
                       .is_owner = is_owner,
                       .seg = seg,
                       .hdr = h,
                       .slots = (char *)p + sizeof *h,
                       .slots_off = seg->arena_off + sizeof *h,
                       .capacity = h->capacity,
                       .item_size = h->item_size,
                       .slot_size = h->slot_size};
    *out = q;
    return AOS_OK;
}

/* Destroys a queue's segment (waking sleepers on `space`, if given).
 * Pushes from other nodes that came while it was published but not owned
 * by a queue handle (queue_net.c) are answered once it is gone. */
static void destroy_segment(aos_seg_t *seg, struct aos__bell *space)
{
    aos_seg_t name = *seg; /* the handle is freed */
    aos__seg_destroy_waking(seg, space);
    if (aos__rt.net != NULL)
        aos__queue_net_gone(&name);
}

/* A fresh queue in the segment's memory, before any PE can find it: an
 * attacher finds the queue whole or not at all. */
static void init_queue(void *mem, const void *ctx)
{
    const struct aos__queue_header *shape = ctx;
    struct aos__queue_header *h = mem;
    /* Relaxed atomic stores, here and below, though no PE can see the
     * queue yet: the network thread's ring may still read a word that a
     * sleeper of this PE watched when the memory held an earlier object
     * (aos__bell_ring_applied), and only compares it. */
    aos__store_relaxed(&h->capacity, shape->capacity);
    aos__store_relaxed(&h->item_size, shape->item_size);
    aos__store_relaxed(&h->slot_size, shape->slot_size);
    aos__store_relaxed(&h->tail, 0);
    char *slots = (char *)mem + sizeof *h;
    /* slot i free for position i */
    for (uint64_t i = 0; i < h->capacity; i++)
        aos__store_relaxed((uint64_t *)(void *)(slots + i * h->slot_size), 2 * i);
    /* Release: producers that see the magic see the initialised slots
     * (the segment's publication orders all of it for attachers too). */
    aos__store_release(&h->magic, AOS__QUEUE_MAGIC);
}

int aos__queue_create_reserved(uint64_t key, size_t item_size, size_t capacity,
                               aos_queue_t **q)
{
    AOS__CHECK_INIT();
    if (q == NULL)
        return AOS_ERR_NULL;
    if (item_size == 0 || item_size > AOS__QUEUE_MAX_ITEM || capacity == 0 ||
        capacity > ((uint64_t)1 << 40))
        return AOS_ERR_SIZE;
    /* Whole cache lines per slot: the owner freeing slot p does not take the
     * line a producer is filling for p+1, which would cost both of them a
     * line transfer per item (ping-pong latency and enqueue rate alike). */
    size_t slot = (sizeof(uint64_t) + item_size + AOS__LINE - 1) & ~(size_t)(AOS__LINE - 1);
    size_t bytes;
    if (__builtin_mul_overflow(slot, capacity, &bytes) ||
        __builtin_add_overflow(bytes, sizeof(struct aos__queue_header), &bytes))
        return AOS_ERR_SIZE;
    const struct aos__queue_header shape = {
        .capacity = capacity, .item_size = (uint32_t)item_size, .slot_size = (uint32_t)slot};
    int net = aos__rt.net != NULL; /* other nodes push by message (queue_net.c) */
    if (net)
        aos__queue_net_creating();
    aos_seg_t *seg = NULL;
    aos_queue_t *h = NULL;
    int rc = aos__seg_create_init(key, bytes, AOS_PROTO_QUEUE, init_queue, &shape, &seg);
    if (rc == AOS_OK)
        rc = open_handle(seg, 1, &h);
    if (net) {
        int registered = aos__queue_net_created(h, seg);
        if (rc == AOS_OK)
            rc = registered;
    }
    if (rc != AOS_OK) {
        if (h != NULL) {
            h->magic = 0;
            aos__handle_free(h);
        }
        if (seg != NULL)
            destroy_segment(seg, NULL);
        return rc;
    }
    *q = h;
    return AOS_OK;
}

int aos_queue_create(uint64_t key, size_t item_size, size_t capacity, aos_queue_t **q)
{
    if (aos__key_reserved(key))
        return AOS_ERR_INVALID;
    return aos__queue_create_reserved(key, item_size, capacity, q);
}

int aos__queue_attach_reserved(int owner, uint64_t key, aos_queue_t **q)
{
    if (q == NULL)
        return AOS_ERR_NULL;
    aos_seg_t *seg;
    int rc = aos__seg_attach_any(owner, key, &seg);
    if (rc != AOS_OK)
        return rc;
    if ((seg->protocols & AOS_PROTO_QUEUE) == 0) {
        aos_seg_detach(seg);
        return AOS_ERR_PROTOCOL;
    }
    rc = open_handle(seg, 0, q);
    if (rc != AOS_OK)
        aos_seg_detach(seg);
    return rc;
}

int aos_queue_attach(int owner, uint64_t key, aos_queue_t **q)
{
    if (aos__key_reserved(key))
        return AOS_ERR_INVALID;
    return aos__queue_attach_reserved(owner, key, q);
}

int aos_queue_detach(aos_queue_t *q)
{
    if (q == NULL)
        return AOS_ERR_NULL;
    if (q->magic != AOS__QUEUE_HANDLE_MAGIC || q->is_owner)
        return AOS_ERR_INVALID;
    if (q->hdr == NULL) /* answers to come name the handle */
        (void)aos__queue_net_drain(&q->credits);
    int rc = aos_seg_detach(q->seg);
    q->magic = 0;
    aos__handle_free(q);
    return rc;
}

void aos__queue_destroy_reserved(aos_queue_t *q)
{
    if (aos__rt.net != NULL)
        aos__queue_net_disowned(q); /* pushes now get AOS_ERR_DESTROYED */
    /* Producers waiting for space wake, find it destroyed and leave. */
    destroy_segment(q->seg, &q->hdr->space);
    q->magic = 0;
    aos__handle_free(q);
}

int aos__queue_destroy_checked(aos_queue_t *q)
{
    int rc = check_queue(q);
    if (rc != AOS_OK)
        return rc;
    if (!q->is_owner)
        return AOS_ERR_INVALID;
    pthread_mutex_lock(&consumer_lock);
    for (struct pending *p = pending_head; p != NULL; p = p->next) {
        if (p->q == q) {
            pthread_mutex_unlock(&consumer_lock);
            return AOS_ERR_AGAIN; /* an asynchronous dequeue still waits on it */
        }
    }
    pthread_mutex_unlock(&consumer_lock);
    aos__queue_destroy_reserved(q);
    return AOS_OK;
}

int aos_queue_destroy(aos_queue_t *q)
{
    if (q != NULL && q->magic == AOS__QUEUE_HANDLE_MAGIC && aos__key_reserved(q->seg->key))
        return AOS_ERR_INVALID;
    return aos__queue_destroy_checked(q);
}

/* consumer_lock held. Relaxed: the hint's readers load it relaxed and only
 * decide whether to try a dequeue, which checks again under the lock. */
static void update_hint(aos_queue_t *q)
{
    if (q->hint == NULL)
        return;
    aos__store_relaxed(&q->hint->word, (const uint64_t *)slot_seq(q, q->head));
    aos__store_relaxed(&q->hint->want, 2 * q->head + 1);
}

void aos__queue_set_hint(aos_queue_t *q, struct aos__work_hint *hint)
{
    pthread_mutex_lock(&consumer_lock);
    q->hint = hint;
    update_hint(q);
    pthread_mutex_unlock(&consumer_lock);
}

struct aos__bell *aos__queue_own_bell(aos_queue_t *q)
{
    /* Relaxed: producers attach after aos_init's barrier, which publishes it. */
    aos__store_relaxed(&q->hdr->own_bell, 1);
    return &q->hdr->items;
}

int aos_queue_item_size(const aos_queue_t *q, size_t *item_size)
{
    if (q == NULL || item_size == NULL)
        return AOS_ERR_NULL;
    if (q->magic != AOS__QUEUE_HANDLE_MAGIC)
        return AOS_ERR_INVALID;
    *item_size = q->item_size;
    return AOS_OK;
}

/* ---- producers -------------------------------------------------------------- */

/* One attempt: AOS_OK when the item is in, AOS_ERR_AGAIN when full; *full_pos
 * is the position found full (to wait on). */
static int enqueue_once(aos_queue_t *q, const void *item, uint64_t *full_pos)
{
    /* Relaxed: tail is only a hint of where to try; the CAS decides. */
    uint64_t pos = aos__load_relaxed(&q->hdr->tail);
    for (;;) {
        uint64_t *seq = slot_seq(q, pos);
        /* Acquire: pairs with the owner's release that freed the slot, so our
         * item write cannot overtake its read of the previous item. */
        uint64_t s = aos__load_acquire(seq);
        int64_t diff = (int64_t)(s - 2 * pos);
        if (diff == 0) {
            if (__atomic_compare_exchange_n(&q->hdr->tail, &pos, pos + 1, 0, __ATOMIC_RELAXED,
                                            __ATOMIC_RELAXED)) {
                memcpy(seq + 1, item, q->item_size);
                /* Relaxed: set by the owner before any producer could attach. */
                if (aos__load_relaxed(&q->hdr->own_bell)) {
                    aos__store_release(seq, 2 * pos + 1); /* the item before the sequence */
                    aos__fence_seq_cst(); /* the writer's half of the sleep protocol */
                    aos__bell_ring(&q->hdr->items, 0, UINT64_MAX, 1);
                    return AOS_OK;
                }
                /* Release + wake: the owner sees the item before the sequence. */
                return aos__tp(q->owner)->signal_store(q->owner, slot_seq_off(q, pos), 2 * pos + 1);
            }
            /* the CAS failure reloaded pos: try there */
        } else if (diff < 0) {
            *full_pos = pos;
            return AOS_ERR_AGAIN;
        } else {
            pos = aos__load_relaxed(&q->hdr->tail); /* another producer moved on */
        }
    }
}

static int check_item(aos_queue_t *q, const void *item)
{
    int rc = check_queue(q);
    if (rc == AOS_OK && item == NULL)
        rc = AOS_ERR_NULL;
    return rc;
}

/* An item for a queue of another node: sent to its owner, who answers. */
int aos__queue_enqueue_event(aos_queue_t *q, const void *item, aos_event_t *ev,
                             uint32_t *unanswered, int posted)
{
    if (q->hdr != NULL)
        return AOS_ERR_AGAIN;
    int rc = check_item(q, item);
    if (rc != AOS_OK) {
        if (posted)
            aos__event_fail_async(ev, rc);
        return rc;
    }
    return aos__queue_net_push(q->seg, item, q->item_size, 1, ev, unanswered, posted);
}

int aos__queue_try_enqueue(aos_queue_t *q, const void *item)
{
    return aos__queue_try_enqueue_watched(q, item, NULL);
}

int aos__queue_try_enqueue_watched(aos_queue_t *q, const void *item, int *watching)
{
    int rc = check_item(q, item);
    if (rc != AOS_OK)
        return rc;
    if (q->hdr == NULL)
        return aos__queue_net_push(q->seg, item, q->item_size, 0, NULL, NULL, 0);
    /* Nothing written once the owner destroys it, and the header stays
     * while I count in it. */
    rc = aos__seg_enter(q->seg);
    if (rc != AOS_OK)
        return rc;
    uint64_t full_pos;
    rc = enqueue_once(q, item, &full_pos);
    if (rc == AOS_ERR_AGAIN && watching != NULL && !*watching) {
        /* seq_cst, and the barrier after: with the dequeuer's exchange of a
         * slot's sequence and its look at the count (dequeue_once), either
         * the second try below sees the slot free or the dequeuer sees me. */
        (void)aos__fetch_add_seq_cst(&q->hdr->space_watchers, 1);
        aos__fence_after_rmw();
        *watching = 1;
        rc = enqueue_once(q, item, &full_pos);
    }
    if (rc != AOS_ERR_AGAIN && watching != NULL && *watching) {
        (void)aos__fetch_sub_relaxed(&q->hdr->space_watchers, 1); /* relaxed: a hint */
        *watching = 0;
    }
    aos__seg_leave(q->seg);
    return rc;
}

int aos_try_enqueue(aos_queue_t *q, const void *item)
{
    aos__serve_poll();
    return aos__queue_try_enqueue(q, item);
}

struct space_wait {
    const aos_queue_t *q;
    uint64_t pos;
};

/* Slot `pos` is free again, or the queue has moved past it, or the owner
 * destroyed it. */
static int space_ready(const void *ctx)
{
    const struct space_wait *w = ctx;
    /* Relaxed: the destroy's bell ring orders it before our wake. */
    if (aos__load_relaxed(w->q->seg->entry_state) != w->q->seg->state)
        return 1;
    uint64_t s = aos__load_acquire(slot_seq(w->q, w->pos)); /* pairs with dequeue's release */
    return (int64_t)(s - 2 * w->pos) >= 0 ||
           aos__load_relaxed(&w->q->hdr->tail) != w->pos; /* relaxed: a hint to retry */
}

int aos_enqueue(aos_queue_t *q, const void *item)
{
    aos__serve_poll();
    int rc = check_item(q, item);
    if (rc != AOS_OK)
        return rc;
    if (q->hdr == NULL) /* serves when it must wait for a credit */
        return aos__queue_net_stream(q->seg, item, q->item_size, &q->credits);
    /* Inside the guard while waiting too: the bell we sleep on is in the
     * queue's memory, which the owner's destroy reclaims only after we
     * leave (it wakes us first). */
    rc = aos__seg_enter(q->seg);
    if (rc != AOS_OK)
        return rc;
    for (;;) {
        uint64_t full_pos;
        rc = enqueue_once(q, item, &full_pos);
        if (rc != AOS_ERR_AGAIN)
            break;
        /* Full: sleep on the queue's space bell until the owner frees a slot. */
        struct space_wait w = {q, full_pos};
        rc = aos__wait_bell(&q->hdr->space, space_ready, &w, AOS__FOREVER, AOS__WATCH_ALL);
        if (rc == AOS_OK)
            rc = check_queue(q); /* destroyed while we waited: AOS_ERR_DESTROYED */
        if (rc != AOS_OK)
            break;
    }
    aos__seg_leave(q->seg);
    return rc;
}

/* ---- the owner ---------------------------------------------------------------- */

/* Wakes the sleepers of every PE of my node (the owner's, dequeuing): one
 * with a pending write to my queue may wait on its own bell for the slot
 * just freed. */
static void ring_node(void)
{
    for (int pe = 0; pe < aos__rt.npes; pe++)
        if (aos__on_node(pe))
            aos__bell_ring(&aos__rt.peers[pe].header->bell, 0, UINT64_MAX, 1);
}

/* consumer_lock held. */
static int dequeue_once(aos_queue_t *q, void *item)
{
    uint64_t pos = q->head;
    uint64_t *seq = slot_seq(q, pos);
    /* Acquire: pairs with the producer's release of 2p+1: the item is whole. */
    if (aos__load_acquire(seq) != 2 * pos + 1)
        return AOS_ERR_AGAIN;
    memcpy(item, seq + 1, q->item_size);
    /* Relaxed: written under consumer_lock; item_ready reads it unlocked
     * only to choose what to wait for, and rechecks under the lock. */
    aos__store_relaxed(&q->head, pos + 1);
    update_hint(q);
    /* Release (a seq_cst exchange): the slot is free for position
     * pos + capacity only after the item was copied out. The exchange is
     * also the barrier before the sleeper check: wake one waiting producer,
     * since one free slot serves one producer. */
    (void)aos__exchange_seq_cst(seq, 2 * (pos + q->capacity));
    aos__fence_after_rmw();
    aos__bell_ring(&q->hdr->space, 0, UINT64_MAX, 0);
    /* Relaxed after the barrier above, both: pending writes of my node's
     * PEs wait for a slot on their own bells (aos__queue_try_enqueue_watched),
     * and items from other nodes that found a queue full wait at this PE
     * (queue_net.c, deliver_locked). */
    if (aos__load_relaxed(&q->hdr->space_watchers) != 0)
        ring_node();
    if (aos__load_relaxed(&aos__queue_net_parked))
        aos__queue_net_retry();
    return AOS_OK;
}

static int check_owner(aos_queue_t *q, void *item)
{
    int rc = check_item(q, item);
    if (rc == AOS_OK && !q->is_owner)
        rc = AOS_ERR_INVALID;
    return rc;
}

int aos_try_dequeue(aos_queue_t *q, void *item)
{
    int rc = check_owner(q, item);
    if (rc != AOS_OK)
        return rc;
    pthread_mutex_lock(&consumer_lock);
    if (pending_head != NULL)
        progress_locked(); /* earlier asynchronous dequeues come first */
    for (struct pending *p = pending_head; p != NULL; p = p->next) {
        if (p->q == q) {
            pthread_mutex_unlock(&consumer_lock);
            return AOS_ERR_AGAIN;
        }
    }
    rc = dequeue_once(q, item);
    pthread_mutex_unlock(&consumer_lock);
    return rc;
}

/* What aos_dequeue waits for: the item at position pos, or the head moving
 * past it (this thread's progress or another consumer took it), after which
 * it watches the new head's slot. */
struct item_wait {
    const aos_queue_t *q;
    uint64_t pos;
};

static int item_ready(const void *ctx)
{
    const struct item_wait *w = ctx;
    /* Relaxed: see dequeue_once. */
    if (aos__load_relaxed(&w->q->head) != w->pos)
        return 1;
    return aos__load_acquire(slot_seq(w->q, w->pos)) == 2 * w->pos + 1; /* as dequeue_once */
}

int aos_dequeue(aos_queue_t *q, void *item)
{
    for (;;) {
        int rc = aos_try_dequeue(q, item);
        if (rc != AOS_ERR_AGAIN)
            return rc;
        struct item_wait w = {q, aos__load_relaxed(&q->head)}; /* relaxed: as item_ready */
        uint64_t off = slot_seq_off(q, w.pos);
        rc = aos__wait(item_ready, &w, AOS__FOREVER, (struct aos__watch){off, off + 8});
        if (rc != AOS_OK)
            return rc;
    }
}

int aos_dequeue_async(aos_queue_t *q, void *item, aos_event_t *ev)
{
    int rc = check_owner(q, item);
    if (rc != AOS_OK)
        return rc;
    if (ev == NULL)
        return aos_dequeue(q, item);
    if (ev->magic != AOS__EVENT_MAGIC)
        return AOS_ERR_INVALID;
    struct pending *p = malloc(sizeof *p);
    if (p == NULL)
        return AOS_ERR_NO_MEMORY;
    *p = (struct pending){.q = q, .item = item, .ev = ev};
    aos__event_post(ev);
    pthread_mutex_lock(&consumer_lock);
    *pending_tail = p;
    pending_tail = &p->next;
    /* Relaxed: a hint for aos__progress, read unlocked; the list is what
     * counts, under the lock. */
    aos__store_relaxed(&aos__rt.pending_requests, aos__rt.pending_requests + 1);
    progress_locked();
    pthread_mutex_unlock(&consumer_lock);
    return AOS_OK;
}

/* The progress hook: completes pending asynchronous dequeues that can be
 * completed now. */
static void queue_progress(void)
{
    /* Relaxed: a hint; the list is checked again under the lock. */
    if (aos__load_relaxed(&aos__rt.pending_requests) == 0)
        return;
    if (pthread_mutex_trylock(&consumer_lock) != 0)
        return; /* another thread holds it, completing these requests */
    progress_locked();
    pthread_mutex_unlock(&consumer_lock);
}

/* consumer_lock held. */
static void progress_locked(void)
{
    /* In issue order: a request completes only after the ones before it on
     * the same queue, so items land in the buffers in order. */
    struct pending **pp = &pending_head;
    while (*pp != NULL) {
        struct pending *p = *pp;
        int blocked = 0;
        for (struct pending *e = pending_head; e != p; e = e->next)
            blocked |= e->q == p->q;
        if (!blocked && dequeue_once(p->q, p->item) == AOS_OK) {
            *pp = p->next;
            if (pending_tail == &p->next)
                pending_tail = pp;
            aos__store_relaxed(&aos__rt.pending_requests, aos__rt.pending_requests - 1);
            /* Any thread's progress gets here, maybe not the event's. */
            aos__event_complete_async(p->ev);
            free(p);
            continue;
        }
        pp = &p->next;
    }
}

int aos__queue_start(void)
{
    int rc = aos__progress_hook_add(queue_progress);
    if (rc != AOS_OK)
        return rc;
    aos__queue_net_start();
    return AOS_OK;
}

void aos__queue_stop(void)
{
    aos__queue_net_stop();
}
