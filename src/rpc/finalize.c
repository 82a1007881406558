/* RPC at aos_finalize: no PE leaves while a call made anywhere in the job
 * has yet to run. A posted call returns to its caller once queued, and its
 * handler may post further calls, to PEs that have reached aos_finalize
 * already; those must still be there to run them.
 *
 * Rounds of one exchange each: every PE waits until its own calls have all
 * run (serving others' meanwhile) and contributes, read at that moment, how
 * many calls it has sent in all. Two rounds in a row with the same total
 * mean no PE sent a call between its two contributions; every call counted
 * had run when its sender contributed, and a later call would need a
 * handler still running after that, for a call counted earlier: there is
 * none. A job that made no call stops after its first round (total 0). */
#include "rpc/rpc.h"

#include <string.h>

#include "coll/team.h"
#include "core/wait.h"

static int settled(const void *ctx)
{
    (void)ctx;
    return aos__rpc_calls_settled(NULL);
}

int aos__rpc_drain(void)
{
    uint64_t last = 0;
    for (;;) {
        uint64_t sent;
        /* Watch everything: requests for me must wake me too, I serve them. */
        while (!aos__rpc_calls_settled(&sent)) {
            int rc = aos__wait(settled, NULL, AOS__FOREVER, AOS__WATCH_ALL);
            if (rc != AOS_OK)
                return rc;
        }
        const struct aos__xchg_entry *all;
        aos_team_t *world = aos_team_world();
        int rc = aos__team_exchange(world, &sent, sizeof sent, &all);
        if (rc != AOS_OK)
            return rc;
        uint64_t total = 0;
        for (int r = 0; r < world->size; r++) {
            uint64_t v;
            memcpy(&v, all[r].data, sizeof v);
            total += v;
        }
        if (total == last)
            return AOS_OK;
        last = total;
    }
}
