/* The PMIx bootstrap backend of a build without libpmix: a process a PMIx
 * launcher started is told why it cannot run, rather than running as one
 * of many unrelated single PEs. */
#include <stdio.h>

#include "core/bootstrap.h"

static int pmix_none_start(struct aos__runtime *rt)
{
    (void)rt;
    fprintf(stderr, "aos: this process was started by a PMIx launcher (mpirun, srun "
                    "--mpi=pmix), but this aos was built without PMIx support: install "
                    "libpmix-dev and rebuild aos, or start the program with aosrun\n");
    return AOS_ERR_BOOTSTRAP;
}

/* Never reached: start fails. */
static int pmix_none_exchange(struct aos__runtime *rt, int *peer_fds)
{
    (void)rt;
    (void)peer_fds;
    return AOS_ERR_BOOTSTRAP;
}

static int pmix_none_allgather(struct aos__runtime *rt, const void *mine, size_t len,
                               char **all, size_t **offs)
{
    (void)rt;
    (void)mine;
    (void)len;
    (void)all;
    (void)offs;
    return AOS_ERR_BOOTSTRAP;
}

static int pmix_none_barrier(struct aos__runtime *rt)
{
    (void)rt;
    return AOS_ERR_BOOTSTRAP;
}

static void pmix_none_global_exit(struct aos__runtime *rt, int status)
{
    (void)rt;
    (void)status;
}

static void pmix_none_stop(struct aos__runtime *rt, int finalized)
{
    (void)rt;
    (void)finalized;
}

const struct aos__boot aos__boot_pmix = {
    .name = "pmix",
    .start = pmix_none_start,
    .exchange = pmix_none_exchange,
    .allgather = pmix_none_allgather,
    .barrier = pmix_none_barrier,
    .global_exit = pmix_none_global_exit,
    .stops_on_loss = aos__boot_stops_always, /* never started: no peer to lose */
    .stops_on_exit = 1,
    .stop = pmix_none_stop,
};
