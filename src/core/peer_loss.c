/* A lost peer ends the job when the launcher would not (core/peer_loss.h). */
#include "core/peer_loss.h"

#include <stdio.h>

#include "aos.h"
#include "arch/atomics.h"
#include "core/bootstrap.h"
#include "core/runtime.h"

void aos__peer_lost(int pe, const char *why)
{
    struct aos__runtime *rt = &aos__rt;
    /* Acquire: pairs with aos_finalize's release of leaving, set before this
     * PE's arrival at the last barrier, without which no peer can finish it
     * and close its end. */
    if (aos__load_acquire(&rt->leaving) || rt->boot == NULL || rt->boot->stops_on_loss) {
        aos__debug("connection to PE %d closed: %s", pe, why);
        return;
    }
    fprintf(stderr,
            "aos: PE %d: lost PE %d before it finalized (%s): it died or exited without "
            "aos_finalize; ending the job\n",
            rt->me, pe, why);
    aos_global_exit(1);
}
