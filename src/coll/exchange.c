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

int aos__team_exchange(aos_team_t *team, const void *mine, size_t len,
                       const struct aos__xchg_entry **entries)
{
    int parity = (int)(team->xchg_count++ & 1);
    uint64_t v = ++team->seq;
    uint64_t slot_off = aos__slot_off(team->slot);
    size_t my_entry = entry_off(parity, team->me);
    /* Starting after myself spreads the writers over the targets. */
    for (int i = 1; i < team->size; i++) {
        int r = (team->me + i) % team->size;
        int pe = team->pes[r];
        int rc = AOS_OK;
        if (aos__on_node(pe)) /* the signal's release publishes the copy */
            memcpy(aos__rt.peers[pe].base + slot_off + my_entry, mine, len);
        else if (len != 0) /* the signal is ordered after the put (transport.h) */
            rc = aos__tp(pe)->put(pe, slot_off + my_entry, mine, len, NULL);
        if (rc == AOS_OK)
            rc = aos__team_signal(team, r, my_entry + offsetof(struct aos__xchg_entry, seq), v);
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
