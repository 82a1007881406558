/* aos-probe's parts: measuring (main.c, contention.c) and predicting
 * (predict.c). */
#ifndef AOS_PROBE_H
#define AOS_PROBE_H

#include <stdio.h>
#include <stdlib.h>

#include "aos.h"
#include "coll/model.h"

#define PROBE_TRIALS 7
#define PROBE_CHUNK (256u << 10)
#define PROBE_BIG (4u << 20)

#define PROBE_TRY(call)                                                                    \
    do {                                                                                   \
        int probe_rc_ = (call);                                                            \
        if (probe_rc_ != AOS_OK) {                                                         \
            fprintf(stderr, "aos-probe: %s: %s\n", #call, aos_strerror(probe_rc_));       \
            exit(1);                                                                       \
        }                                                                                  \
    } while (0)

double probe_now_ns(void);
double probe_median(double *v, int n);
/* T(n) = c n + b: n threads of this process updating one cache line. */
void probe_contention(int quick, double *c, double *b);
/* Writes the model file (creating its directory); 0 on success. */
int probe_write(const char *path, const struct aos__model *m, int npes);
/* Times the collectives on the world team and prints them beside the
 * model's predictions (PE 0 prints). */
void probe_predict(const struct aos__model *m, int me, int npes, int quick);

#endif
