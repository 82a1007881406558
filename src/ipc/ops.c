/* Pending asynchronous IPC operations, polled by progress. */
#include <stdlib.h>

#include "core/progress.h"
#include "core/runtime.h"
#include "core/wait.h"
#include "ipc/ipc.h"
#include "mem/segment.h"

struct aos__ipc_op *aos__ipc_ops;
static struct aos__ipc_op **tail = &aos__ipc_ops;
static uint64_t pass;

void aos__ipc_op_add(struct aos__ipc_op *op)
{
    op->next = NULL;
    *tail = op;
    tail = &op->next;
    (*op->pending)++;
}

/* The progress hook: polls the pending operations; one load when none. */
static void ipc_progress(void)
{
    if (aos__ipc_ops == NULL)
        return;
    pass++;
    struct aos__ipc_op **link = &aos__ipc_ops;
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
        (*op->pending)--;
        free(op);
    }
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
