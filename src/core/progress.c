#include "arch/atomics.h"
#include "core/runtime.h"
#include "core/wait.h"
#include "ipc/ipc.h"
#include "queue/queue.h"
#include "rpc/rpc.h"

void aos__progress(void)
{
    aos__progress_transports();
    if (aos__in_progress_thread) {
        aos__rpc_serve();
        return;
    }
    /* Relaxed: a hint; the queue rechecks its list under its lock. */
    if (aos__load_relaxed(&aos__rt.pending_requests) != 0)
        aos__queue_progress();
    aos__notify_progress(); /* a load per lane in use when nothing waits */
    aos__rpc_progress();    /* likewise when no request is waiting */
    if (aos__ipc_ops != NULL)
        aos__ipc_progress();
}
