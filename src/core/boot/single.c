/* The bootstrap backend of a process no launcher started: PE 0 of 1. */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/bootstrap.h"

static int single_start(struct aos__runtime *rt)
{
    rt->me = 0;
    rt->npes = 1;
    return AOS_OK;
}

static int single_exchange(struct aos__runtime *rt, int *peer_fds)
{
    peer_fds[0] = -1;
    rt->peers[0].pid = getpid();
    rt->peers[0].cluster = 0;
    int host = 0;
    aos__boot_place(rt, &host);
    return AOS_OK;
}

static int single_allgather(struct aos__runtime *rt, const void *mine, size_t len, char **all,
                            size_t **offs)
{
    (void)rt;
    size_t *o = calloc(2, sizeof *o);
    char *buf = malloc(len + 1);
    if (o == NULL || buf == NULL) {
        free(buf);
        free(o);
        return AOS_ERR_NO_MEMORY;
    }
    if (len > 0)
        memcpy(buf, mine, len);
    o[1] = len;
    *all = buf;
    *offs = o;
    return AOS_OK;
}

static int single_barrier(struct aos__runtime *rt)
{
    (void)rt;
    return AOS_OK;
}

static void single_global_exit(struct aos__runtime *rt, int status)
{
    (void)rt;
    (void)status;
}

static void single_stop(struct aos__runtime *rt, int finalized)
{
    (void)rt;
    (void)finalized;
}

const struct aos__boot aos__boot_single = {
    .name = "single",
    .start = single_start,
    .exchange = single_exchange,
    .allgather = single_allgather,
    .barrier = single_barrier,
    .global_exit = single_global_exit,
    .stops_on_loss = aos__boot_stops_always, /* there is no peer to lose */
    .stops_on_exit = 1,
    .stop = single_stop,
};
