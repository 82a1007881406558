#include "core/event.h"
#include "core/handle.h"

#include <stdlib.h>

#include "core/runtime.h"
#include "core/wait.h"

#define CHECK_EVENT(ev)                                                                    \
    do {                                                                                   \
        if ((ev) == NULL)                                                                  \
            return AOS_ERR_NULL;                                                           \
        if ((ev)->magic != AOS__EVENT_MAGIC)                                               \
            return AOS_ERR_INVALID;                                                        \
    } while (0)

int aos_event_create(aos_event_t **ev)
{
    if (ev == NULL)
        return AOS_ERR_NULL;
    aos_event_t *e = aos__handle_alloc(sizeof *e);
    if (e == NULL)
        return AOS_ERR_NO_MEMORY;
    e->magic = AOS__EVENT_MAGIC;
    *ev = e;
    return AOS_OK;
}

int aos_event_destroy(aos_event_t *ev)
{
    if (ev == NULL)
        return AOS_OK;
    CHECK_EVENT(ev);
    if (!aos__event_is_complete(ev))
        return AOS_ERR_AGAIN;
    ev->magic = 0;
    aos__handle_free(ev);
    return AOS_OK;
}

AOS__TLS int aos__events_wanted;

static int event_ready(const void *ctx)
{
    return aos__event_is_complete(ctx);
}

/* aos__wait for events: this thread's progress completes lazy batches. */
static int wait_events(int (*ready)(const void *), const void *ctx, uint64_t timeout_ns)
{
    int saved = aos__events_wanted;
    aos__events_wanted = 1;
    int rc = aos__wait(ready, ctx, timeout_ns, AOS__WATCH_ALL);
    aos__events_wanted = saved;
    return rc;
}

void aos__progress_completing(void)
{
    int saved = aos__events_wanted;
    aos__events_wanted = 1;
    aos__progress();
    aos__events_wanted = saved;
}

/* The wait of one event up to timeout_ns, reporting its failure once it
 * is complete. */
static int wait_one(aos_event_t *ev, uint64_t timeout_ns)
{
    int rc = aos__rt.initialized ? wait_events(event_ready, ev, timeout_ns)
             : aos__event_is_complete(ev) ? AOS_OK
                                          : AOS_ERR_NOT_INITIALIZED;
    return rc != AOS_OK ? rc : aos__event_take_error(ev);
}

int aos__event_wait(aos_event_t *ev)
{
    return wait_one(ev, AOS__FOREVER);
}

int aos_event_wait(aos_event_t *ev)
{
    CHECK_EVENT(ev);
    return wait_one(ev, AOS__FOREVER);
}

int aos_event_wait_timed(aos_event_t *ev, uint64_t timeout_ns)
{
    CHECK_EVENT(ev);
    return wait_one(ev, timeout_ns);
}

int aos_event_test(aos_event_t *ev, int *done)
{
    CHECK_EVENT(ev);
    if (done == NULL)
        return AOS_ERR_NULL;
    if (aos__rt.initialized)
        aos__progress_completing();
    int complete = aos__event_is_complete(ev);
    int rc = complete ? aos__event_take_error(ev) : AOS_OK;
    if (rc == AOS_OK)
        *done = complete;
    return rc;
}

int aos_event_count(aos_event_t *ev, uint64_t *completed)
{
    CHECK_EVENT(ev);
    if (completed == NULL)
        return AOS_ERR_NULL;
    *completed = aos__event_completed(ev);
    return AOS_OK;
}

struct event_set {
    aos_event_t *const *evs;
    size_t n;
    size_t first; /* index of a complete event, set by any_ready */
};

static int check_set(aos_event_t *const *evs, size_t n)
{
    if (evs == NULL && n != 0)
        return AOS_ERR_NULL;
    for (size_t i = 0; i < n; i++)
        CHECK_EVENT(evs[i]);
    return AOS_OK;
}

static int all_ready(const void *ctx)
{
    const struct event_set *s = ctx;
    for (size_t i = 0; i < s->n; i++)
        if (!aos__event_is_complete(s->evs[i]))
            return 0;
    return 1;
}

static int any_ready(const void *ctx)
{
    struct event_set *s = (struct event_set *)ctx;
    for (size_t i = 0; i < s->n; i++) {
        if (aos__event_is_complete(s->evs[i])) {
            s->first = i;
            return 1;
        }
    }
    return 0;
}

int aos_event_wait_all(aos_event_t *const *evs, size_t n)
{
    int rc = check_set(evs, n);
    if (rc != AOS_OK)
        return rc;
    struct event_set s = {.evs = evs, .n = n};
    if (!aos__rt.initialized)
        rc = all_ready(&s) ? AOS_OK : AOS_ERR_NOT_INITIALIZED;
    else
        rc = wait_events(all_ready, &s, AOS__FOREVER);
    if (rc != AOS_OK)
        return rc;
    /* All complete: every failure is taken, the first event's reported. */
    for (size_t i = 0; i < n; i++) {
        int failed = aos__event_take_error(evs[i]);
        if (rc == AOS_OK)
            rc = failed;
    }
    return rc;
}

int aos_event_wait_any(aos_event_t *const *evs, size_t n, size_t *index)
{
    if (index == NULL)
        return AOS_ERR_NULL;
    if (n == 0)
        return AOS_ERR_INVALID; /* nothing could ever complete */
    int rc = check_set(evs, n);
    if (rc != AOS_OK)
        return rc;
    struct event_set s = {.evs = evs, .n = n};
    if (!aos__rt.initialized) {
        if (!any_ready(&s))
            return AOS_ERR_NOT_INITIALIZED;
    } else {
        rc = wait_events(any_ready, &s, AOS__FOREVER);
        if (rc != AOS_OK)
            return rc;
    }
    *index = s.first;
    return AOS_OK;
}
