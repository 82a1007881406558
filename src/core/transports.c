/* Operations that span every transport in use: shared memory always, the
 * network transport when some PE is on another node. Per-peer operations
 * go straight to aos__tp(pe). */
#include "core/runtime.h"
#include "core/wait.h"

int aos__quiet_all(void)
{
    int rc = aos__transport_shm.quiet();
    if (aos__rt.net != NULL) {
        int nrc = aos__rt.net->quiet();
        if (rc == AOS_OK)
            rc = nrc;
    }
    return rc;
}

int aos__fence_all(void)
{
    int rc = aos__transport_shm.fence_all();
    if (aos__rt.net != NULL) {
        int nrc = aos__rt.net->fence_all();
        if (rc == AOS_OK)
            rc = nrc;
    }
    return rc;
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
