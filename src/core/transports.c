/* Operations that span every transport in use: shared memory always, the
 * network transport when some PE is on another node. Per-peer operations
 * go straight to aos__tp(pe). */
#include "core/runtime.h"
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

void aos__progress_transports(void)
{
    (void)aos__transport_shm.progress();
    if (aos__rt.net != NULL && aos__rt.net->progress())
        aos__handlers_run_here++; /* served another PE: it is active, keep spinning */
}

/* Only the network transport has a thread of its own to call in. */
void aos__sleep_begin(void)
{
    if (aos__rt.net != NULL)
        aos__rt.net->sleep_begin();
}

void aos__sleep_end(void)
{
    if (aos__rt.net != NULL)
        aos__rt.net->sleep_end();
}

int aos__expose(uint64_t off, uint64_t len)
{
    if (aos__rt.net == NULL || len == 0)
        return AOS_OK;
    return aos__rt.net->expose(off, len);
}
