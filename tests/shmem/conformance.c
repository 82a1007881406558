/* OpenSHMEM 1.5 points programs written by others rely on:
 *  - shmem_align's address itself is aligned, 16 B to 4 MiB, on every PE,
 *    at the same offset, among other allocations and frees;
 *  - fence, quiet, destroy and get_team on SHMEM_CTX_INVALID (given, or
 *    left by a failed context creation) do what 1.5 says: nothing, or
 *    SHMEM_TEAM_INVALID and non-zero;
 *  - test_any / wait_until_any (and _vector) take satisfied entries round
 *    robin, so flags nobody clears never starve the later ones;
 *  - the C11 generic shmem_sync(team) next to the deprecated active-set
 *    shmem_sync. */
#include <stdint.h>
#include <string.h>

#include "check_shmem.h"

static long psync[SHMEM_BARRIER_SYNC_SIZE];

/* The same value on every PE. */
static void check_same(long v)
{
    static long src, max, min;
    src = v;
    shmem_barrier_all();
    CHECK(shmem_long_max_reduce(SHMEM_TEAM_WORLD, &max, &src, 1) == 0);
    CHECK(shmem_long_min_reduce(SHMEM_TEAM_WORLD, &min, &src, 1) == 0);
    CHECK(max == v && min == v);
}

static void aligned_allocations(int me, int n)
{
    char *base = shmem_malloc(1);
    CHECK(base != NULL);
    void *keep[24] = {0};
    int k = 0;
    for (size_t a = 16; a <= ((size_t)4 << 20); a *= 2) {
        void *odd = shmem_malloc(100 + a % 1000); /* moves the heap's next free place */
        char *p = shmem_align(a, 100);
        CHECK(odd != NULL && p != NULL);
        CHECK((uintptr_t)p % a == 0);
        check_same((long)(p - base));
        /* usable symmetrically: my right neighbour writes my block */
        shmem_long_p((long *)(void *)p, me * 1000 + (long)a, (me + 1) % n);
        shmem_barrier_all();
        CHECK(*(long *)(void *)p == ((me + n - 1) % n) * 1000 + (long)a);
        shmem_free(odd);
        if (a % 4096 == 16 || a >= 65536)
            keep[k++] = p; /* some stay, some go */
        else
            shmem_free(p);
    }
    while (k > 0)
        shmem_free(keep[--k]);
    shmem_free(base);
}

static void invalid_contexts(int me)
{
    shmem_ctx_fence(SHMEM_CTX_INVALID);
    shmem_ctx_quiet(SHMEM_CTX_INVALID);
    shmem_ctx_destroy(SHMEM_CTX_INVALID);
    shmem_team_t t = SHMEM_TEAM_WORLD;
    CHECK(shmem_ctx_get_team(SHMEM_CTX_INVALID, &t) != 0 && t == SHMEM_TEAM_INVALID);

    /* creation fails on SHMEM_TEAM_INVALID and on a team this PE is not in */
    shmem_ctx_t c = SHMEM_CTX_DEFAULT;
    CHECK(shmem_team_create_ctx(SHMEM_TEAM_INVALID, 0, &c) != 0 && c == SHMEM_CTX_INVALID);
    shmem_ctx_fence(c);
    shmem_ctx_quiet(c);
    shmem_ctx_destroy(c);
    shmem_team_t only0 = SHMEM_TEAM_INVALID;
    CHECK(shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 1, 1, NULL, 0, &only0) == 0);
    CHECK((only0 != SHMEM_TEAM_INVALID) == (me == 0));
    c = SHMEM_CTX_DEFAULT;
    int rc = shmem_team_create_ctx(only0, 0, &c);
    CHECK((rc == 0) == (me == 0) && (c != SHMEM_CTX_INVALID) == (me == 0));
    shmem_ctx_quiet(c);
    shmem_ctx_fence(c);
    t = SHMEM_TEAM_WORLD;
    CHECK((shmem_ctx_get_team(c, &t) == 0) == (me == 0) && t == only0);
    shmem_ctx_destroy(c);
    if (only0 != SHMEM_TEAM_INVALID)
        shmem_team_destroy(only0);

    /* a context made and used normally still works after all that */
    CHECK(shmem_ctx_create(0, &c) == 0 && c != SHMEM_CTX_INVALID);
    shmem_ctx_quiet(c);
    shmem_ctx_destroy(c);
}

static int flags[5];
static int other[5];

static void round_robin(void)
{
    for (int i = 0; i < 5; i++)
        flags[i] = other[i] = 1; /* all satisfied, and nobody clears them */
    int vals[5] = {1, 1, 1, 1, 1};
    /* test_any: every satisfied entry in turn, wrapping around */
    static const size_t want[] = {0, 1, 2, 3, 4, 0, 1};
    for (size_t k = 0; k < sizeof want / sizeof *want; k++)
        CHECK(shmem_int_test_any(flags, 5, NULL, SHMEM_CMP_EQ, 1) == want[k]);
    /* wait_until_any continues where the last call on this array stopped */
    CHECK(shmem_int_wait_until_any(flags, 5, NULL, SHMEM_CMP_EQ, 1) == 2);
    CHECK(shmem_int_wait_until_any(flags, 5, NULL, SHMEM_CMP_EQ, 1) == 3);
    /* another array starts from its own first entry */
    CHECK(shmem_int_test_any(other, 5, NULL, SHMEM_CMP_EQ, 1) == 0);
    CHECK(shmem_int_test_any(other, 5, NULL, SHMEM_CMP_EQ, 1) == 1);
    /* excluded and unsatisfied entries are skipped */
    int status[5] = {0, 1, 0, 0, 0};
    flags[3] = 0;
    CHECK(shmem_int_test_any(flags, 5, status, SHMEM_CMP_EQ, 1) == 0);
    CHECK(shmem_int_test_any(flags, 5, status, SHMEM_CMP_EQ, 1) == 2);
    CHECK(shmem_int_test_any(flags, 5, status, SHMEM_CMP_EQ, 1) == 4);
    CHECK(shmem_int_test_any(flags, 5, status, SHMEM_CMP_EQ, 1) == 0);
    flags[3] = 1;
    /* the vector forms */
    CHECK(shmem_int_test_any_vector(flags, 5, NULL, SHMEM_CMP_EQ, vals) == 1);
    CHECK(shmem_int_wait_until_any_vector(flags, 5, NULL, SHMEM_CMP_EQ, vals) == 2);
    CHECK(shmem_int_wait_until_any_vector(flags, 5, NULL, SHMEM_CMP_EQ, vals) == 3);
    /* the C11 generic selections reach the same routines */
    CHECK(shmem_test_any(flags, 5, NULL, SHMEM_CMP_EQ, 1) == 4);
    CHECK(shmem_wait_until_any(flags, 5, NULL, SHMEM_CMP_EQ, 1) == 0);
    /* a spec-style loop: serve each of the ready flags once */
    int served[5] = {0};
    for (int k = 0; k < 10; k++)
        served[shmem_int_wait_until_any(flags, 5, NULL, SHMEM_CMP_EQ, 1)]++;
    for (int i = 0; i < 5; i++)
        CHECK(served[i] == 2);
}

static void sync_forms(int me, int n)
{
    static int box;
    box = 0;
    shmem_barrier_all();
    shmem_int_atomic_add(&box, me + 1, 0);
    shmem_quiet();
    CHECK(shmem_sync(SHMEM_TEAM_WORLD) == 0); /* the C11 generic: shmem_team_sync */
    if (me == 0)
        CHECK(box == n * (n + 1) / 2);
    CHECK(shmem_sync(SHMEM_TEAM_WORLD) == 0);
    for (int i = 0; i < SHMEM_BARRIER_SYNC_SIZE; i++)
        psync[i] = SHMEM_SYNC_VALUE;
    shmem_sync(0, 0, n, psync); /* the deprecated active-set form */
    CHECK(shmem_sync(SHMEM_TEAM_INVALID) != 0);
}

int main(void)
{
    shmem_init();
    int me = shmem_my_pe(), n = shmem_n_pes();
    aligned_allocations(me, n);
    invalid_contexts(me);
    round_robin();
    sync_forms(me, n);
    shmem_barrier_all();
    if (me == 0)
        printf("conformance: align, invalid contexts, round-robin any, shmem_sync on %d PEs\n",
               n);
    shmem_finalize();
    return 0;
}
