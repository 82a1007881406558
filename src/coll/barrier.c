/* Barriers: a dissemination over the team. In round r rank i signals rank
 * (i + 2^r) mod n and waits for rank (i - 2^r) mod n; after ceil(log2 n)
 * rounds everyone has heard from everyone. Each round's word is on its own
 * line of the slot, so the rounds' writers never share a line; the value is
 * the team's sequence, and a value past mine (a faster PE's next barrier)
 * counts too: that PE signalled this barrier before it could finish it. */
#include <stddef.h>

#include "coll/team.h"
#include "core/runtime.h"

int aos__team_sync(aos_team_t *team)
{
    uint64_t v = ++team->seq;
    int round = 0;
    for (int dist = 1; dist < team->size; dist <<= 1, round++) {
        size_t word = AOS__SLOT_ROUND(round);
        int rc = aos__team_signal(team, (team->me + dist) % team->size, word, v);
        if (rc == AOS_OK)
            rc = aos__team_wait(team, word, v);
        if (rc != AOS_OK)
            return rc;
    }
    return AOS_OK;
}

int aos_team_sync(aos_team_t *team)
{
    int rc = aos__coll_check(team);
    return rc != AOS_OK ? rc : aos__team_sync(team);
}

int aos_team_barrier(aos_team_t *team)
{
    int rc = aos__coll_check(team);
    if (rc == AOS_OK)
        rc = aos__quiet_all();
    return rc != AOS_OK ? rc : aos__team_sync(team);
}

int aos_barrier_all(void)
{
    AOS__CHECK_INIT();
    return aos_team_barrier(aos_team_world());
}
