/* The exchange: every member pushes its contribution into every member's
 * slot, then waits until all have arrived in its own. One step, no reply,
 * which makes it the fastest way to share small data; small reductions and
 * gathers and the agreement of a team split use it.
 *
 * Entries come in two parities, alternating exchange by exchange. A member
 * writes parity p for exchange e+2 only after finishing exchange e+1, which
 * needed everyone's e+1 contribution, sent after they had read their e
 * entries: so nobody overwrites an entry still being read. */
#include <string.h>

#include "arch/atomics.h"
#include "coll/team.h"
#include "core/runtime.h"
#include "core/wait.h"

static size_t entry_off(int parity, int rank)
{
    return AOS__SLOT_ENTRY(aos__rt.npes, parity, rank);
}

struct arrivals {
    const struct aos__xchg_entry *entries;
    int n;
    int next; /* entries below have arrived */
    uint64_t value;
};

static int all_arrived(const void *ctx)
{
    struct arrivals *a = (struct arrivals *)(uintptr_t)ctx;
    /* Acquire: pairs with the release in the sender's signal_store, after
     * which its data in the entry is visible. */
    while (a->next < a->n && aos__load_acquire(&a->entries[a->next].seq.value) >= a->value)
        a->next++;
    return a->next == a->n;
}

/* My node's entries [parity] in my slot, runs of consecutive ranks each in
 * one put, into the same place of the leader of node nd; the last run goes
 * with the signal, in one message on a network. */
static int put_node_entries(aos_team_t *team, int nd, int parity, size_t len, uint64_t v)
{
    uint64_t slot_off = aos__slot_off(team->slot);
    int to = team->leader[nd], pe = team->pes[to];
    const struct aos__transport *tp = aos__tp(pe);
    for (int i = 0; i < team->nmine;) {
        int j = i + 1;
        while (j < team->nmine && team->mine[j] == team->mine[j - 1] + 1)
            j++;
        /* Ranks mine[i..j): from the first's data to the last's data's end
         * (the seq words between go along; nobody waits on them there). */
        size_t lo = entry_off(parity, team->mine[i]);
        size_t hi = entry_off(parity, team->mine[j - 1]) + len;
        const char *from = aos__rt.my_base + slot_off + lo;
        if (j == team->nmine && hi - lo <= AOS__PUT_SIGNAL_MAX) {
            aos__coll_count_net();
            return tp->put_signal(pe, slot_off + lo, from, len != 0 ? hi - lo : 0,
                                  slot_off + AOS__SLOT_HELP(team->me), v);
        }
        if (len != 0) {
            aos__coll_count_net();
            int rc = tp->put(pe, slot_off + lo, from, hi - lo, NULL);
            if (rc != AOS_OK)
                return rc;
        }
        i = j;
    }
    /* Ordered after the puts (transport.h). */
    return aos__team_signal(team, to, AOS__SLOT_HELP(team->me), v);
}

static int exchange_nodes(aos_team_t *team, const void *mine, size_t len, int parity,
                          uint64_t v, const struct aos__xchg_entry **entries)
{
    uint64_t slot_off = aos__slot_off(team->slot);
    size_t my_entry = entry_off(parity, team->me);
    size_t seq_at = offsetof(struct aos__xchg_entry, seq);
    int leader = team->mine[0];
    if (team->me != leader) {
        /* The signal's release publishes the copy. */
        memcpy(aos__team_peer(team, leader, slot_off + my_entry), mine, len);
        int rc = aos__team_signal(team, leader, my_entry + seq_at, v);
        if (rc == AOS_OK) /* all entries are in the leader's slot */
            rc = aos__team_wait(team, AOS__SLOT_DOWN(leader), v);
        if (rc != AOS_OK)
            return rc;
        *entries = (const struct aos__xchg_entry *)(void *)aos__team_peer(
            team, leader, slot_off + entry_off(parity, 0));
        return AOS_OK;
    }
    char *base = aos__rt.my_base + slot_off;
    struct aos__xchg_entry *own = (struct aos__xchg_entry *)(void *)(base + my_entry);
    memcpy(own->data, mine, len);
    /* Relaxed: only this thread reads my own entry's word. */
    aos__store_relaxed(&own->seq.value, v);
    int rc = AOS_OK;
    for (int i = 1; rc == AOS_OK && i < team->nmine; i++)
        rc = aos__team_wait(team, entry_off(parity, team->mine[i]) + seq_at, v);
    /* Starting after my node spreads the writers over the targets. */
    int me = team->node[team->me];
    for (int i = 1; rc == AOS_OK && i < team->nnodes; i++)
        rc = put_node_entries(team, (me + i) % team->nnodes, parity, len, v);
    for (int nd = 0; rc == AOS_OK && nd < team->nnodes; nd++)
        if (nd != me)
            rc = aos__team_wait(team, AOS__SLOT_HELP(team->leader[nd]), v);
    for (int i = 1; rc == AOS_OK && i < team->nmine; i++)
        rc = aos__team_signal(team, team->mine[i], AOS__SLOT_DOWN(team->me), v);
    if (rc == AOS_OK)
        *entries = (const struct aos__xchg_entry *)(void *)(base + entry_off(parity, 0));
    return rc;
}

int aos__team_exchange(aos_team_t *team, const void *mine, size_t len,
                       const struct aos__xchg_entry **entries)
{
    int parity = (int)(team->xchg_count++ & 1);
    uint64_t v = ++team->seq;
    if (team->net)
        return exchange_nodes(team, mine, len, parity, v, entries);
    uint64_t slot_off = aos__slot_off(team->slot);
    size_t my_entry = entry_off(parity, team->me);
    /* Starting after myself spreads the writers over the targets. */
    for (int i = 1; i < team->size; i++) {
        int r = (team->me + i) % team->size;
        /* On my node (a team over several takes exchange_nodes): the
         * signal's release publishes the copy. */
        memcpy(aos__team_peer(team, r, slot_off + my_entry), mine, len);
        int rc = aos__team_signal(team, r, my_entry + offsetof(struct aos__xchg_entry, seq), v);
        if (rc != AOS_OK)
            return rc;
    }
    char *base = aos__rt.my_base + slot_off;
    struct aos__xchg_entry *own = (struct aos__xchg_entry *)(void *)(base + my_entry);
    memcpy(own->data, mine, len);
    /* Relaxed: only this thread reads my own entry's word. */
    aos__store_relaxed(&own->seq.value, v);

    struct arrivals a = {(const struct aos__xchg_entry *)(void *)(base + entry_off(parity, 0)),
                         team->size, 0, v};
    if (!all_arrived(&a)) {
        uint64_t lo = slot_off + entry_off(parity, 0);
        int rc = aos__wait(all_arrived, &a, AOS__FOREVER,
                           (struct aos__watch){lo, lo + (uint64_t)team->size * sizeof *own});
        if (rc != AOS_OK)
            return rc;
    }
    *entries = a.entries;
    return AOS_OK;
}
