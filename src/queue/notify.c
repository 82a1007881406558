/* Notified access. Every PE owns a notification queue (an aos queue under a
 * reserved key) of {source, tag, segment} items. Senders complete the data
 * transfer, then enqueue; the owner drains the queue in aos__progress and
 * matches each notification against its started requests, or keeps it in
 * the unexpected list. */
#include <stdlib.h>

#include "core/runtime.h"
#include "core/wait.h"
#include "mem/segment.h"
#include "queue/queue.h"
#include "rma/rma.h"

#define NOTIFY_CAPACITY 4096
#define REQ_MAGIC 0x616e7271u

struct note {
    uint32_t source;
    uint32_t tag;
    uint32_t segment; /* directory index of the target segment */
    uint32_t state;   /* its directory state, so a reused slot does not match */
};
_Static_assert(sizeof(struct note) == 16, "a notification is 16 bytes");

struct aos_notify_req {
    uint32_t magic;
    uint32_t segment;
    uint32_t seg_state;
    int source;        /* or AOS_ANY_SOURCE */
    int64_t tag;       /* or AOS_ANY_TAG */
    uint64_t expected;
    uint64_t matched;
    int active;        /* started and not complete */
    int last_source;
    uint32_t last_tag;
    struct aos_notify_req *next_active;
};

/* Unexpected notifications, oldest first. */
struct unexpected {
    struct note n;
    struct unexpected *next;
};

static aos_queue_t *my_queue;
static aos_queue_t **peer_queues; /* attached lazily, one per PE */
static struct unexpected *unx_head, **unx_tail = &unx_head;
static struct aos_notify_req *active_head, **active_tail = &active_head;

int aos__notify_start(void)
{
    peer_queues = calloc((size_t)aos__rt.npes, sizeof *peer_queues);
    if (peer_queues == NULL)
        return AOS_ERR_NO_MEMORY;
    int rc = aos__queue_create_reserved(AOS__NOTIFY_KEY, sizeof(struct note), NOTIFY_CAPACITY,
                                        &my_queue);
    if (rc != AOS_OK) {
        free(peer_queues);
        peer_queues = NULL;
    }
    return rc;
}

void aos__notify_stop(void)
{
    for (int pe = 0; peer_queues != NULL && pe < aos__rt.npes; pe++)
        if (peer_queues[pe] != NULL)
            aos_queue_detach(peer_queues[pe]);
    free(peer_queues);
    peer_queues = NULL;
    while (unx_head != NULL) {
        struct unexpected *u = unx_head;
        unx_head = u->next;
        free(u);
    }
    unx_tail = &unx_head;
    active_head = NULL;
    active_tail = &active_head;
    if (my_queue != NULL)
        aos__queue_destroy_reserved(my_queue);
    my_queue = NULL;
}

static int matches(const struct aos_notify_req *r, const struct note *n)
{
    return r->segment == n->segment && r->seg_state == n->state &&
           (r->source == AOS_ANY_SOURCE || (uint32_t)r->source == n->source) &&
           (r->tag == AOS_ANY_TAG || (uint32_t)r->tag == n->tag);
}

static void take(struct aos_notify_req *r, const struct note *n)
{
    r->matched++;
    r->last_source = (int)n->source;
    r->last_tag = n->tag;
}

static void remove_active(struct aos_notify_req *r)
{
    struct aos_notify_req **pp = &active_head;
    while (*pp != r)
        pp = &(*pp)->next_active;
    *pp = r->next_active;
    if (active_tail == &r->next_active)
        active_tail = pp;
    r->next_active = NULL;
    r->active = 0;
}

/* The first started request that matches gets the notification. */
static int deliver(const struct note *n)
{
    for (struct aos_notify_req *r = active_head; r != NULL; r = r->next_active) {
        if (!matches(r, n))
            continue;
        take(r, n);
        if (r->matched == r->expected)
            remove_active(r);
        return 1;
    }
    return 0;
}

void aos__notify_progress(void)
{
    if (my_queue == NULL)
        return;
    struct note n;
    while (aos_try_dequeue(my_queue, &n) == AOS_OK) {
        if (deliver(&n))
            continue;
        struct unexpected *u = malloc(sizeof *u);
        if (u == NULL)
            return; /* keep it queued; retried at the next progress */
        u->n = n;
        u->next = NULL;
        *unx_tail = u;
        unx_tail = &u->next;
    }
}

/* ---- senders -------------------------------------------------------------- */

static int notify_owner(const aos_seg_t *seg, uint32_t tag)
{
    int pe = seg->owner;
    if (peer_queues[pe] == NULL) {
        int rc = aos__queue_attach_reserved(pe, AOS__NOTIFY_KEY, &peer_queues[pe]);
        if (rc != AOS_OK)
            return rc;
    }
    struct note n = {.source = (uint32_t)aos__rt.me,
                     .tag = tag,
                     .segment = seg->index,
                     .state = (uint32_t)seg->state};
    return aos_enqueue(peer_queues[pe], &n); /* waits while the queue is full */
}

/* The transfer, then the notification. The data is complete before the
 * notification is enqueued: on a node a transfer with an event is complete
 * on return, and the enqueue's release orders it after the copy. */
static int notified(int is_put, void *local, aos_seg_t *seg, size_t offset, size_t len,
                    uint32_t tag, aos_event_t *ev)
{
    uint64_t off;
    int rc = aos__seg_access(seg, offset, len, AOS_PROTO_RMA | AOS_PROTO_NOTIFY, &off);
    if (rc != AOS_OK)
        return rc;
    if (len != 0) {
        if (local == NULL)
            return AOS_ERR_NULL;
        rc = is_put ? aos__put_at(seg->owner, off, local, len, ev)
                    : aos__get_at(local, seg->owner, off, len, ev);
        if (rc != AOS_OK)
            return rc;
    }
    return notify_owner(seg, tag);
}

int aos_put_notify(aos_seg_t *seg, size_t offset, const void *src, size_t len, uint32_t tag,
                   aos_event_t *ev)
{
    return notified(1, (void *)src, seg, offset, len, tag, ev);
}

int aos_get_notify(void *dst, aos_seg_t *seg, size_t offset, size_t len, uint32_t tag,
                   aos_event_t *ev)
{
    return notified(0, dst, seg, offset, len, tag, ev);
}

/* ---- requests at the owner ------------------------------------------------------ */

static int check_req(const aos_notify_req_t *r)
{
    if (r == NULL)
        return AOS_ERR_NULL;
    if (r->magic != REQ_MAGIC)
        return AOS_ERR_INVALID;
    AOS__CHECK_INIT();
    return AOS_OK;
}

int aos_notify_init(aos_seg_t *seg, int source, int64_t tag, uint64_t expected,
                    aos_notify_req_t **req)
{
    uint64_t off;
    int rc = aos__seg_access(seg, 0, 0, AOS_PROTO_NOTIFY, &off);
    if (rc != AOS_OK)
        return rc;
    if (req == NULL)
        return AOS_ERR_NULL;
    if (!seg->created || seg->owner != aos__rt.me)
        return AOS_ERR_INVALID; /* notifications arrive at the owner only */
    if (source != AOS_ANY_SOURCE && (source < 0 || source >= aos__rt.npes))
        return AOS_ERR_PE;
    if (tag != AOS_ANY_TAG && (tag < 0 || tag > (int64_t)UINT32_MAX))
        return AOS_ERR_INVALID;
    if (expected == 0)
        return AOS_ERR_SIZE;
    aos_notify_req_t *r = calloc(1, sizeof *r);
    if (r == NULL)
        return AOS_ERR_NO_MEMORY;
    *r = (aos_notify_req_t){.magic = REQ_MAGIC,
                            .segment = seg->index,
                            .seg_state = (uint32_t)seg->state,
                            .source = source,
                            .tag = tag,
                            .expected = expected,
                            .last_source = -1};
    *req = r;
    return AOS_OK;
}

int aos_notify_start(aos_notify_req_t *r)
{
    int rc = check_req(r);
    if (rc != AOS_OK)
        return rc;
    if (r->active)
        return AOS_ERR_AGAIN; /* still collecting its previous round */
    aos__notify_progress();   /* what has arrived is unexpected until now */
    r->matched = 0;
    struct unexpected **pp = &unx_head;
    while (*pp != NULL && r->matched < r->expected) {
        struct unexpected *u = *pp;
        if (!matches(r, &u->n)) {
            pp = &u->next;
            continue;
        }
        take(r, &u->n);
        *pp = u->next;
        if (unx_tail == &u->next)
            unx_tail = pp;
        free(u);
    }
    if (r->matched < r->expected) {
        r->active = 1;
        r->next_active = NULL;
        *active_tail = r;
        active_tail = &r->next_active;
    }
    return AOS_OK;
}

int aos_notify_test(aos_notify_req_t *r, int *done)
{
    int rc = check_req(r);
    if (rc != AOS_OK)
        return rc;
    if (done == NULL)
        return AOS_ERR_NULL;
    aos__progress();
    *done = !r->active;
    return AOS_OK;
}

static int req_done(const void *ctx)
{
    return !((const aos_notify_req_t *)ctx)->active;
}

int aos_notify_wait(aos_notify_req_t *r)
{
    int rc = check_req(r);
    if (rc != AOS_OK)
        return rc;
    /* Senders write my notification queue: watch all of my arena. */
    return aos__wait(req_done, r, AOS__FOREVER, AOS__WATCH_ALL);
}

int aos_notify_last(const aos_notify_req_t *r, int *source, uint32_t *tag)
{
    int rc = check_req(r);
    if (rc != AOS_OK)
        return rc;
    if (source == NULL || tag == NULL)
        return AOS_ERR_NULL;
    if (r->last_source < 0)
        return AOS_ERR_AGAIN; /* nothing matched yet */
    *source = r->last_source;
    *tag = r->last_tag;
    return AOS_OK;
}

int aos_notify_free(aos_notify_req_t *r)
{
    if (r == NULL)
        return AOS_OK;
    if (r->magic != REQ_MAGIC)
        return AOS_ERR_INVALID;
    if (r->active)
        return AOS_ERR_AGAIN;
    r->magic = 0;
    free(r);
    return AOS_OK;
}
