/* --predict: the model's predictions beside measurements on this machine,
 * then predictions alone for team sizes this machine cannot run. */
#include <errno.h>
#include <string.h>
#include <sys/stat.h>

#include "coll/team.h"
#include "probe.h"

int probe_write(const char *path, const struct aos__model *m, int npes)
{
    char dir[4096];
    snprintf(dir, sizeof dir, "%s", path);
    for (char *p = dir + 1; *p != '\0'; p++) { /* mkdir -p of the directory */
        if (*p != '/')
            continue;
        *p = '\0';
        if (mkdir(dir, 0755) != 0 && errno != EEXIST)
            return -1;
        *p = '/';
    }
    char note[128];
    snprintf(note, sizeof note, "measured by aos-probe with %d PEs", npes);
    return aos__model_write(path, m, note) == AOS_OK ? 0 : -1;
}

#define ITERS(bytes, quick) ((long)((quick) ? 200 : 2000) * 4096 / (long)((bytes) + 4096) + 10)

static double time_barrier(aos_team_t *t, long iters)
{
    double v[PROBE_TRIALS];
    for (int k = 0; k < PROBE_TRIALS; k++) {
        PROBE_TRY(aos_team_sync(t));
        double s = probe_now_ns();
        for (long i = 0; i < iters; i++)
            PROBE_TRY(aos_team_sync(t));
        v[k] = (probe_now_ns() - s) / (double)iters;
    }
    return probe_median(v, PROBE_TRIALS);
}

#define STAMPS 4096 /* per PE: clock readings of one series of calls */

enum collective { BROADCAST, ALLREDUCE };

/* What the model predicts: from the start until the last member returns
 * with the result, for data just written (as after a computation: the
 * broadcast's root, or every member for an all-reduce, writes its whole
 * source before each call, outside the timing). The members call at one
 * instant of the node's clock (probe_start_together); each reads the clock
 * as it returns (a broadcast's root returns when its children have
 * acknowledged) and PE 0 takes the latest return per call. The cost of one
 * clock reading is taken off. */
static double time_fresh(aos_team_t *t, enum collective what, char *dst, char *src,
                         size_t bytes, long iters, double *stamps)
{
    int me = aos_team_my_pe(t);
    if (iters > STAMPS)
        iters = STAMPS;
    double clock_ns = probe_clock_ns();
    for (long i = 0; i < iters; i++) {
        if (what == ALLREDUCE || me == 0)
            memset(src, (int)i, bytes);
        double start = probe_start_together();
        if (what == BROADCAST)
            PROBE_TRY(aos_broadcast(t, src, src, bytes, 0));
        else
            PROBE_TRY(aos_allreduce(t, dst, src, bytes / 8, AOS_TYPE_INT64, AOS_OP_SUM));
        stamps[i] = probe_now_ns() - start;
    }
    double latest = probe_latest_median(stamps, iters);
    return me == 0 ? latest - clock_ns : 0.0;
}

enum { MAX_POINTS = 16, MAX_ROUNDS = 32 };

struct point {
    const char *name;
    int kind; /* -1 barrier, else enum collective */
    size_t bytes;
};

/* A team of n PEs on one node, in one cluster. */
static struct aos__shape one_node(int n)
{
    return (struct aos__shape){n, 1, n, 1, n, 1};
}

/* The model's prediction for a team of shape sh: across nodes, with the
 * node tier the collectives take there. */
static double predict(const struct aos__model *m, const struct point *p,
                      const struct aos__shape *sh)
{
    double t;
    if (p->kind < 0)
        return aos__model_predict_barrier_shape(m, sh);
    if (p->kind == BROADCAST) {
        struct aos__bcast_plan plan;
        aos__model_plan_bcast_shape(m, sh, p->bytes, &plan);
        return plan.predicted_ns;
    }
    aos__model_plan_allreduce_shape(m, sh, p->bytes, &t);
    return t;
}

static double measure(aos_team_t *w, const struct point *p, long iters, char *a, char *b,
                      double *stamps, size_t at)
{
    a += at;
    b += at;
    if (p->kind < 0)
        return time_barrier(w, iters);
    if (p->kind == BROADCAST)
        return time_fresh(w, BROADCAST, NULL, a, p->bytes, iters, stamps);
    return time_fresh(w, ALLREDUCE, a, b, p->bytes, iters, stamps);
}

static int within(double ratio)
{
    return ratio >= 0.75 && ratio <= 1.25;
}

/* Whether point i of a round timed the machine the round measured: the
 * latencies seen while measuring the parameters (the last checked just
 * before the first point) and those checked after the points up to i lie
 * within a factor PROBE_SETTLED (probe_check_latency). A point timed across
 * a change of the machine, or whose parameters were, met a machine they do
 * not describe. */
static int settled(const double *seen, const double *after, int i)
{
    double lo = seen[0], hi = seen[1];
    for (int k = 0; k <= i; k++) {
        lo = after[k] < lo ? after[k] : lo;
        hi = after[k] > hi ? after[k] : hi;
    }
    return hi < PROBE_SETTLED * lo;
}

/* Every round's figures: point i of round r measured meas[i][r] against
 * pred[i][r]; kept[i][r] when the round was settled for it (PE 0's
 * verdict). L_seen[r]: the range of L while measuring round r's
 * parameters; L_after[r][i]: L checked right after its point i. */
struct rounds {
    int n, asked, need; /* rounds run, asked for, settled wanted per point */
    double meas[MAX_POINTS][MAX_ROUNDS], pred[MAX_POINTS][MAX_ROUNDS],
        ratio[MAX_POINTS][MAX_ROUNDS];
    double L_seen[MAX_ROUNDS][2], L_after[MAX_ROUNDS][MAX_POINTS];
    struct aos__model model[MAX_ROUNDS];
    int kept[MAX_POINTS][MAX_ROUNDS];
};

/* Rounds: each measures the parameters afresh (a shared host's latencies
 * drift within minutes, so parameters and collectives timed minutes apart
 * disagree for reasons the model cannot know), then times every collective
 * once. While the host moves our CPUs about, many points are left out
 * (settled): up to three times the rounds asked for are run until each
 * point has half of them settled.
 *
 * Each round's collectives run on a team of their own (the world's
 * members in another slot) and move their data at their own place in the
 * buffers (probe_place): the lines they signal on and copy are a draw
 * (docs/foundation.md), and the rounds take several. Within a round the
 * calls reuse their team and buffers, as a program does (another team or
 * another place for every call would time lines no call had warmed, which
 * a program's calls seldom meet). */
static void run_rounds(struct rounds *R, const struct aos__model *file, const struct point *pts,
                       int np, int npes, int quick, char *a, char *b, double *stamps)
{
    aos_team_t *w = aos_team_world(), *teams[MAX_ROUNDS];
    int max_rounds = 3 * R->asked < MAX_ROUNDS ? 3 * R->asked : MAX_ROUNDS;
    int nsettled[MAX_POINTS] = {0};
    int *more = aos_malloc(sizeof *more);
    if (more == NULL)
        exit(1);
    R->need = (R->asked + 1) / 2;
    for (int r = 0; r < max_rounds; r++) {
        PROBE_TRY(aos_team_split_strided(w, 0, 1, npes, &teams[r]));
        struct aos__model m = *file;
        probe_measure(&m, quick ? PROBE_QUICK : PROBE_ROUND, 0, R->L_seen[r]);
        aos__model_set(&m); /* the round's collectives plan with its parameters */
        for (int i = 0; i < np; i++) {
            long iters = (pts[i].kind < 0 ? (quick ? 2000 : 20000) : ITERS(pts[i].bytes, quick));
            iters = iters / R->asked > 30 ? iters / R->asked : 30;
            R->meas[i][r] = measure(teams[r], &pts[i], iters, a, b, stamps,
                                    probe_place(r, pts[i].bytes, PROBE_BIG));
            R->pred[i][r] = predict(&m, &pts[i], &teams[r]->shape);
            R->ratio[i][r] = R->meas[i][r] / R->pred[i][r];
            R->L_after[r][i] = probe_latency(PROBE_CHECK_ITERS);
        }
        R->model[r] = m;
        R->n = r + 1;
        *more = R->n < R->asked;
        for (int i = 0; i < np; i++) {
            R->kept[i][r] = settled(R->L_seen[r], R->L_after[r], i);
            nsettled[i] += R->kept[i][r];
            *more |= nsettled[i] < R->need;
        }
        PROBE_TRY(aos_broadcast(w, more, more, sizeof *more, 0)); /* PE 0 decides */
        if (!*more)
            break;
    }
    aos__model_set(file);
    for (int r = R->n - 1; r >= 0; r--)
        PROBE_TRY(aos_team_destroy(teams[r]));
    aos_free(more);
}

/* Each round's checks and count within 25%; with `detail`, its parameters
 * and every point. A point's figure in a round whose machine changed under
 * it (settled) is shown but left out of its median. */
static void print_rounds(const struct rounds *R, const struct point *pts, int np, int detail)
{
    printf("\n%d rounds (%d asked for, more while a point had fewer than %d settled), each "
           "measuring the parameters, then every collective once, with L checked between "
           "steps:\n",
           R->n, R->asked, R->need);
    printf("%5s %17s %17s %9s %9s\n", "round", "L measuring", "L after points", "within",
           "left out");
    for (int r = 0; r < R->n; r++) {
        double lo = R->L_after[r][0], hi = R->L_after[r][0];
        int ok = 0, out = 0;
        for (int i = 0; i < np; i++) {
            lo = R->L_after[r][i] < lo ? R->L_after[r][i] : lo;
            hi = R->L_after[r][i] > hi ? R->L_after[r][i] : hi;
            ok += R->kept[i][r] && within(R->ratio[i][r]);
            out += !R->kept[i][r];
        }
        printf("%5d %8.1f-%-8.1f %8.1f-%-8.1f %5d/%-3d %9d\n", r + 1, R->L_seen[r][0],
               R->L_seen[r][1], lo, hi, ok, np - out, out);
    }
    for (int r = 0; detail && r < R->n; r++) {
        const struct aos__model *rm = &R->model[r];
        printf("\nround %d: L %.1f (%.1f-%.1f while measuring), o %.1f (together %.1f), "
               "fresh line %.1f, per byte fresh at 4/32/256 KiB: %.3f/%.3f/%.3f (synced "
               "%.3f/%.3f/%.3f, folded %.3f/%.3f/%.3f), a slice's fold at 4/32/256 KiB: "
               "%.3f/%.3f/%.3f\n",
               r + 1, rm->L, R->L_seen[r][0], R->L_seen[r][1], rm->o, rm->o_together,
               rm->line_fresh, rm->G_dirty_small, rm->G_dirty, rm->G_dirty_big,
               rm->G_synced_small, rm->G_synced, rm->G_synced_big, rm->G_fold_small, rm->G_fold,
               rm->G_fold_big, rm->G_slice_fold_small, rm->G_slice_fold, rm->G_slice_fold_big);
        printf("  %-10s %9s %12s %12s %8s %8s\n", "collective", "bytes", "predicted us",
               "measured us", "meas/pred", "L after");
        for (int i = 0; i < np; i++)
            printf("  %-10s %9zu %12.3f %12.3f %8.2f %8.1f%s\n", pts[i].name, pts[i].bytes,
                   R->pred[i][r] / 1e3, R->meas[i][r] / 1e3, R->ratio[i][r], R->L_after[r][i],
                   R->kept[i][r] ? "" : "  left out");
    }
}

/* A point's figure: the median over its settled rounds (all of them if
 * none settled) of measured / predicted from that round's parameters;
 * beside it, the median measurement against the prediction from `file`
 * (the model aos-probe writes, measured before the rounds). */
static void print_medians(const struct rounds *R, const struct aos__model *file,
                          const struct point *pts, int np, int npes)
{
    const struct aos__shape *sh = &aos_team_world()->shape;
    printf("\nmedians over each point's rounds (%d PEs on %d node%s, at most %d on one%s):\n",
           npes, sh->nnodes, sh->nnodes > 1 ? "s" : "", sh->node_max,
           sh->nnodes > 1 ? "; leaders over the network" : "");
    printf("%-10s %5s %9s %12s %12s %8s %8s %6s %8s\n", "collective", "PEs", "bytes",
           "predicted us", "measured us", "meas/pred", "spread", "rounds", "vs file");
    int ok = 0, ok_file = 0;
    for (int i = 0; i < np; i++) {
        double q_r[MAX_ROUNDS], m_r[MAX_ROUNDS], p_r[MAX_ROUNDS];
        int n = 0;
        for (int pass = 0; pass < 2 && n == 0; pass++) /* none settled: all of them */
            for (int r = 0; r < R->n; r++)
                if (pass == 1 || R->kept[i][r]) {
                    q_r[n] = R->ratio[i][r];
                    m_r[n] = R->meas[i][r];
                    p_r[n++] = R->pred[i][r];
                }
        double lo = q_r[0], hi = q_r[0];
        for (int j = 1; j < n; j++) {
            lo = q_r[j] < lo ? q_r[j] : lo;
            hi = q_r[j] > hi ? q_r[j] : hi;
        }
        /* the copies are scratch: the medians may sort them */
        double q = probe_median(q_r, n), mm = probe_median(m_r, n);
        double qf = mm / predict(file, &pts[i], &aos_team_world()->shape);
        ok += within(q);
        ok_file += within(qf);
        printf("%-10s %5d %9zu %12.2f %12.2f %8.2f %3.2f-%3.2f %6d %8.2f\n", pts[i].name, npes,
               pts[i].bytes, probe_median(p_r, n) / 1e3, mm / 1e3, q, lo, hi, n, qf);
    }
    printf("within 25%%: %d of %d (each round's parameters), %d of %d (the file's)\n", ok, np,
           ok_file, np);
}

/* The plan the model makes for point p over n PEs, in words. */
static void describe_plan(const struct aos__model *m, const struct point *p, int n, char *out,
                          size_t len)
{
    out[0] = '\0';
    if (p->kind == ALLREDUCE) {
        double t;
        snprintf(out, len, "%s",
                 aos__model_plan_allreduce(m, n, p->bytes, &t) == AOS__ALLREDUCE_EXCHANGE
                     ? "exchange"
                     : "slices");
    } else if (p->kind == BROADCAST) {
        struct aos__bcast_plan plan;
        aos__model_plan_bcast(m, n, 1, n, p->bytes, &plan);
        int at = snprintf(out, len, "fan-outs");
        for (int l = 0; plan.inner_fanout[l] != 0 && at < (int)len; l++)
            at += snprintf(out + at, len - (size_t)at, "%s%d", l ? "," : " ",
                           plan.inner_fanout[l]);
        int kib = plan.chunk >= 1024;
        if (at < (int)len)
            snprintf(out + at, len - (size_t)at, ", chunk %zu %s%s",
                     kib ? plan.chunk / 1024 : plan.chunk, kib ? "KiB" : "B",
                     plan.help ? ", helped" : "");
    }
}

static void print_predictions_only(const struct aos__model *file)
{
    printf("\npredictions only (one cluster of n PEs, the file's parameters):\n");
    printf("%-10s %5s %9s %12s  %s\n", "collective", "PEs", "bytes", "predicted us", "plan");
    static const int sizes[] = {16, 32, 64, 128, 256};
    static const struct point only[] = {{"barrier", -1, 0},
                                        {"broadcast", BROADCAST, 8},
                                        {"broadcast", BROADCAST, 1u << 20},
                                        {"allreduce", ALLREDUCE, 8},
                                        {"allreduce", ALLREDUCE, 512},
                                        {"allreduce", ALLREDUCE, 1u << 20}};
    enum { NONLY = sizeof only / sizeof only[0] };
    for (int i = 0; i < 5; i++)
        for (int j = 0; j < NONLY; j++) {
            char plan[96];
            describe_plan(file, &only[j], sizes[i], plan, sizeof plan);
            struct aos__shape sh = one_node(sizes[i]);
            printf("%-10s %5d %9zu %12.2f  %s\n", only[j].name, sizes[i], only[j].bytes,
                   predict(file, &only[j], &sh) / 1e3, plan);
        }
}

void probe_predict(const struct aos__model *file, int me, int npes, int quick, int rounds,
                   int detail)
{
    char *a = aos_malloc(PROBE_BIG), *b = aos_malloc(PROBE_BIG);
    double *stamps = aos_malloc(STAMPS * sizeof *stamps);
    if (a == NULL || b == NULL || stamps == NULL)
        exit(1);
    memset(a, 1, PROBE_BIG);
    memset(b, 2, PROBE_BIG);
    struct point pts[MAX_POINTS];
    int np = 0;
    pts[np++] = (struct point){"barrier", -1, 0};
    for (size_t bytes = 8; bytes <= PROBE_BIG; bytes *= quick ? 64 : 8)
        pts[np++] = (struct point){"broadcast", BROADCAST, bytes};
    for (size_t bytes = 8; bytes <= (1u << 20); bytes *= quick ? 64 : 8)
        pts[np++] = (struct point){"allreduce", ALLREDUCE, bytes};
    static struct rounds R;
    R.asked = rounds < MAX_ROUNDS ? rounds : MAX_ROUNDS;
    run_rounds(&R, file, pts, np, npes, quick, a, b, stamps);
    if (me == 0) {
        print_rounds(&R, pts, np, detail);
        print_medians(&R, file, pts, np, npes);
        print_predictions_only(file);
    }
    aos_free(stamps);
    aos_free(b);
    aos_free(a);
}
