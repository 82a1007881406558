/* Teams are aos teams plus the rank -> world PE table that team contexts
 * use; contexts are a team and options (operations complete through the
 * calling thread's event, see shmem__ev). */
#include <stdio.h>
#include <stdlib.h>

#include "shmem/shmem_internal.h"
#include "shmem/teams.h"

static struct shmem__team world_team = {.predefined = 1, .my_pe = -1, .n_pes = -1};
static struct shmem__team shared_team = {.predefined = 1, .my_pe = -1, .n_pes = -1};
struct shmem__ctx shmem__default_ctx = {.team = &world_team};

shmem_team_t SHMEM_TEAM_WORLD = &world_team;
shmem_team_t SHMEM_TEAM_SHARED = &shared_team;
shmem_ctx_t SHMEM_CTX_DEFAULT = &shmem__default_ctx;

/* Fills in ranks and the world PE table of a team made by aos. */
static int describe(struct shmem__team *t, aos_team_t *team, int is_world)
{
    t->team = team;
    t->my_pe = aos_team_my_pe(team);
    t->n_pes = aos_team_n_pes(team);
    t->world_pe = NULL;
    if (is_world)
        return AOS_OK;
    t->world_pe = malloc((size_t)t->n_pes * sizeof *t->world_pe);
    if (t->world_pe == NULL)
        return AOS_ERR_NO_MEMORY;
    for (int r = 0; r < t->n_pes; r++) {
        int rc = aos_team_translate_pe(team, r, aos_team_world(), &t->world_pe[r]);
        if (rc != AOS_OK) {
            free(t->world_pe);
            t->world_pe = NULL;
            return rc;
        }
    }
    return AOS_OK;
}

int shmem__teams_start(void)
{
    int rc = describe(&world_team, aos_team_world(), 1);
    if (rc == AOS_OK)
        rc = describe(&shared_team, aos_team_node(), 0);
    return rc;
}

void shmem__teams_stop(void)
{
    free(shared_team.world_pe);
    shared_team.world_pe = NULL;
    shared_team.team = world_team.team = NULL;
}

int shmem__team_ok(shmem_team_t team)
{
    return team != SHMEM_TEAM_INVALID && team->team != NULL;
}

int shmem_team_my_pe(shmem_team_t team)
{
    return shmem__team_ok(team) ? team->my_pe : -1;
}

int shmem_team_n_pes(shmem_team_t team)
{
    return shmem__team_ok(team) ? team->n_pes : -1;
}

int shmem_team_get_config(shmem_team_t team, long config_mask, shmem_team_config_t *config)
{
    if (!shmem__team_ok(team) || config == NULL)
        return -1;
    if (config_mask & SHMEM_TEAM_NUM_CONTEXTS)
        config->num_contexts = team->config.num_contexts;
    return 0;
}

int shmem_team_translate_pe(shmem_team_t src_team, int src_pe, shmem_team_t dest_team)
{
    int out = -1;
    if (!shmem__team_ok(src_team) || !shmem__team_ok(dest_team) ||
        aos_team_translate_pe(src_team->team, src_pe, dest_team->team, &out) != AOS_OK)
        return -1;
    return out;
}

/* Wraps an aos team made by a split; NULL team (not a member) gives
 * SHMEM_TEAM_INVALID. */
static int wrap(const char *fn, aos_team_t *team, const shmem_team_config_t *config,
                long mask, shmem_team_t *out)
{
    *out = SHMEM_TEAM_INVALID;
    if (team == NULL)
        return 0;
    struct shmem__team *t = calloc(1, sizeof *t);
    int rc = t == NULL ? AOS_ERR_NO_MEMORY : describe(t, team, 0);
    if (rc != AOS_OK) {
        free(t);
        (void)aos_team_destroy(team);
        shmem__report(fn, rc);
        return -1;
    }
    if (config != NULL && (mask & SHMEM_TEAM_NUM_CONTEXTS))
        t->config.num_contexts = config->num_contexts;
    *out = t;
    return 0;
}

int shmem_team_split_strided(shmem_team_t parent_team, int start, int stride, int size,
                             const shmem_team_config_t *config, long config_mask,
                             shmem_team_t *new_team)
{
    if (new_team == NULL)
        return -1;
    *new_team = SHMEM_TEAM_INVALID;
    if (!shmem__team_ok(parent_team))
        return -1;
    if (size == 1 && stride < 1)
        stride = 1; /* one PE: the stride means nothing */
    aos_team_t *team = NULL;
    int rc = aos_team_split_strided(parent_team->team, start, stride, size, &team);
    if (rc != AOS_OK) {
        shmem__report("shmem_team_split_strided", rc);
        return -1;
    }
    return wrap("shmem_team_split_strided", team, config, config_mask, new_team);
}

int shmem_team_split_2d(shmem_team_t parent_team, int xrange,
                        const shmem_team_config_t *xaxis_config, long xaxis_mask,
                        shmem_team_t *xaxis_team, const shmem_team_config_t *yaxis_config,
                        long yaxis_mask, shmem_team_t *yaxis_team)
{
    if (xaxis_team == NULL || yaxis_team == NULL)
        return -1;
    *xaxis_team = *yaxis_team = SHMEM_TEAM_INVALID;
    if (!shmem__team_ok(parent_team))
        return -1;
    aos_team_t *x = NULL, *y = NULL;
    int rc = aos_team_split_2d(parent_team->team, xrange, &x, &y);
    if (rc != AOS_OK) {
        shmem__report("shmem_team_split_2d", rc);
        return -1;
    }
    if (wrap("shmem_team_split_2d", x, xaxis_config, xaxis_mask, xaxis_team) != 0) {
        (void)aos_team_destroy(y);
        return -1;
    }
    if (wrap("shmem_team_split_2d", y, yaxis_config, yaxis_mask, yaxis_team) != 0) {
        shmem_team_destroy(*xaxis_team);
        *xaxis_team = SHMEM_TEAM_INVALID;
        return -1;
    }
    return 0;
}

void shmem_team_destroy(shmem_team_t team)
{
    if (!shmem__team_ok(team) || team->predefined)
        return;
    int live = __atomic_load_n(&team->contexts, __ATOMIC_RELAXED); /* as in create */
    if (live != 0 && shmem__st.debug)
        fprintf(stderr, "shmem: PE %d: shmem_team_destroy: %d context(s) of this team are "
                        "still live; destroy them first\n", shmem__st.me, live);
    shmem__quiet("shmem_team_destroy");
    int rc = aos_team_destroy(team->team);
    if (rc != AOS_OK)
        shmem__fail("shmem_team_destroy", rc);
    free(team->world_pe);
    team->team = NULL;
    free(team);
}

/* ---- contexts ------------------------------------------------------------------ */

int shmem_team_create_ctx(shmem_team_t team, long options, shmem_ctx_t *ctx)
{
    if (ctx == NULL)
        return -1;
    *ctx = SHMEM_CTX_INVALID;
    if (!shmem__team_ok(team))
        return -1;
    struct shmem__ctx *c = malloc(sizeof *c);
    if (c == NULL)
        return -1;
    c->team = team;
    c->options = options;
    /* Relaxed: threads make contexts at once; the count only feeds the
     * warning in shmem_team_destroy, ordered by nothing else. */
    __atomic_fetch_add(&team->contexts, 1, __ATOMIC_RELAXED);
    *ctx = c;
    return 0;
}

int shmem_ctx_create(long options, shmem_ctx_t *ctx)
{
    return shmem_team_create_ctx(SHMEM_TEAM_WORLD, options, ctx);
}

void shmem_ctx_destroy(shmem_ctx_t ctx)
{
    if (ctx == SHMEM_CTX_INVALID || ctx == SHMEM_CTX_DEFAULT)
        return;
    shmem__quiet("shmem_ctx_destroy"); /* destroying a context completes its operations */
    __atomic_fetch_sub(&ctx->team->contexts, 1, __ATOMIC_RELAXED); /* as in create */
    free(ctx);
}

int shmem_ctx_get_team(shmem_ctx_t ctx, shmem_team_t *team)
{
    if (team == NULL)
        return -1;
    if (ctx == SHMEM_CTX_INVALID) {
        *team = SHMEM_TEAM_INVALID;
        return -1;
    }
    *team = ctx->team;
    return 0;
}

int shmem__ctx_pe_slow(shmem_ctx_t ctx, int pe, const char *fn)
{
    if (ctx == SHMEM_CTX_INVALID) {
        fprintf(stderr, "shmem: PE %d: %s: the context is SHMEM_CTX_INVALID (a failed "
                        "shmem_ctx_create, or a team this PE is not in)\n", shmem__st.me, fn);
        aos_global_exit(1);
    }
    if (pe < 0 || pe >= ctx->team->n_pes)
        shmem__fail(fn, AOS_ERR_PE);
    return ctx->team->world_pe[pe];
}
