/* aos-probe's parts: the command (main.c), measuring (measure.c,
 * contention.c) and predicting (predict.c). */
#ifndef AOS_PROBE_H
#define AOS_PROBE_H

#include <stdio.h>
#include <stdlib.h>

#include "aos.h"
#include "coll/model.h"

#define PROBE_TRIALS 7
#define PROBE_SAMPLES 448 /* copies timed one by one per size (at full effort) */
#define PROBE_LINE 64
#define PROBE_LEAD_NS 20000.0 /* per PE: how far ahead PEs agree to start together */
#define PROBE_CHUNK (256u << 10)
/* Placements a measurement walks over: a line's latency between two cores
 * may depend on its address, so one word or one buffer offset gives a draw
 * where the model wants the mean (probe_place). */
#define PROBE_PLACES 61
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
/* The offset of the i-th placement of `bytes` in a buffer of `span`: a
 * page apart from the previous, PROBE_PLACES of them (fewer when `span`
 * leaves less room). */
size_t probe_place(long i, size_t bytes, size_t span);
double probe_median(double *v, int n);
/* The cost of one clock reading (the least of a few). */
double probe_clock_ns(void);
/* The symmetric buffers the measurements use (collective calls). */
void probe_setup(void);
void probe_teardown(void);
/* Collective: returns when every PE does, at one instant of the node's
 * clock (returned). */
double probe_start_together(void);
/* Collective (all PEs): elapsed[i] (symmetric) is each PE's time for sample i from a
 * common start; PE 0 gets the median over samples of the latest PE's,
 * everybody else 0. */
double probe_latest_median(double *elapsed, long samples);
/* Collective: L, the mean over PROBE_PLACES pairs of lines of half a
 * round trip between PE 0 and PE 1, `iters` round trips per trial (PE 0's
 * figure is the one to use). */
double probe_latency(long iters);
/* Collective when L_seen is not NULL: a check of L (PROBE_CHECK_ITERS
 * round trips) widening the range L_seen[0]-L_seen[1]. A host may move our
 * two virtual CPUs onto one core, or off it, for seconds at a time, which
 * changes L severalfold: figures timed across such a move describe
 * neither machine. */
#define PROBE_CHECK_ITERS 500
#define PROBE_SETTLED 1.5 /* most over least of the checks: the machine changed */
void probe_check_latency(double *L_seen);
/* Measures every parameter of the model but the contention curve, which
 * only a nonzero `contention` measures (m's c and b are kept otherwise);
 * a collective call: every PE ends with PE 0's figures. With L_seen, L is
 * also checked between the steps (probe_check_latency): L_seen gets the least and
 * the most of m->L and the checks. */
enum { PROBE_FULL, PROBE_ROUND, PROBE_QUICK };
void probe_measure(struct aos__model *m, int effort, int contention, double *L_seen);
/* The first PE on another node than PE 0, or -1 (one node). */
int probe_net_partner(void);
/* Collective: the model's network tier (net_*) between PE 0 and that PE,
 * with the transport calls the collectives make; returns the partner, or
 * 0 without measuring on one node. */
int probe_measure_net(struct aos__model *m, int effort);
/* T(n) = c n + b: n threads of this process updating one cache line. */
void probe_contention(int quick, double *c, double *b);
/* Writes the model file (creating its directory); 0 on success. */
int probe_write(const char *path, const struct aos__model *m, int npes);
/* Times the collectives on the world team and prints them beside the
 * model's predictions, in rounds that measure the parameters afresh (`m`
 * gives the contention curve, and the file's predictions for comparison);
 * PE 0 prints, with every round's parameters and figures when `detail`. */
void probe_predict(const struct aos__model *m, int me, int npes, int quick, int rounds,
                   int detail);

#endif
