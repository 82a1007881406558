/* AOS_CHECK=1 (set by the test registration): a collective or symmetric
 * allocation whose arguments differ between members fails on every member,
 * with AOS_ERR_INVALID (or the odd member's own error) and a line on stderr
 * naming the call, the PE and the argument, instead of hanging or giving
 * wrong data; the program then goes on with matched arguments and gets
 * exact results. */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "../common/check.h"

#define WORDS 1024

static int me, n;

/* stderr goes to a temporary file between capture_start and capture_end,
 * which returns what was written there (or "" when none). */
static FILE *captured;
static int saved_stderr = -1;
static char capture_text[8192];

static void capture_start(void)
{
    fflush(stderr);
    captured = tmpfile();
    CHECK(captured != NULL);
    saved_stderr = dup(2);
    CHECK(saved_stderr >= 0);
    CHECK(dup2(fileno(captured), 2) == 2);
}

static const char *capture_end(void)
{
    fflush(stderr);
    CHECK(dup2(saved_stderr, 2) == 2);
    close(saved_stderr);
    rewind(captured);
    size_t got = fread(capture_text, 1, sizeof capture_text - 1, captured);
    capture_text[got] = '\0';
    fclose(captured);
    return capture_text;
}

/* The odd one out: team rank 1 (the last rank when there is one PE: then
 * nothing differs and the call must succeed). */
static int odd(const aos_team_t *team)
{
    return aos_team_my_pe(team) == (aos_team_n_pes(team) > 1 ? 1 : -1);
}

/* Every member of a team of tn gets `expected`; alone, nothing differs. */
static void check_all_fail(int tn, int rc, int expected)
{
    if (tn == 1)
        CHECK_OK(rc);
    else
        CHECK_RC(rc, expected);
}

/* A matched broadcast, all-reduce and fcollect over team give exact data. */
static void matched(aos_team_t *team, uint64_t *src, uint64_t *dst, unsigned seed)
{
    int tme = aos_team_my_pe(team), tn = aos_team_n_pes(team);
    int root = tn - 1;
    for (int i = 0; i < WORDS; i++)
        src[i] = (uint64_t)seed * 1000003u + (uint64_t)tme * WORDS + (uint64_t)i;
    CHECK_OK(aos_broadcast(team, dst, src, WORDS * sizeof *src, root));
    for (int i = 0; i < WORDS; i++)
        CHECK(dst[i] == (uint64_t)seed * 1000003u + (uint64_t)root * WORDS + (uint64_t)i);
    CHECK_OK(aos_allreduce(team, dst, src, WORDS, AOS_TYPE_UINT64, AOS_OP_SUM));
    for (int i = 0; i < WORDS; i++) {
        uint64_t want = 0;
        for (int r = 0; r < tn; r++)
            want += (uint64_t)seed * 1000003u + (uint64_t)r * WORDS + (uint64_t)i;
        CHECK(dst[i] == want);
    }
    CHECK_OK(aos_fcollect(team, dst, src, 8 * sizeof *src));
    for (int r = 0; r < tn; r++)
        for (int i = 0; i < 8; i++)
            CHECK(dst[r * 8 + i] == (uint64_t)seed * 1000003u + (uint64_t)r * WORDS + (uint64_t)i);
    CHECK_OK(aos_team_sync(team)); /* src rewritten next only after all have read */
}

static void mismatches(aos_team_t *team, uint64_t *src, uint64_t *dst)
{
    int tn = aos_team_n_pes(team);
    size_t bytes = WORDS * sizeof *src;
    int o = odd(team);
    /* broadcast: root, size */
    check_all_fail(tn, aos_broadcast(team, dst, src, bytes, o ? 1 : 0), AOS_ERR_INVALID);
    check_all_fail(tn, aos_broadcast(team, dst, src, o ? bytes / 2 : bytes, 0), AOS_ERR_INVALID);
    /* a root out of range on one member: its own error there, INVALID elsewhere */
    int rc = aos_broadcast(team, dst, src, bytes, o ? tn : 0);
    if (tn > 1)
        CHECK_RC(rc, o ? AOS_ERR_PE : AOS_ERR_INVALID);
    else
        CHECK_OK(rc);
    /* all-reduce: count, type, op; reduce: root */
    check_all_fail(tn, aos_allreduce(team, dst, src, o ? 3 : 4, AOS_TYPE_UINT64, AOS_OP_SUM),
                   AOS_ERR_INVALID);
    check_all_fail(tn, aos_allreduce(team, dst, src, 4, o ? AOS_TYPE_INT64 : AOS_TYPE_UINT64,
                                 AOS_OP_SUM),
                   AOS_ERR_INVALID);
    check_all_fail(tn, aos_allreduce(team, dst, src, WORDS, AOS_TYPE_UINT64,
                                 o ? AOS_OP_MAX : AOS_OP_SUM),
                   AOS_ERR_INVALID);
    check_all_fail(tn, aos_reduce(team, dst, src, 4, AOS_TYPE_UINT64, AOS_OP_SUM, o ? 1 : 0),
                   AOS_ERR_INVALID);
    /* gathers and all-to-all: sizes */
    check_all_fail(tn, aos_fcollect(team, dst, src, o ? 16 : 8), AOS_ERR_INVALID);
    check_all_fail(tn, aos_alltoall(team, dst, src, o ? 16 : 8), AOS_ERR_INVALID);
    check_all_fail(tn, aos_alltoalls(team, dst, src, 1, o ? 2 : 1, 4, 8), AOS_ERR_INVALID);
    /* different collectives at the same point */
    if (o)
        rc = aos_broadcast(team, dst, src, 64, 0);
    else
        rc = aos_allreduce(team, dst, src, 8, AOS_TYPE_UINT64, AOS_OP_SUM);
    check_all_fail(tn, rc, AOS_ERR_INVALID);
}

int main(void)
{
    CHECK_OK(aos_init());
    me = aos_my_pe();
    n = aos_n_pes();
    aos_team_t *world = aos_team_world();
    uint64_t *src = aos_malloc(WORDS * sizeof *src);
    uint64_t *dst = aos_malloc(WORDS * sizeof *dst);
    CHECK(src != NULL && dst != NULL);
    matched(world, src, dst, 1);

    /* The message names the call, the PE and the argument. */
    capture_start();
    int rc = aos_broadcast(world, dst, src, 64, odd(world) ? 1 : 0);
    const char *text = capture_end();
    check_all_fail(n, rc, AOS_ERR_INVALID);
    if (n > 1 && (strstr(text, "aos_broadcast") == NULL || strstr(text, "'root'") == NULL ||
                  strstr(text, "on PE 1") == NULL)) {
        fprintf(stderr, "FAIL PE %d: unclear message: %s\n", me, text);
        return 1;
    }

    mismatches(world, src, dst);
    matched(world, src, dst, 2);

    /* Symmetric allocation: a size that differs gives NULL everywhere and
     * leaves the heap in step. */
    capture_start();
    void *p = aos_malloc(odd(world) ? 4096 : 8192);
    text = capture_end();
    CHECK(n == 1 ? p != NULL : p == NULL);
    if (n > 1 && (strstr(text, "aos_malloc") == NULL || strstr(text, "'size'") == NULL)) {
        fprintf(stderr, "FAIL PE %d: unclear message: %s\n", me, text);
        return 1;
    }
    aos_free(p);
    p = aos_calloc(odd(world) ? 3 : 2, 64);
    CHECK(n == 1 ? p != NULL : p == NULL);
    aos_free(p);
    p = aos_align(odd(world) ? 128 : 64, 256);
    CHECK(n == 1 ? p != NULL : p == NULL);
    aos_free(p);
    uint64_t *a = aos_malloc(64), *b = aos_malloc(64);
    CHECK(a != NULL && b != NULL);
    if (n > 1) {
        /* Divergent reallocs and frees move and free nothing: both blocks
         * stay usable at the same address everywhere. */
        CHECK(aos_realloc(odd(world) ? b : a, 128) == NULL);
        aos_free(odd(world) ? b : a);
        a[7] = 7;
        b[7] = 8;
        CHECK_OK(aos_barrier_all());
        uint64_t v = 1000u + (uint64_t)me;
        int right = (me + 1) % n;
        CHECK_OK(aos_putmem(right, &a[0], &v, sizeof v, NULL));
        CHECK_OK(aos_putmem(right, &b[0], &v, sizeof v, NULL));
        CHECK_OK(aos_barrier_all());
        uint64_t from_left = 1000u + (uint64_t)((me + n - 1) % n);
        CHECK(a[0] == from_left && b[0] == from_left && a[7] == 7 && b[7] == 8);
    }
    aos_free(b);
    aos_free(a);
    /* The heap is in step: a new block lies at the same offset everywhere. */
    uint64_t *c = aos_malloc(4096);
    CHECK(c != NULL);
    uint64_t addr = (uint64_t)((uintptr_t)c - (uintptr_t)src);
    src[0] = addr;
    CHECK_OK(aos_allreduce(world, dst, src, 1, AOS_TYPE_UINT64, AOS_OP_MIN));
    CHECK(dst[0] == addr);
    CHECK_OK(aos_allreduce(world, dst, src, 1, AOS_TYPE_UINT64, AOS_OP_MAX));
    CHECK(dst[0] == addr);
    aos_free(c);

    /* The same inside a team made by a split: every other PE. */
    aos_team_t *evens = NULL;
    CHECK_OK(aos_team_split_strided(world, 0, 2, (n + 1) / 2, &evens));
    if (evens != NULL) {
        mismatches(evens, src, dst);
        matched(evens, src, dst, 3);
        CHECK_OK(aos_team_destroy(evens));
    }
    matched(world, src, dst, 4);
    aos_free(dst);
    aos_free(src);
    CHECK_OK(aos_finalize());
    if (me == 0)
        printf("coll_check: mismatches refused on every PE of %d\n", n);
    return 0;
}
