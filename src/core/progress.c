#include "core/runtime.h"
#include "core/wait.h"
#include "queue/queue.h"

void aos__progress(void)
{
    aos__rt.tp->progress();
    if (aos__rt.pending_requests != 0)
        aos__queue_progress();
    aos__notify_progress(); /* one load when no notification is waiting */
    aos__rpc_progress();    /* likewise when no request is waiting */
}
