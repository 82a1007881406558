/* Remote queues across nodes. A producer on another node cannot claim a
 * slot with CPU atomics on the owner's memory, so it sends the item in a
 * message (AOS__AM_QUEUE_PUSH); the owner's side puts it in with the on-node
 * protocol (queue.c) and answers with the outcome (AOS__AM_QUEUE_DONE).
 *
 * Flow control: a push that finds the queue full is answered AOS_ERR_AGAIN
 * when the producer only tries (aos_try_enqueue waits for that answer), and
 * otherwise parked at the owner until a dequeue frees a slot, then
 * answered. aos_enqueue does not wait for its answer: it spends one of the
 * handle's AOS__QUEUE_NET_CREDITS and waits only when none is left, so a
 * producer streams items at the network's rate and the owner holds at most
 * that many parked items per producer handle. While earlier pushes of the
 * handle are unanswered a push is sent with AOS__AM_LATER: a burst leaves
 * as one network message, and its answers come back as one. Parked items
 * of one queue go in in arrival order, and while some are parked a new
 * push waits behind them, so one producer's items keep their order. Each
 * queue keeps its own line of parked items, so a dequeue looks at one item
 * per queue that has some, not at the whole backlog.
 *
 * A push names the queue by its segment: arena offset, key, directory
 * entry and that entry's state, which grows with every create and destroy
 * there. A queue destroyed, even one created again at once with the same
 * key at the same offset, is answered AOS_ERR_DESTROYED (the new one takes
 * none of the old one's items), and so are the items parked on a queue
 * when it is destroyed. A push can also arrive between the publication of
 * a queue's segment and the end of its creation (aos__queue_net_created):
 * it names a live queue, so it is kept and put in first once the creation
 * ends. */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "arch/atomics.h"
#include "core/am.h"
#include "core/event.h"
#include "core/runtime.h"
#include "core/wait.h"
#include "queue/queue.h"

/* One queue's life at its owner: its segment's place and directory entry. */
struct queue_name {
    uint64_t off; /* in the owner's arena */
    uint64_t key;
    uint64_t state; /* of the directory entry */
    uint32_t index; /* the directory entry */
    uint32_t reserved;
};

static struct queue_name name_of(const aos_seg_t *seg)
{
    return (struct queue_name){.off = seg->arena_off, .key = seg->key, .state = seg->state,
                               .index = seg->index};
}

static int same_queue(const struct queue_name *a, const struct queue_name *b)
{
    return a->off == b->off && a->key == b->key && a->state == b->state && a->index == b->index;
}

struct push_msg {
    uint64_t token; /* the producer's struct answer */
    struct queue_name queue;
    uint32_t wait; /* park when full, rather than answer AOS_ERR_AGAIN */
    uint32_t len;
    char item[AOS__QUEUE_MAX_ITEM];
};
#define PUSH_HEAD offsetof(struct push_msg, item)
_Static_assert(sizeof(struct push_msg) <= AOS__AM_MAX, "a push is one message");

struct done_msg {
    uint64_t token;
    int64_t rc;
};

/* The producer's side of one push that waits for its answer (a token with
 * the low bit clear; set: the handle's struct aos__queue_credits). */
struct answer {
    aos_event_t *ev; /* NULL: a thread waits for `done` */
    uint32_t *unanswered; /* with ev: the sender's count of such pushes, or NULL */
    int rc;
    uint32_t done;
};

/* My queues that other nodes may push to. */
struct owned {
    aos_queue_t *q;
    struct queue_name name;
    struct owned *next;
};

struct parked {
    int src;        /* -1: parked by this PE (an RPC request), nobody to answer */
    int rc;         /* the answer, once it is in */
    uint64_t token;
    struct parked *next;
    char item[];
};

/* The items parked on one of my queues, oldest first. */
struct line {
    aos_queue_t *q;
    struct parked *head, **tail;
    struct line *next;
};

/* A push that reached a queue of mine after its segment was published but
 * before its creation ended: the queue lives (its producer attached it),
 * so it is kept whole, and put in first once the queue is owned. */
struct early {
    struct early *next;
    struct queue_name queue;
    int src;
    int rc; /* the answer, once it is in */
    uint64_t token;
    uint32_t wait;
    uint32_t len;
    char item[];
};

/* Guards the lists. Taken by message handlers and by dequeuers, for a
 * few list operations and local enqueues; no message is sent under it. */
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static struct owned *owned;
static struct line *lines; /* the queues with items parked */
static struct early *early_head, **early_tail = &early_head; /* in arrival order */
/* Queue creations under way: only while some are, a push to a segment
 * that is published but not owned is kept (it may name one of them); when
 * the last ends, what is kept named none of them and is answered. */
static unsigned creating;
uint32_t aos__queue_net_parked;

/* ---- the owner's side ------------------------------------------------------- */

static void answer(int src, uint64_t token, int rc)
{
    if (src < 0)
        return;
    struct done_msg d = {.token = token, .rc = rc};
    (void)aos__tp(src)->am_send(src, AOS__AM_QUEUE_DONE, &d, sizeof d, 0);
}

/* Answers collected under the lock, sent after it. */
struct answers {
    struct parked *head;
};

static void send_answers(struct answers *a)
{
    while (a->head != NULL) {
        struct parked *p = a->head;
        a->head = p->next;
        answer(p->src, p->token, p->rc);
        free(p);
    }
}

/* The link to q's line of parked items (*link NULL: none). Lock held. */
static struct line **line_of(const aos_queue_t *q)
{
    struct line **link = &lines;
    while (*link != NULL && (*link)->q != q)
        link = &(*link)->next;
    return link;
}

/* Answers every item of the line at *link with rc (AOS_ERR_AGAIN: only
 * those that now fit, oldest first) and drops the line once empty. Lock
 * held. */
static void settle_line(struct line **link, int rc, struct answers *done)
{
    struct line *l = *link;
    while (l->head != NULL) {
        struct parked *p = l->head;
        p->rc = rc == AOS_ERR_AGAIN ? aos__queue_try_enqueue(l->q, p->item) : rc;
        if (p->rc == AOS_ERR_AGAIN)
            return; /* full: the later ones wait behind it (their order) */
        l->head = p->next;
        p->next = done->head;
        done->head = p;
    }
    *link = l->next;
    free(l);
}

static void flag_parked(void)
{
    /* Relaxed: a hint for dequeuers; the lock orders the lists themselves. */
    aos__store_relaxed(&aos__queue_net_parked, lines != NULL);
}

/* Puts parked items in while they fit. Lock held. */
static void retry_locked(struct answers *done)
{
    for (struct line **link = &lines; *link != NULL;) {
        struct line *l = *link;
        settle_line(link, AOS_ERR_AGAIN, done);
        if (*link == l) /* still has some */
            link = &l->next;
    }
    flag_parked();
}

void aos__queue_net_retry(void)
{
    struct answers done = {0};
    pthread_mutex_lock(&lock);
    retry_locked(&done);
    pthread_mutex_unlock(&lock);
    send_answers(&done);
}

#define PARKED 1 /* deliver_locked: the item waits for a slot */

/* Puts item into my queue q now, or parks it when q is full (or has parked
 * items) and the push may wait. Lock held. */
static int deliver_locked(aos_queue_t *q, const void *item, size_t len, int wait, int src,
                          uint64_t token)
{
    struct line **link = line_of(q), *l = *link;
    int rc = l != NULL ? AOS_ERR_AGAIN : aos__queue_try_enqueue(q, item);
    if (rc != AOS_ERR_AGAIN || !wait)
        return rc;
    struct parked *p = malloc(sizeof *p + len);
    if (p == NULL)
        return AOS_ERR_NO_MEMORY;
    if (l == NULL) { /* a new line, at the end of the list */
        l = malloc(sizeof *l);
        if (l == NULL) {
            free(p);
            return AOS_ERR_NO_MEMORY;
        }
        *l = (struct line){.q = q, .head = NULL, .tail = &l->head};
        *link = l;
    }
    *p = (struct parked){.src = src, .token = token};
    memcpy(p->item, item, len);
    *l->tail = p;
    l->tail = &p->next;
    /* seq_cst: the parked flag before the retry's look at the slots, as a
     * dequeuer frees a slot before it looks at the flag (queue.c,
     * dequeue_once): one of the two sees the other, so no item stays parked
     * beside a free slot. */
    aos__store_relaxed(&aos__queue_net_parked, 1);
    aos__fence_seq_cst();
    return PARKED;
}

int aos__queue_deliver(aos_queue_t *q, const void *item, size_t len)
{
    struct answers done = {0};
    pthread_mutex_lock(&lock);
    int rc = deliver_locked(q, item, len, 1, -1, 0);
    if (rc == PARKED) {
        retry_locked(&done); /* a slot may have been freed meanwhile */
        rc = AOS_OK;
    }
    pthread_mutex_unlock(&lock);
    send_answers(&done);
    return rc;
}

/* Keeps a push to a queue being created (struct early). Lock held. */
static int keep_early(const struct push_msg *m, int src)
{
    struct early *e = malloc(sizeof *e + m->len);
    if (e == NULL)
        return AOS_ERR_NO_MEMORY;
    *e = (struct early){.queue = m->queue, .src = src, .token = m->token, .wait = m->wait,
                        .len = m->len};
    memcpy(e->item, m->item, m->len);
    *early_tail = e;
    early_tail = &e->next;
    return PARKED; /* answered once the creation ends */
}

/* Takes the kept pushes to the queue named `name` (name NULL: all of them),
 * in arrival order: into q, or, with q NULL, answered AOS_ERR_DESTROYED.
 * Those answered go to the front of *answered, to be sent after the lock
 * (answer_early). Lock held. */
static void take_early(aos_queue_t *q, const struct queue_name *name, struct early **answered,
                       struct answers *done)
{
    size_t item_size = 0;
    if (q != NULL && aos_queue_item_size(q, &item_size) != AOS_OK)
        q = NULL;
    int parked = 0;
    for (struct early **link = &early_head; *link != NULL;) {
        struct early *e = *link;
        if (name != NULL && !same_queue(&e->queue, name)) {
            link = &e->next;
            continue;
        }
        *link = e->next;
        if (early_tail == &e->next)
            early_tail = link;
        e->rc = q == NULL ? AOS_ERR_DESTROYED
                : e->len != item_size
                    ? AOS_ERR_PROTOCOL
                    : deliver_locked(q, e->item, e->len, (int)e->wait, e->src, e->token);
        if (e->rc == PARKED) { /* the line answers it */
            parked = 1;
            free(e);
        } else {
            e->next = *answered;
            *answered = e;
        }
    }
    if (parked)
        retry_locked(done); /* a slot may have been freed meanwhile */
}

/* Sends the answers take_early collected (newest first): oldest first. */
static void answer_early(struct early *newest)
{
    struct early *e = NULL;
    while (newest != NULL) {
        struct early *next = newest->next;
        newest->next = e;
        e = newest;
        newest = next;
    }
    while (e != NULL) {
        struct early *next = e->next;
        answer(e->src, e->token, e->rc);
        free(e);
        e = next;
    }
}

static void on_push(int src, const void *payload, size_t len)
{
    struct push_msg m;
    if (len < PUSH_HEAD || len > sizeof m)
        return;
    memcpy(&m, payload, len);
    struct answers done = {0};
    pthread_mutex_lock(&lock);
    struct owned *o = owned;
    while (o != NULL && !same_queue(&o->name, &m.queue))
        o = o->next;
    size_t item_size = 0;
    int rc = AOS_ERR_DESTROYED;
    if (o != NULL && aos_queue_item_size(o->q, &item_size) == AOS_OK)
        rc = m.len == item_size && len == PUSH_HEAD + m.len
                 ? deliver_locked(o->q, m.item, m.len, (int)m.wait, src, m.token)
                 : AOS_ERR_PROTOCOL;
    else if (o == NULL && creating != 0 && len == PUSH_HEAD + m.len &&
             aos__seg_mine_published(m.queue.index, m.queue.state))
        rc = keep_early(&m, src);
    if (rc == PARKED)
        retry_locked(&done); /* a slot may have been freed meanwhile */
    pthread_mutex_unlock(&lock);
    send_answers(&done);
    if (rc != PARKED)
        answer(src, m.token, rc);
}

void aos__queue_net_creating(void)
{
    pthread_mutex_lock(&lock);
    creating++;
    pthread_mutex_unlock(&lock);
}

int aos__queue_net_created(aos_queue_t *q, const aos_seg_t *seg)
{
    int rc = AOS_OK;
    struct owned *o = NULL;
    if (q != NULL && (o = malloc(sizeof *o)) == NULL)
        rc = AOS_ERR_NO_MEMORY;
    struct queue_name name = seg != NULL ? name_of(seg) : (struct queue_name){0};
    struct answers done = {0};
    struct early *answered = NULL;
    pthread_mutex_lock(&lock);
    if (o != NULL) {
        *o = (struct owned){.q = q, .name = name, .next = owned};
        owned = o;
    }
    if (seg != NULL)
        take_early(o != NULL ? q : NULL, &name, &answered, &done);
    if (--creating == 0) /* what is left named no queue being created */
        take_early(NULL, NULL, &answered, &done);
    pthread_mutex_unlock(&lock);
    send_answers(&done);
    answer_early(answered);
    return rc;
}

void aos__queue_net_gone(const aos_seg_t *seg)
{
    struct queue_name name = name_of(seg);
    struct answers done = {0};
    struct early *answered = NULL;
    pthread_mutex_lock(&lock);
    take_early(NULL, &name, &answered, &done);
    pthread_mutex_unlock(&lock);
    send_answers(&done);
    answer_early(answered);
}

void aos__queue_net_disowned(aos_queue_t *q)
{
    struct answers gone = {0};
    pthread_mutex_lock(&lock);
    for (struct owned **link = &owned; *link != NULL; link = &(*link)->next) {
        if ((*link)->q == q) {
            struct owned *o = *link;
            *link = o->next;
            free(o);
            break;
        }
    }
    struct line **link = line_of(q);
    if (*link != NULL)
        settle_line(link, AOS_ERR_DESTROYED, &gone);
    flag_parked();
    pthread_mutex_unlock(&lock);
    send_answers(&gone);
}

/* ---- the producer's side ------------------------------------------------------ */

/* Returns a credit of c; a thread of mine may sleep waiting for one. */
static void credit_back(struct aos__queue_credits *c)
{
    /* seq_cst: releases what came before (an error stored) to credit_taken
     * and credits_back, and orders the sleeper check after it. */
    aos__fetch_sub_seq_cst(&c->in_flight, 1);
    aos__fence_after_rmw();
    aos__bell_ring_mine();
}

static void on_done(int src, const void *payload, size_t len)
{
    (void)src;
    struct done_msg d;
    if (len != sizeof d)
        return;
    memcpy(&d, payload, sizeof d);
    if (d.token & 1) {
        struct aos__queue_credits *c = (struct aos__queue_credits *)(uintptr_t)(d.token - 1);
        int32_t none = AOS_OK;
        if (d.rc != AOS_OK) /* the first refusal, for the producer's next call */
            __atomic_compare_exchange_n(&c->error, &none, (int32_t)d.rc, 0, __ATOMIC_RELAXED,
                                        __ATOMIC_RELAXED);
        credit_back(c); /* after the error is stored */
        return;
    }
    struct answer *a = (struct answer *)(uintptr_t)d.token;
    if (a == NULL)
        return;
    if (a->ev != NULL) {
        aos_event_t *ev = a->ev;
        /* Release: pairs with the sender's acquire (aos_mbox_close); its
         * count is down by the time the event says done. */
        if (a->unanswered != NULL)
            aos__fetch_sub_release(a->unanswered, 1);
        free(a);
        aos__event_done_async(ev, (int)d.rc); /* a refusal: destroyed */
        return;
    }
    a->rc = (int)d.rc;
    /* Release: pairs with answered()'s acquire; rc first. After this store
     * the waiter may return and free a: nothing touches it below. */
    aos__store_release(&a->done, 1);
    aos__fence_seq_cst(); /* the writer's half of the sleep protocol (core/wait.c) */
    aos__bell_ring_mine();
}

static int answered(const void *ctx)
{
    const struct answer *a = ctx;
    return aos__load_acquire(&a->done) != 0; /* pairs with on_done's release */
}

/* Takes one of the handle's credits if one is free: threads sharing the
 * handle never hold more than AOS__QUEUE_NET_CREDITS between them. */
static int credit_taken(const void *ctx)
{
    struct aos__queue_credits *c = (struct aos__queue_credits *)(uintptr_t)ctx;
    /* Acquire, the load and the compare-exchange: they pair with
     * credit_back's seq_cst decrement, so that an error stored before a
     * credit came back is seen. */
    uint32_t n = aos__load_acquire(&c->in_flight);
    while (n < AOS__QUEUE_NET_CREDITS)
        if (aos__cas_acquire(&c->in_flight, &n, n + 1))
            return 1;
    return 0;
}

static int credits_back(const void *ctx)
{
    const struct aos__queue_credits *c = ctx;
    return aos__load_acquire(&c->in_flight) == 0; /* pairs with credit_back */
}

int aos__queue_net_stream(const aos_seg_t *seg, const void *item, size_t len,
                          struct aos__queue_credits *c)
{
    /* A free credit is taken without a turn of progress (a wait's first
     * step), so that the pushes of a stream fill one message; the wait for
     * one when none is free serves, and sends them. */
    int rc = credit_taken(c) ? AOS_OK : aos__wait(credit_taken, c, AOS__FOREVER, AOS__WATCH_ALL);
    if (rc != AOS_OK)
        return rc;
    /* Relaxed: the first refusal of an earlier item, reported once; the
     * acquire that took the credit ordered it. */
    int32_t err = aos__exchange_relaxed(&c->error, AOS_OK);
    if (err != AOS_OK) {
        credit_back(c);
        return err;
    }
    int owner = seg->owner;
    struct push_msg m = {.token = (uintptr_t)c + 1, .queue = name_of(seg), .wait = 1,
                         .len = (uint32_t)len};
    memcpy(m.item, item, len);
    /* With earlier pushes of the handle unanswered this one may wait for
     * their answers, and leave with the others sent meanwhile. Relaxed: a
     * hint; the answers' arrival, or the transport's progress, sends it. */
    unsigned later = aos__load_relaxed(&c->in_flight) > 1 ? AOS__AM_LATER : 0;
    rc = aos__tp(owner)->am_send(owner, AOS__AM_QUEUE_PUSH, &m, PUSH_HEAD + len, later);
    if (rc != AOS_OK)
        credit_back(c);
    return rc;
}

int aos__queue_net_drain(struct aos__queue_credits *c)
{
    return aos__wait(credits_back, c, AOS__FOREVER, AOS__WATCH_ALL);
}

int aos__queue_net_push(const aos_seg_t *seg, const void *item, size_t len, int wait,
                        aos_event_t *ev, uint32_t *unanswered, int posted)
{
    int owner = seg->owner;
    struct answer *a = malloc(sizeof *a);
    if (a == NULL) {
        if (posted)
            aos__event_fail_async(ev, AOS_ERR_NO_MEMORY);
        return AOS_ERR_NO_MEMORY;
    }
    *a = (struct answer){.ev = ev, .unanswered = ev != NULL ? unanswered : NULL};
    if (a->unanswered != NULL) /* relaxed: the answer's release comes after */
        aos__fetch_add_relaxed(a->unanswered, 1);
    struct push_msg m = {.token = (uintptr_t)a, .queue = name_of(seg),
                         .wait = (uint32_t)(wait || ev != NULL), .len = (uint32_t)len};
    memcpy(m.item, item, len);
    if (ev != NULL && !posted)
        aos__event_post(ev);
    int rc = aos__tp(owner)->am_send(owner, AOS__AM_QUEUE_PUSH, &m, PUSH_HEAD + len, 0);
    if (rc != AOS_OK) {
        if (a->unanswered != NULL)
            aos__fetch_sub_release(a->unanswered, 1); /* release: as in on_done */
        if (ev != NULL && posted)
            aos__event_fail_async(ev, rc);
        else if (ev != NULL)
            aos__event_complete(ev);
        free(a);
        return rc;
    }
    if (ev != NULL)
        return AOS_OK; /* on_done completes ev and frees a */
    rc = aos__wait(answered, a, AOS__FOREVER, AOS__WATCH_ALL);
    if (rc != AOS_OK)
        return rc; /* a stays: the answer may still come */
    rc = a->rc;
    free(a);
    return rc;
}

void aos__queue_net_start(void)
{
    aos__am_register(AOS__AM_QUEUE_PUSH, on_push);
    aos__am_register(AOS__AM_QUEUE_DONE, on_done);
}

void aos__queue_net_stop(void)
{
    struct answers done = {0};
    struct early *answered = NULL;
    pthread_mutex_lock(&lock);
    take_early(NULL, NULL, &answered, &done);
    while (lines != NULL) {
        struct line *l = lines;
        lines = l->next;
        while (l->head != NULL) {
            struct parked *p = l->head;
            l->head = p->next;
            free(p);
        }
        free(l);
    }
    while (owned != NULL) {
        struct owned *o = owned;
        owned = o->next;
        free(o);
    }
    aos__store_relaxed(&aos__queue_net_parked, 0);
    pthread_mutex_unlock(&lock);
    send_answers(&done);
    answer_early(answered);
}
