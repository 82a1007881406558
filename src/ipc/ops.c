/* Pending asynchronous IPC operations, polled by progress.
 *
 * Any thread may add one while another polls: an added operation goes onto
 * a lock-free stack of new ones, and the one thread that polls at a time
 * (the lock, tried: a thread that finds it taken, or that polls already
 * further up its stack through a nested progress, goes on) moves them to
 * the end of the list in the order they were added, then polls the list.
 * Adding never waits, so an operation added from inside progress (an RPC
 * handler's) cannot deadlock. The polling thread need not be the one that
 * added an operation: it completes the operation's event with the
 * asynchronous count (core/event.h), which never races with the issuing
 * thread's own. */
#include <pthread.h>
#include <stdlib.h>

#include "arch/atomics.h"
#include "core/progress.h"
#include "core/runtime.h"
#include "core/wait.h"
#include "ipc/ipc.h"
#include "mem/segment.h"

static struct aos__ipc_op *fresh;    /* added, newest first */
static uint64_t live;                 /* added and not yet done */
static pthread_mutex_t poll_lock = PTHREAD_MUTEX_INITIALIZER;
/* Under poll_lock: */
static struct aos__ipc_op *ops;
static struct aos__ipc_op **tail = &ops;
static uint64_t pass;

void aos__ipc_op_add(struct aos__ipc_op *op)
{
    aos__fetch_add_relaxed(op->pending, 1); /* relaxed: a count; see writes_done */
    aos__fetch_add_relaxed(&live, 1);       /* relaxed: a hint for ipc_progress */
    struct aos__ipc_op *head = aos__load_relaxed(&fresh);
    do
        op->next = head;
    /* Release: op's fields are seen by the poller that takes it (its
     * acquire exchange in take_fresh). */
    while (!__atomic_compare_exchange_n(&fresh, &head, op, 1, __ATOMIC_RELEASE,
                                        __ATOMIC_RELAXED));
}

/* The new operations, oldest first, onto the end of the list. */
static void take_fresh(void)
{
    struct aos__ipc_op *newest = aos__exchange_acquire(&fresh, NULL); /* pairs with op_add */
    struct aos__ipc_op *oldest = NULL;
    while (newest != NULL) {
        struct aos__ipc_op *next = newest->next;
        newest->next = oldest;
        oldest = newest;
        newest = next;
    }
    *tail = oldest;
    while (*tail != NULL)
        tail = &(*tail)->next;
}

/* The progress hook: polls the pending operations; one load when none. */
static void ipc_progress(void)
{
    /* Relaxed: a hint; an operation missed here is polled next time. */
    if (aos__load_relaxed(&live) == 0)
        return;
    if (pthread_mutex_trylock(&poll_lock) != 0)
        return;
    take_fresh();
    pass++;
    struct aos__ipc_op **link = &ops;
    while (*link != NULL) {
        struct aos__ipc_op *op = *link;
        if (op->order != NULL && *op->order == pass) { /* an earlier one waits */
            link = &op->next;
            continue;
        }
        if (!op->poll(op)) {
            if (op->order != NULL)
                *op->order = pass;
            link = &op->next;
            continue;
        }
        *link = op->next;
        if (tail == &op->next)
            tail = link;
        /* Release: what the operation did is seen by a thread that reads
         * the count 0 with acquire; relaxed readers only want the count. */
        aos__fetch_sub_release(op->pending, 1);
        aos__fetch_sub_relaxed(&live, 1); /* relaxed: a hint, as in op_add */
        free(op);
    }
    pthread_mutex_unlock(&poll_lock);
}

struct attach_try {
    int owner;
    uint64_t key;
    aos_seg_t *seg;
    int rc;
};

static int attached(const void *ctx)
{
    struct attach_try *t = (struct attach_try *)(uintptr_t)ctx;
    t->rc = aos__seg_attach_any(t->owner, t->key, &t->seg);
    return t->rc != AOS_ERR_NO_KEY;
}

int aos__ipc_attach_wait(int owner, uint64_t key, aos_seg_t **seg)
{
    struct attach_try t = {.owner = owner, .key = key, .seg = NULL, .rc = AOS_ERR_NO_KEY};
    int rc = aos__wait(attached, &t, AOS__FOREVER, AOS__WATCH_ALL);
    if (rc == AOS_OK)
        rc = t.rc;
    if (rc == AOS_OK)
        *seg = t.seg;
    return rc;
}

int aos__ipc_start(void)
{
    int rc = aos__progress_hook_add(ipc_progress);
    if (rc != AOS_OK)
        return rc;
    aos__portal_start();
    return AOS_OK;
}

void aos__ipc_stop(void)
{
    aos__portal_stop();
}
