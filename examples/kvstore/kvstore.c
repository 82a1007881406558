/* A distributed hash table: key k lives on PE k % npes; inserts and lookups
 * are RPCs to the owner, which runs them on its own table (handlers run at
 * home one at a time, so the table needs no lock). Every PE inserts its
 * keys, then looks up keys owned everywhere (and some that were never
 * inserted) with many calls outstanding, verifies every answer, and PE 0
 * prints operations per second.
 *
 * usage: aosrun -n 4 kvstore [keys-per-PE]   (AOS_PROGRESS_THREAD=1 works too) */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <aos.h>

#include "try.h"

#define BATCH 48 /* calls outstanding per PE (of aos's 64 records) */

struct entry {
    uint64_t key; /* 0: empty (keys start at 1) */
    uint64_t value;
};

static struct entry *table;
static size_t table_cap; /* a power of two */
static aos_rpc_id_t id_insert, id_lookup;

static uint64_t value_of(uint64_t key)
{
    return key * 0x9E3779B97F4A7C15ull ^ (key >> 7);
}

static struct entry *slot_for(uint64_t key)
{
    size_t i = (size_t)(key * 0xff51afd7ed558ccdull >> 17) & (table_cap - 1);
    while (table[i].key != 0 && table[i].key != key)
        i = (i + 1) & (table_cap - 1);
    return &table[i];
}

/* args: {key, value}; no reply (posted) */
static size_t insert(const aos_rpc_info_t *info, const void *args, size_t len, void *reply,
                     size_t cap)
{
    (void)info;
    (void)reply;
    (void)cap;
    struct entry e;
    if (len != sizeof e)
        return 0;
    memcpy(&e, args, sizeof e);
    *slot_for(e.key) = e;
    return 0;
}

/* args: {key}; reply: {found, value} */
static size_t lookup(const aos_rpc_info_t *info, const void *args, size_t len, void *reply,
                     size_t cap)
{
    (void)info;
    uint64_t key, out[2] = {0, 0};
    if (len != sizeof key || cap < sizeof out)
        return 0;
    memcpy(&key, args, sizeof key);
    struct entry *e = slot_for(key);
    if (e->key == key) {
        out[0] = 1;
        out[1] = e->value;
    }
    memcpy(reply, out, sizeof out);
    return sizeof out;
}

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}


static uint64_t errors; /* symmetric: wrong answers, summed at PE 0 */

int main(int argc, char **argv)
{
    TRY(aos_init());
    int me = aos_my_pe(), npes = aos_n_pes();
    uint64_t per_pe = argc > 1 ? strtoull(argv[1], NULL, 10) : 200000;
    uint64_t total = per_pe * (uint64_t)npes;
    /* Each PE holds total/npes keys; keep the load under one half. */
    for (table_cap = 1024; table_cap < 2 * per_pe + 2; table_cap *= 2)
        ;
    table = calloc(table_cap, sizeof *table);
    if (table == NULL)
        return 1;
    TRY(aos_rpc_register("kv_insert", insert, 0, &id_insert));
    TRY(aos_rpc_register("kv_lookup", lookup, 0, &id_lookup));
    TRY(aos_barrier_all());

    /* Inserts: my keys are me+1, me+1+npes, ...; key k goes to PE k % npes. */
    double t0 = now();
    for (uint64_t i = 0; i < per_pe; i++) {
        uint64_t k = 1 + (uint64_t)me + i * (uint64_t)npes;
        struct entry e = {k, value_of(k)};
        TRY(aos_rpc_post((int)(k % (uint64_t)npes), id_insert, &e, sizeof e));
    }
    TRY(aos_barrier_all()); /* every insert has run: callers serve until all arrive */
    double t_insert = now() - t0;

    /* Lookups in batches with events: keys from all over the table, and one
     * in eight beyond the last key (must be missing). */
    aos_event_t *ev;
    TRY(aos_event_create(&ev));
    uint64_t keys[BATCH], answers[BATCH][2];
    size_t lens[BATCH];
    uint64_t rng = 0x2545F4914F6CDD1Dull ^ (uint64_t)me, wrong = 0;
    t0 = now();
    for (uint64_t done = 0; done < per_pe; done += BATCH) {
        int n = per_pe - done < BATCH ? (int)(per_pe - done) : BATCH;
        for (int j = 0; j < n; j++) {
            rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17;
            keys[j] = j % 8 == 7 ? total + 1 + rng % 1000 : 1 + rng % total;
            TRY(aos_rpc((int)(keys[j] % (uint64_t)npes), id_lookup, &keys[j], sizeof keys[j], answers[j], sizeof answers[j],
                        &lens[j], ev));
        }
        TRY(aos_event_wait(ev));
        for (int j = 0; j < n; j++) {
            int present = keys[j] <= total;
            if (lens[j] != sizeof answers[j] || answers[j][0] != (uint64_t)present ||
                (present && answers[j][1] != value_of(keys[j])))
                wrong++;
        }
    }
    double t_lookup = now() - t0;
    TRY(aos_event_destroy(ev));
    TRY(aos_amo_post_sym(0, &errors, AOS_AMO_ADD, AOS_AMO_U64, wrong));
    TRY(aos_barrier_all());
    if (me == 0) {
        printf("kvstore: %d PEs, %llu keys\n", npes, (unsigned long long)total);
        printf("  inserts  %.2f M ops/s (posted RPCs)\n", (double)total / t_insert / 1e6);
        printf("  lookups  %.2f M ops/s (RPCs with replies, %d outstanding per PE)\n",
               (double)total / t_lookup / 1e6, BATCH);
        printf("  verified %llu lookups: %llu wrong\n", (unsigned long long)total,
               (unsigned long long)errors);
    }
    int bad = errors != 0;
    TRY(aos_finalize());
    free(table); /* after finalize: a progress thread may have served until then */
    return bad;
}
