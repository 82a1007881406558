/* Mailboxes: fixed-size messages from any PE to the owner, over a remote
 * queue under the key (mailbox, port). A write with an event that finds the
 * mailbox full keeps a copy of the message and is retried by progress, in
 * order per handle. To another node's mailbox it is sent at once and waits
 * there (queue/queue_net.c), up to SENT_MAX per handle: the owner keeps
 * what waits, and a writer that streams must not fill the owner's memory
 * with it; beyond, the copy waits here until an answer frees a place. */
#include <stdlib.h>
#include <string.h>

#include "arch/atomics.h"
#include "core/event.h"
#include "core/handle.h"
#include "core/runtime.h"
#include "core/wait.h"
#include "ipc/ipc.h"
#include "queue/queue.h"

#define MBOX_MAGIC 0x6d626f78u

struct aos_mbox {
    uint32_t magic;
    int is_owner;
    aos_queue_t *q;
    size_t msg_size;
    uint64_t order;   /* pending writes go in order */
    uint32_t pending; /* writes with an event not yet in the mailbox */
    uint32_t sent;    /* writes with an event sent to another node's mailbox,
                         not yet answered */
};

/* Writes with an event one handle may have waiting at another node's
 * mailbox: as many as a queue handle's pushes in flight. */
#define SENT_MAX AOS__QUEUE_NET_CREDITS

struct pending_write {
    struct aos__ipc_op op;
    aos_mbox_t *mb;
    aos_event_t *ev;
    int watching; /* aos__queue_try_enqueue_watched's */
    char msg[];
};

static int check_mbox(const aos_mbox_t *mb)
{
    if (mb == NULL)
        return AOS_ERR_NULL;
    if (mb->magic != MBOX_MAGIC)
        return AOS_ERR_INVALID;
    AOS__CHECK_INIT();
    return AOS_OK;
}

static int new_handle(aos_queue_t *q, int is_owner, aos_mbox_t **out)
{
    aos_mbox_t *mb = aos__handle_alloc(sizeof *mb);
    if (mb == NULL)
        return AOS_ERR_NO_MEMORY;
    *mb = (aos_mbox_t){.magic = MBOX_MAGIC, .is_owner = is_owner, .q = q};
    (void)aos_queue_item_size(q, &mb->msg_size);
    *out = mb;
    return AOS_OK;
}

int aos_mbox_create(uint32_t port, size_t msg_size, size_t capacity, aos_mbox_t **mb)
{
    AOS__CHECK_INIT();
    if (mb == NULL)
        return AOS_ERR_NULL;
    aos_queue_t *q;
    int rc = aos__queue_create_reserved(aos__ipc_key(AOS__IPC_MBOX, port), msg_size, capacity,
                                        &q);
    if (rc != AOS_OK)
        return rc;
    rc = new_handle(q, 1, mb);
    if (rc != AOS_OK)
        aos__queue_destroy_reserved(q);
    return rc;
}

int aos_mbox_open(int owner, uint32_t port, aos_mbox_t **mb)
{
    AOS__CHECK_INIT();
    AOS__CHECK_PE(owner);
    if (mb == NULL)
        return AOS_ERR_NULL;
    aos_queue_t *q;
    int rc = aos__queue_attach_reserved(owner, aos__ipc_key(AOS__IPC_MBOX, port), &q);
    if (rc != AOS_OK)
        return rc;
    rc = new_handle(q, 0, mb);
    if (rc != AOS_OK)
        aos_queue_detach(q);
    return rc;
}

static int writes_done(const void *ctx)
{
    const aos_mbox_t *mb = ctx;
    /* Acquire: pairs with the release in ipc_progress's count down, so
     * that the writes it completed come before the caller's next one. */
    return aos__load_acquire(&mb->pending) == 0;
}

int aos_mbox_close(aos_mbox_t *mb)
{
    int rc = check_mbox(mb);
    if (rc != AOS_OK)
        return rc;
    /* Acquire: pairs with the release of the answer's count down. */
    if (!writes_done(mb) || aos__load_acquire(&mb->sent) != 0)
        return AOS_ERR_AGAIN;
    if (mb->is_owner) {
        /* aos_queue_destroy refuses reserved keys; check its pending reads. */
        rc = aos__queue_destroy_checked(mb->q);
        if (rc != AOS_OK)
            return rc;
    } else {
        rc = aos_queue_detach(mb->q);
    }
    mb->magic = 0;
    aos__handle_free(mb);
    return rc;
}

int aos_mbox_msg_size(const aos_mbox_t *mb, size_t *msg_size)
{
    int rc = check_mbox(mb);
    if (rc != AOS_OK)
        return rc;
    if (msg_size == NULL)
        return AOS_ERR_NULL;
    *msg_size = mb->msg_size;
    return AOS_OK;
}

/* Whether another write with an event may be sent to another node's
 * mailbox now (always, for one on my node: nothing is ever sent). */
static int may_send(const aos_mbox_t *mb)
{
    /* Acquire: pairs with the release of the answer's count down. */
    return aos__load_acquire(&mb->sent) < SENT_MAX;
}

static int write_ready(struct aos__ipc_op *op)
{
    struct pending_write *w = (struct pending_write *)op;
    if (!may_send(w->mb))
        return 0;
    /* Any thread may run this: ev, posted by the writer, is completed with
     * the asynchronous count. Another node's mailbox takes the write and
     * that post over (completed at the answer, or now if it fails). */
    if (aos__queue_enqueue_event(w->mb->q, w->msg, w->ev, &w->mb->sent, 1) != AOS_ERR_AGAIN)
        return 1;
    /* inside progress: no serving */
    int rc = aos__queue_try_enqueue_watched(w->mb->q, w->msg, &w->watching);
    if (rc == AOS_ERR_AGAIN)
        return 0;
    aos__event_done_async(w->ev, rc); /* a failure: the owner destroyed it, message lost */
    return 1;
}

int aos_mbox_write(aos_mbox_t *mb, const void *msg, aos_event_t *ev)
{
    int rc = check_mbox(mb);
    if (rc != AOS_OK)
        return rc;
    if (msg == NULL)
        return AOS_ERR_NULL;
    if (ev == NULL) {
        /* after the handle's pending writes: order per handle */
        if (!writes_done(mb) &&
            (rc = aos__wait(writes_done, mb, AOS__FOREVER, AOS__WATCH_ALL)) != AOS_OK)
            return rc;
        /* Another node's mailbox: its owner answers once the message is in
         * (aos_enqueue would return once it is on its way). */
        rc = aos__queue_enqueue_event(mb->q, msg, NULL, NULL, 0);
        if (rc != AOS_ERR_AGAIN)
            return rc;
        return aos_enqueue(mb->q, msg);
    }
    if (ev->magic != AOS__EVENT_MAGIC)
        return AOS_ERR_INVALID;
    if (writes_done(mb) && may_send(mb)) { /* after the pending ones: order per handle */
        rc = aos__queue_enqueue_event(mb->q, msg, ev, &mb->sent, 0); /* another node's */
        if (rc != AOS_ERR_AGAIN)
            return rc;
        rc = aos__queue_try_enqueue(mb->q, msg);
        if (rc == AOS_OK)
            aos__event_done_at_issue(ev);
        if (rc != AOS_ERR_AGAIN)
            return rc;
    }
    struct pending_write *w = malloc(sizeof *w + mb->msg_size);
    if (w == NULL)
        return AOS_ERR_NO_MEMORY;
    *w = (struct pending_write){
        .op = {.poll = write_ready, .order = &mb->order, .pending = &mb->pending},
        .mb = mb,
        .ev = ev};
    memcpy(w->msg, msg, mb->msg_size);
    aos__event_post(ev);
    aos__ipc_op_add(&w->op);
    return AOS_OK;
}

int aos_mbox_try_write(aos_mbox_t *mb, const void *msg)
{
    int rc = check_mbox(mb);
    if (rc != AOS_OK)
        return rc;
    if (!writes_done(mb))
        return AOS_ERR_AGAIN; /* earlier writes go first */
    return aos_try_enqueue(mb->q, msg);
}

int aos_mbox_read(aos_mbox_t *mb, void *msg, aos_event_t *ev)
{
    int rc = check_mbox(mb);
    if (rc != AOS_OK)
        return rc;
    if (!mb->is_owner)
        return AOS_ERR_INVALID;
    return ev == NULL ? aos_dequeue(mb->q, msg) : aos_dequeue_async(mb->q, msg, ev);
}

int aos_mbox_try_read(aos_mbox_t *mb, void *msg)
{
    int rc = check_mbox(mb);
    if (rc != AOS_OK)
        return rc;
    if (!mb->is_owner)
        return AOS_ERR_INVALID;
    return aos_try_dequeue(mb->q, msg);
}
