/* aos-probe: measures this machine's parameters for the model collectives
 * plan with (src/coll/model.h) and writes the model file; with --predict it
 * also times barrier, broadcast and all-reduce and prints them beside the
 * model's predictions (in N rounds, 15 by default, each measuring the
 * parameters afresh; up to 3N while the machine changes under them), then
 * the predictions for 16-256 PEs.
 *
 *   aosrun -n 2 aos-probe [--predict [--rounds N] [--detail]] [--quick] [--output FILE]
 *
 * Needs 2 PEs or more (PE 0 and 1 do the point-to-point measurements). */
#include <string.h>

#include "probe.h"

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
                            "[--quick] [--output FILE]\n");
            return 2;
        }
    }
    PROBE_TRY(aos_init());
    int me = aos_my_pe(), npes = aos_n_pes();
    if (npes < 2) {
        fprintf(stderr, "aos-probe: run it on 2 PEs or more (aosrun -n 2 aos-probe)\n");
        aos_finalize();
        return 2;
    }
    probe_setup();
    struct aos__model m;
    aos__model_defaults(&m);
    double L_seen[2];
    probe_measure(&m, quick ? PROBE_QUICK : PROBE_FULL, 1, L_seen);

    int rc = 0;
    if (me == 0) {
        char path[4096];
        if (output == NULL && aos__model_path(path, sizeof path) == 0)
            output = path;
        if (L_seen[1] >= PROBE_SETTLED * L_seen[0])
            fprintf(stderr,
                    "aos-probe: the latency moved between %.0f and %.0f ns while measuring: the "
                    "machine changed (here: the host moving our CPUs onto one core or off it), "
                    "so the figures may mix two machines; run it again\n",
                    L_seen[0], L_seen[1]);
        printf("model of this machine (ns):\n");
#define PRINT_ROW(field, key, def, meaning) printf("  %-20s %10.4g   %s\n", key, m.field, meaning);
        AOS__MODEL_TABLE(PRINT_ROW)
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
