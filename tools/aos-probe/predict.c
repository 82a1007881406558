/* --predict: the model's predictions beside measurements on this machine,
 * then predictions alone for team sizes this machine cannot run. */
#include <errno.h>
#include <string.h>
#include <sys/stat.h>

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

/* What the model predicts: from the first call until the last member
 * returns with the result, for data just written (as after a computation:
 * the broadcast's root, or every member for an all-reduce, writes its whole
 * source before each call, outside the timing). Every PE runs on one node's
 * clock: PE 0 reads it as it calls, every PE as it returns (a broadcast's
 * root returns when its children have read, so the leaves decide), and PE 0
 * takes the latest return per call; syncs between calls keep them apart.
 * The cost of one clock reading is taken off. */
static double time_fresh(aos_team_t *t, enum collective what, char *dst, char *src,
                         size_t bytes, long iters, double *stamps)
{
    int me = aos_team_my_pe(t), n = aos_team_n_pes(t);
    if (iters > STAMPS)
        iters = STAMPS;
    double clock_ns = probe_now_ns();
    clock_ns = probe_now_ns() - clock_ns;
    double *start = malloc((size_t)iters * sizeof *start);
    if (start == NULL)
        exit(1);
    for (long i = 0; i < iters; i++) {
        if (what == ALLREDUCE || me == 0)
            memset(src, (int)i, bytes);
        PROBE_TRY(aos_team_sync(t));
        start[i] = probe_now_ns();
        if (what == BROADCAST)
            PROBE_TRY(aos_broadcast(t, src, src, bytes, 0));
        else
            PROBE_TRY(aos_allreduce(t, dst, src, bytes / 8, AOS_TYPE_INT64, AOS_OP_SUM));
        stamps[i] = probe_now_ns();
    }
    PROBE_TRY(aos_team_sync(t));
    double result = 0.0;
    if (me == 0) {
        double *theirs = malloc((size_t)iters * sizeof *theirs);
        if (theirs == NULL)
            exit(1);
        for (int pe = 1; pe < n; pe++) {
            PROBE_TRY(aos_getmem(pe, theirs, stamps, (size_t)iters * sizeof *theirs, NULL));
            for (long i = 0; i < iters; i++)
                if (theirs[i] > stamps[i])
                    stamps[i] = theirs[i];
        }
        for (long i = 0; i < iters; i++)
            theirs[i] = stamps[i] - start[i];
        result = probe_median(theirs, (int)iters) - clock_ns;
        free(theirs);
    }
    free(start);
    PROBE_TRY(aos_team_sync(t)); /* PE 0 has read every stamp */
    return result;
}

static void row(int me, const char *what, int n, size_t bytes, double predicted, double measured)
{
    if (me != 0)
        return;
    if (measured < 0)
        printf("%-10s %5d %9zu %12.2f %12s %8s\n", what, n, bytes, predicted / 1e3, "-", "-");
    else
        printf("%-10s %5d %9zu %12.2f %12.2f %8.2f\n", what, n, bytes, predicted / 1e3,
               measured / 1e3, measured / predicted);
}

static double bcast_prediction(const struct aos__model *m, int n, size_t bytes)
{
    struct aos__bcast_plan plan;
    aos__model_plan_bcast(m, n, 1, n, bytes, &plan);
    return plan.predicted_ns;
}

void probe_predict(const struct aos__model *m, int me, int npes, int quick)
{
    aos_team_t *w = aos_team_world();
    char *a = aos_malloc(PROBE_BIG), *b = aos_malloc(PROBE_BIG);
    double *stamps = aos_malloc(STAMPS * sizeof *stamps);
    if (a == NULL || b == NULL || stamps == NULL)
        exit(1);
    memset(a, 1, PROBE_BIG);
    memset(b, 2, PROBE_BIG);
    if (me == 0)
        printf("\n%-10s %5s %9s %12s %12s %8s\n", "collective", "PEs", "bytes", "predicted us",
               "measured us", "meas/pred");
    double sync_ns = time_barrier(w, quick ? 2000 : 20000);
    row(me, "barrier", npes, 0, aos__model_predict_barrier(m, npes), sync_ns);
    for (size_t bytes = 8; bytes <= PROBE_BIG; bytes *= quick ? 64 : 8) {
        double t = time_fresh(w, BROADCAST, NULL, a, bytes, ITERS(bytes, quick), stamps);
        row(me, "broadcast", npes, bytes, bcast_prediction(m, npes, bytes), t);
    }
    for (size_t bytes = 8; bytes <= (1u << 20); bytes *= quick ? 64 : 8) {
        double t = time_fresh(w, ALLREDUCE, a, b, bytes, ITERS(bytes, quick), stamps);
        row(me, "allreduce", npes, bytes, aos__model_predict_allreduce(m, npes, bytes), t);
    }
    if (me == 0)
        printf("\npredictions only (one cluster of n PEs, this machine's parameters):\n");
    static const int sizes[] = {16, 32, 64, 128, 256};
    for (int i = 0; i < 5; i++) {
        int n = sizes[i];
        row(me, "barrier", n, 0, aos__model_predict_barrier(m, n), -1);
        row(me, "broadcast", n, 8, bcast_prediction(m, n, 8), -1);
        row(me, "broadcast", n, 1u << 20, bcast_prediction(m, n, 1u << 20), -1);
        row(me, "allreduce", n, 8, aos__model_predict_allreduce(m, n, 8), -1);
        row(me, "allreduce", n, 1u << 20, aos__model_predict_allreduce(m, n, 1u << 20), -1);
    }
    aos_free(stamps);
    aos_free(b);
    aos_free(a);
}
