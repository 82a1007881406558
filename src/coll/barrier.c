/* Barriers: a dissemination over the team. In round r rank i signals rank
 * (i + 2^r) mod n and waits for rank (i - 2^r) mod n; after ceil(log2 n)
 * rounds everyone has heard from everyone. Each round's word is on its own
 * line of the slot, so the rounds' writers never share a line; the value is
 * the team's sequence, and a value past mine (a faster PE's next barrier)
 * counts too: that PE signalled this barrier before it could finish it.
 *
 * A team over several nodes adds a node tier, so that only the node
 * leaders (each node's lowest rank) signal over the network: the members
 * of a node arrive at their leader (the ack word of their rank in its
 * slot, through shared memory), the leaders run the dissemination among
 * themselves, and each leader releases its members (its down word in
 * theirs). That is nodes * ceil(log2 nodes) network signals per barrier
 * instead of up to n * ceil(log2 n). */
#include <stddef.h>

#include "coll/team.h"
#include "core/runtime.h"

/* The dissemination among the node leaders (I am one). */
static int leaders_sync(const aos_team_t *team, uint64_t v)
{
    int m = team->nnodes, pos = team->node[team->me], round = 0;
    for (int dist = 1; dist < m; dist <<= 1, round++) {
        size_t word = AOS__SLOT_ROUND(round);
        int rc = aos__team_signal(team, team->leader[(pos + dist) % m], word, v);
        if (rc == AOS_OK)
            rc = aos__team_wait(team, word, v);
        if (rc != AOS_OK)
            return rc;
    }
    return AOS_OK;
}

static int sync_nodes(const aos_team_t *team, uint64_t v)
{
    int leader = team->mine[0];
    if (team->me != leader) {
        int rc = aos__team_signal(team, leader, AOS__SLOT_ACK(team->me), v);
        return rc != AOS_OK ? rc : aos__team_wait(team, AOS__SLOT_DOWN(leader), v);
    }
    for (int i = 1; i < team->nmine; i++) {
        int rc = aos__team_wait(team, AOS__SLOT_ACK(team->mine[i]), v);
        if (rc != AOS_OK)
            return rc;
    }
    int rc = leaders_sync(team, v);
    for (int i = 1; rc == AOS_OK && i < team->nmine; i++)
        rc = aos__team_signal(team, team->mine[i], AOS__SLOT_DOWN(team->me), v);
    return rc;
}

int aos__team_sync(aos_team_t *team)
{
    uint64_t v = ++team->seq;
    if (team->net)
        return sync_nodes(team, v);
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
