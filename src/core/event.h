/* Counting completion events. `posted` counts operations attached to the
 * event, `completed` those finished; the event is complete when they match. */
#ifndef AOS_CORE_EVENT_H
#define AOS_CORE_EVENT_H

#include <stdint.h>

#include "aos.h"
#include "arch/atomics.h"

#define AOS__EVENT_MAGIC 0x61657674u

struct aos_event {
    uint32_t magic;
    uint64_t posted;
    uint64_t completed;
    uint64_t completed_async; /* by network completions, on any thread */
    int32_t error; /* the first failure among its operations not yet reported, or 0 */
};

/* An event is used by one thread at a time (documented in aos.h), so the
 * counters have a single writer and need no read-modify-write: a load and a
 * store are enough, and cost a fraction of a locked add. */

/* Relaxed: only the issuing thread writes and reads posted. */
static inline void aos__event_post(aos_event_t *ev)
{
    aos__store_relaxed(&ev->posted, aos__load_relaxed(&ev->posted) + 1);
}

/* Release: the operation's effects (a get's data in the local buffer) are
 * visible to whoever observes the count with the acquire in
 * aos__event_is_complete. */
static inline void aos__event_complete(aos_event_t *ev)
{
    aos__store_release(&ev->completed, aos__load_relaxed(&ev->completed) + 1);
}

/* Completion from another thread (a network callback on the transport's
 * progress thread): a read-modify-write of its own counter, so it never
 * races with the issuing thread's plain stores to `completed`. Release:
 * pairs with the acquire in aos__event_is_complete. */
static inline void aos__event_complete_async(aos_event_t *ev)
{
    aos__fetch_add_release(&ev->completed_async, 1);
}

/* An operation that failed (its peer died, the network failed) completes
 * the event all the same, and its status stays with the event until a wait
 * or test of it reports it (aos__event_take_error); of several, the first.
 * Relaxed: published to the waiter by the release of the completion. */
static inline void aos__event_fail_async(aos_event_t *ev, int status)
{
    int32_t none = 0;
    (void)aos__cas_relaxed(&ev->error, &none, (int32_t)status);
    aos__event_complete_async(ev);
}

/* Completes the event with the operation's status: AOS_OK or a failure. */
static inline void aos__event_done_async(aos_event_t *ev, int status)
{
    if (status == AOS_OK)
        aos__event_complete_async(ev);
    else
        aos__event_fail_async(ev, status);
}

/* The failure a complete event holds, taken (AOS_OK if none). Relaxed: the
 * caller saw the event complete with the acquire in aos__event_completed,
 * which pairs with the release of the failed completion. */
static inline int aos__event_take_error(aos_event_t *ev)
{
    if (aos__load_relaxed(&ev->error) == 0)
        return AOS_OK;
    return aos__exchange_relaxed(&ev->error, 0);
}

/* Completions of both kinds so far. */
static inline uint64_t aos__event_completed(const aos_event_t *ev)
{
    /* Acquire both: pair with aos__event_complete and ..._complete_async. */
    return aos__load_acquire(&ev->completed) + aos__load_acquire(&ev->completed_async);
}

/* An operation attached to ev (if any) finished as it was issued. */
static inline void aos__event_done_at_issue(aos_event_t *ev)
{
    if (ev != NULL) {
        aos__event_post(ev);
        aos__event_complete(ev);
    }
}

/* An event argument that is neither NULL nor a live event (destroyed, or
 * not an event at all): AOS_ERR_INVALID, before anything is issued. */
static inline int aos__event_bad(const aos_event_t *ev)
{
    return ev != NULL && ev->magic != AOS__EVENT_MAGIC;
}

static inline int aos__event_is_complete(const aos_event_t *ev)
{
    uint64_t done = aos__event_completed(ev);
    return done == aos__load_relaxed(&ev->posted); /* only the issuing thread posts */
}

/* aos_event_wait for the library's own events (one on the caller's stack:
 * struct aos_event e = {.magic = AOS__EVENT_MAGIC}), from an initialised
 * PE. */
int aos__event_wait(aos_event_t *ev);

#endif
