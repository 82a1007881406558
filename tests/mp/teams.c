/* Teams: the predefined ones, strided and 2D splits (membership, ranks,
 * translation), barriers on them, 300 split/destroy cycles (slots are
 * reused many times over; a stale flag would let a barrier through early,
 * which the token check would catch), running out of slots, and bad input,
 * including arguments that differ between PEs (an error everywhere, never
 * a hang). */
#include <string.h>

#include "../common/check.h"

static int token[64]; /* symmetric: token[r] written by world PE r */

/* A barrier on team lets nobody through before every member has written its
 * token for round `round`. */
static void check_barrier(aos_team_t *team, int round)
{
    int me = aos_my_pe(), n = aos_team_n_pes(team);
    for (int r = 0; r < n; r++) {
        int pe;
        CHECK_OK(aos_team_translate_pe(team, r, aos_team_world(), &pe));
        CHECK_OK(aos_putmem(pe, &token[me], &round, sizeof round, NULL));
    }
    CHECK_OK(aos_team_barrier(team));
    for (int r = 0; r < n; r++) {
        int pe;
        CHECK_OK(aos_team_translate_pe(team, r, aos_team_world(), &pe));
        CHECK(__atomic_load_n(&token[pe], __ATOMIC_ACQUIRE) >= round);
    }
    CHECK_OK(aos_team_sync(team)); /* nobody writes round + 1 before all checked */
}

int main(void)
{
    CHECK(aos_team_world() == NULL);
    CHECK(aos_team_my_pe(NULL) == -1);
    CHECK_OK(aos_init());
    int me = aos_my_pe(), npes = aos_n_pes();
    CHECK(npes <= 64);
    aos_team_t *world = aos_team_world();
    CHECK(world != NULL && aos_team_my_pe(world) == me && aos_team_n_pes(world) == npes);
    int k = test_node_size(npes), first = me / k * k;
    CHECK(aos_team_n_pes(aos_team_node()) == (first + k <= npes ? k : npes - first));
    int cl[64], ncl;
    CHECK_OK(aos_cluster_pes(cl, 64, &ncl));
    CHECK(aos_team_n_pes(aos_team_cluster()) == ncl);
    int mine_in_cluster;
    CHECK_OK(aos_team_translate_pe(world, me, aos_team_cluster(), &mine_in_cluster));
    CHECK(mine_in_cluster == aos_team_my_pe(aos_team_cluster()));
    CHECK_RC(aos_team_destroy(world), AOS_ERR_INVALID);
    CHECK_RC(aos_team_translate_pe(world, npes, world, &mine_in_cluster), AOS_ERR_PE);
    CHECK_RC(aos_team_translate_pe(world, 0, NULL, &mine_in_cluster), AOS_ERR_NULL);
    CHECK_RC(aos_team_barrier(NULL), AOS_ERR_NULL);
    for (int round = 1; round <= 20; round++)
        check_barrier(world, round);

    /* Odd and even PEs. */
    aos_team_t *even = NULL, *odd = NULL;
    CHECK_OK(aos_team_split_strided(world, 0, 2, (npes + 1) / 2, &even));
    if (npes > 1)
        CHECK_OK(aos_team_split_strided(world, 1, 2, npes / 2, &odd));
    CHECK((even != NULL) == (me % 2 == 0));
    CHECK((odd != NULL) == (me % 2 == 1));
    aos_team_t *half = me % 2 == 0 ? even : odd;
    CHECK(aos_team_my_pe(half) == me / 2);
    int back;
    CHECK_OK(aos_team_translate_pe(half, aos_team_my_pe(half), world, &back));
    CHECK(back == me);
    if (me + 1 < npes) {
        CHECK_OK(aos_team_translate_pe(world, me + 1, half, &back));
        CHECK(back == -1); /* the neighbour is in the other half */
    }
    /* Both halves barrier at once, each on its own slot. */
    for (int round = 21; round <= 40; round++)
        check_barrier(half, round);

    /* A split of a split: every third member of my half. */
    aos_team_t *third = NULL;
    CHECK_OK(aos_team_split_strided(half, 0, 3, (aos_team_n_pes(half) + 2) / 3, &third));
    CHECK((third != NULL) == (aos_team_my_pe(half) % 3 == 0));
    if (third != NULL) {
        CHECK(aos_team_my_pe(third) == aos_team_my_pe(half) / 3);
        check_barrier(third, 41);
        CHECK_OK(aos_team_destroy(third));
    }
    CHECK_OK(aos_team_destroy(half));

    /* 2D: rows of 3. */
    aos_team_t *row, *col;
    CHECK_OK(aos_team_split_2d(world, 3, &row, &col));
    CHECK(aos_team_my_pe(row) == me % 3 && aos_team_my_pe(col) == me / 3);
    int rowlen = npes - me / 3 * 3 < 3 ? npes - me / 3 * 3 : 3;
    CHECK(aos_team_n_pes(row) == rowlen);
    CHECK(aos_team_n_pes(col) == (npes - me % 3 + 2) / 3);
    for (int r = 0; r < aos_team_n_pes(col); r++) {
        int pe;
        CHECK_OK(aos_team_translate_pe(col, r, world, &pe));
        CHECK(pe == me % 3 + 3 * r);
    }
    check_barrier(row, 42);
    check_barrier(col, 43);
    CHECK_OK(aos_team_destroy(row));
    CHECK_OK(aos_team_destroy(col));
    aos_team_t *x, *y; /* xrange above the size: one row */
    CHECK_OK(aos_team_split_2d(world, npes + 5, &x, &y));
    CHECK(aos_team_n_pes(x) == npes && aos_team_n_pes(y) == 1);
    CHECK_OK(aos_team_destroy(x));
    CHECK_OK(aos_team_destroy(y));

    /* Slots are reused again and again; sequences never restart. */
    for (int cycle = 0; cycle < 300; cycle++) {
        aos_team_t *t;
        int start = cycle % npes;
        CHECK_OK(aos_team_split_strided(world, start, 1, npes - start, &t));
        CHECK((t != NULL) == (me >= start));
        if (t != NULL) {
            CHECK(aos_team_my_pe(t) == me - start);
            if (cycle % 25 == 0)
                check_barrier(t, 100 + cycle);
            else
                CHECK_OK(aos_team_sync(t));
            CHECK_OK(aos_team_destroy(t));
        }
    }

    /* Running out: 61 more teams fit beside the 3 predefined, then every PE
     * gets AOS_ERR_TOO_MANY. */
    aos_team_t *many[64];
    int made = 0;
    for (;;) {
        int rc = aos_team_split_strided(world, 0, 1, npes, &many[made]);
        if (rc == AOS_ERR_TOO_MANY)
            break;
        CHECK_OK(rc);
        made++;
        CHECK(made <= 61);
    }
    CHECK(made == 61);
    CHECK_OK(aos_team_sync(many[60]));
    while (made > 0)
        CHECK_OK(aos_team_destroy(many[--made]));

    /* Bad input, the same on every PE, and arguments that differ. */
    aos_team_t *bad = NULL;
    CHECK_RC(aos_team_split_strided(world, -1, 1, 1, &bad), AOS_ERR_INVALID);
    CHECK_RC(aos_team_split_strided(world, 0, 0, 1, &bad), AOS_ERR_INVALID);
    CHECK_RC(aos_team_split_strided(world, 0, 1, npes + 1, &bad), AOS_ERR_INVALID);
    CHECK_RC(aos_team_split_strided(world, 0, 1, 0, &bad), AOS_ERR_INVALID);
    CHECK_RC(aos_team_split_strided(world, 0, 1, 1, NULL), AOS_ERR_NULL);
    CHECK_RC(aos_team_split_2d(world, 0, &x, &y), AOS_ERR_INVALID);
    if (npes > 1)
        CHECK_RC(aos_team_split_strided(world, 0, 1, me == 0 ? 1 : npes, &bad),
                 AOS_ERR_INVALID);
    CHECK(bad == NULL);
    check_barrier(world, 1000);
    CHECK_OK(aos_finalize());
    CHECK(aos_team_world() == NULL);
    return 0;
}
