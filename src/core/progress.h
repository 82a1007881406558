/* What waiting does for the layers above the core. The core calls none of
 * them by name: each layer with background work registers a hook while
 * aos_init runs (one thread, before any wait), and every wait, aos_progress
 * and the progress thread run what is registered. */
#ifndef AOS_CORE_PROGRESS_H
#define AOS_CORE_PROGRESS_H

#include <stddef.h>
#include <stdint.h>

#include "arch/atomics.h"

struct aos__bell;

/* Where queued work shows itself: work waits when *word == want. The
 * queue holding the work keeps the pair at its head (queue.h). */
struct aos__work_hint {
    const uint64_t *word; /* NULL: nothing for the program's threads to poll */
    uint64_t want;
};

/* The work that calls which do not wait (blocking puts, atomics, enqueues)
 * still serve, so that two PEs calling each other keep going: the RPC
 * layer's queue of requests. */
struct aos__serve_point {
    struct aos__work_hint hint;
    void (*serve)(void);
};
extern struct aos__serve_point aos__serve_point;

/* Serves waiting work, if any: one load when none waits. */
static inline void aos__serve_poll(void)
{
    /* Relaxed: a hint; the serving dequeue checks again with acquire. */
    const uint64_t *w = aos__load_relaxed(&aos__serve_point.hint.word);
    if (w != NULL && aos__load_relaxed(w) == aos__load_relaxed(&aos__serve_point.hint.want))
        aos__serve_point.serve();
}

/* Adds hook to what aos__progress runs on the program's threads, in the
 * order added; adding one twice keeps one. AOS_ERR_NO_MEMORY when the
 * table is full (a layer too many: a build error in effect). */
int aos__progress_hook_add(void (*hook)(void));

/* What the progress thread does (AOS_PROGRESS_THREAD=1): it sleeps on bell
 * and runs serve on every poll of that wait, and nothing else. */
void aos__progress_thread_work(struct aos__bell *bell, void (*serve)(void));

/* Forgets every hook and the serve point: after aos_finalize, or a failed
 * aos_init, nothing is left to call into layers that are gone. */
void aos__progress_reset(void);

#endif
