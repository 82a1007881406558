/* aos-probe: measures this machine's parameters for the model collectives
 * plan with (src/coll/model.h) and writes the model file; with --predict it
 * also times barrier, broadcast and all-reduce and prints them beside the
 * model's predictions (in N rounds, 15 by default, each measuring the
 * parameters afresh; up to 3N while the machine changes under them), then
 * the predictions for 16-256 PEs. A measurement the machine changed under
 * is made again (measure_settled).
 *
 *   aosrun -n 2 aos-probe [--predict [--rounds N] [--detail]] [--quick] [--output FILE]
 *
 * Needs 2 PEs or more on PE 0's node (PE 0 and 1 do the point-to-point
 * measurements). When the job spans nodes it also measures the network
 * tier between PE 0 and the first PE on another node (net_* in the file),
 * and --predict times the collectives over the whole job, which then run
 * with their node tier:
 *
 *   AOS_NODE_SIZE=2 UCX_TLS=tcp aosrun -n 4 aos-probe --predict   (pseudo-nodes) */
#include <string.h>

#include "core/runtime.h"
#include "probe.h"

#define PROBE_ATTEMPTS 5

/* Measures the model until the machine holds still for a whole measurement
 * (the latencies checked along the way within PROBE_SETTLED of each other),
 * at most PROBE_ATTEMPTS times: a file that mixes two machines describes
 * neither, and the library plans with it for as long as it stands. Keeps
 * the steadiest measurement in *m and its latencies in L_seen; returns the
 * number made. A collective call: every PE follows PE 0's verdict. */
static int measure_settled(struct aos__model *m, int effort, double *L_seen)
{
    double *seen = aos_malloc(2 * sizeof *seen); /* symmetric: PE 0's latencies */
    if (seen == NULL)
        exit(1);
    double best = 0.0;
    int n = 0;
    do {
        struct aos__model tried;
        aos__model_defaults(&tried);
        probe_measure(&tried, effort, 1, seen);
        /* Every PE keeps the same measurement (they plan alike): PE 0's. */
        PROBE_TRY(aos_broadcast(aos_team_world(), seen, seen, 2 * sizeof *seen, 0));
        double spread = seen[1] / seen[0];
        if (n++ == 0 || spread < best) {
            best = spread;
            *m = tried;
            L_seen[0] = seen[0], L_seen[1] = seen[1];
        }
    } while (best >= PROBE_SETTLED && n < PROBE_ATTEMPTS);
    aos_free(seen);
    return n;
}

int main(int argc, char **argv)
{
    int predict = 0, quick = 0, rounds = 0, detail = 0;
    const char *output = NULL;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--predict") == 0)
            predict = 1;
        else if (strcmp(argv[i], "--detail") == 0)
            detail = 1;
        else if (strcmp(argv[i], "--quick") == 0)
            quick = 1;
        else if (strcmp(argv[i], "--rounds") == 0 && i + 1 < argc && atoi(argv[i + 1]) > 0)
            rounds = atoi(argv[++i]);
        else if (strcmp(argv[i], "--output") == 0 && i + 1 < argc)
            output = argv[++i];
        else {
            fprintf(stderr, "usage: aosrun -n 2 aos-probe [--predict [--rounds N] [--detail]] "
                            "[--quick] [--output FILE]\n"
                            "  (PE 0 and PE 1 on one node; a job over several nodes also "
                            "measures the network tier)\n");
            return 2;
        }
    }
    aos__model_no_file = 1; /* the file may be missing or outdated: we write it */
    PROBE_TRY(aos_init());
    int me = aos_my_pe(), npes = aos_n_pes();
    if (npes < 2) {
        fprintf(stderr, "aos-probe: run it on 2 PEs or more (aosrun -n 2 aos-probe)\n");
        aos_finalize();
        return 2;
    }
    if (aos__rt.peers[1].node != aos__rt.peers[0].node) {
        fprintf(stderr, "aos-probe: PE 0 and PE 1 must share a node (the machine's own "
                        "parameters are measured between them): start 2 or more PEs per node\n");
        aos_finalize();
        return 2;
    }
    probe_setup();
    struct aos__model m;
    double L_seen[2] = {0.0, 0.0};
    int attempts = measure_settled(&m, quick ? PROBE_QUICK : PROBE_FULL, L_seen);

    int rc = 0;
    if (me == 0) {
        char path[4096];
        if (output == NULL && aos__model_path(path, sizeof path) == 0)
            output = path;
        if (L_seen[1] >= PROBE_SETTLED * L_seen[0])
            fprintf(stderr,
                    "aos-probe: in each of %d measurements the latency moved (here between "
                    "%.0f and %.0f ns in the steadiest): the machine changed under them (here: "
                    "the host moving our CPUs onto one core or off it), so the figures may mix "
                    "two machines; run it again\n",
                    attempts, L_seen[0], L_seen[1]);
        else if (attempts > 1)
            printf("the latency moved during %d measurement%s; the machine held still for "
                   "the next\n", attempts - 1, attempts > 2 ? "s" : "");
        printf("model of this machine (ns):\n");
#define PRINT_ROW(field, key, def, meaning) printf("  %-20s %10.4g   %s\n", key, m.field, meaning);
        AOS__MODEL_TABLE(PRINT_ROW)
        if (m.net_measured) {
            printf("network tier (PE 0 and PE %d, on another node):\n", probe_net_partner());
            AOS__MODEL_NET_TABLE(PRINT_ROW)
        }
#undef PRINT_ROW
        if (output != NULL) {
            rc = probe_write(output, &m, npes);
            printf("%s %s\n", rc == 0 ? "written to" : "could not write", output);
        }
    }
    if (predict)
        probe_predict(&m, me, npes, quick, rounds > 0 ? rounds : quick ? 2 : 15, detail);
    probe_teardown();
    PROBE_TRY(aos_finalize());
    return rc;
}
