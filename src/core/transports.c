/* Operations that span every transport in use: shared memory always, the
 * network transport when some PE is on another node. Per-peer operations
 * go straight to aos__tp(pe). */
#include "arch/atomics.h"
#include "core/runtime.h"
#include "core/tls.h"
#include "core/wait.h"

/* shm_op, then net_op (NULL: no network transport in use); the first
 * failure. */
static int on_both(int (*shm_op)(void), int (*net_op)(void))
{
    int rc = shm_op();
    if (net_op != NULL) {
        int nrc = net_op();
        if (rc == AOS_OK)
            rc = nrc;
    }
    return rc;
}

int aos__quiet_all(void)
{
    return on_both(aos__transport_shm.quiet, aos__rt.net != NULL ? aos__rt.net->quiet : NULL);
}

int aos__fence_all(void)
{
    return on_both(aos__transport_shm.fence_all,
                   aos__rt.net != NULL ? aos__rt.net->fence_all : NULL);
}

/* Turns of the network engine taken by the program's threads: a count the
 * progress thread compares, so relaxed (a lost update between two threads
 * still changes it). */
static uint32_t program_turns;
/* On the progress thread: program_turns at its last look, and whether they
 * changed since it last went to sleep. */
static AOS__TLS uint32_t turns_seen;
static AOS__TLS int program_drove;

void aos__progress_transports(void)
{
    (void)aos__transport_shm.progress();
    if (aos__rt.net == NULL)
        return;
    if (!aos__in_progress_thread) {
        aos__store_relaxed(&program_turns, aos__load_relaxed(&program_turns) + 1);
        if (aos__rt.net->progress())
            aos__handlers_run_here++; /* served another PE: it is active, keep spinning */
        return;
    }
    /* The progress thread asleep between requests leaves the network to
     * the program's threads and the transport's thread (core/wait.h). */
    if (aos__wait_sleeping)
        return;
    /* Awake, it spins on while traffic flows only when no program thread
     * drives the engine meanwhile: beside one that waits on the network it
     * would take turns at the engine with it and take its messages. */
    uint32_t turns = aos__load_relaxed(&program_turns);
    int program_drives = turns != turns_seen;
    turns_seen = turns;
    program_drove |= program_drives;
    if (aos__rt.net->progress() && !program_drives)
        aos__handlers_run_here++;
}

/* Only the network transport has a thread of its own to call in. The
 * progress thread's sleep needs it only when no program thread drove the
 * engine while it was awake: one that does serves the network (the
 * requests that wake the progress thread included), and the transport's
 * thread, called in, would take turns at the engine with it. A program
 * that stops driving later is served once the transport's thread sees it
 * has stopped. */
int aos__sleep_begin(void)
{
    if (aos__rt.net == NULL)
        return 0;
    if (aos__in_progress_thread) {
        int drove = program_drove;
        program_drove = 0;
        if (drove)
            return 0;
    }
    aos__rt.net->sleep_begin();
    return 1;
}

void aos__sleep_end(int announced)
{
    if (announced)
        aos__rt.net->sleep_end();
}

int aos__expose(uint64_t off, uint64_t len)
{
    if (aos__rt.net == NULL || len == 0)
        return AOS_OK;
    return aos__rt.net->expose(off, len);
}
