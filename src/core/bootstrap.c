/* Chooses the bootstrap backend and holds what the backends share. */
#include "core/bootstrap.h"

#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

/* A PMIx server (mpirun, srun --mpi=pmix, prterun) gives every process it
 * starts its namespace and rank. */
static int pmix_started(void)
{
    return getenv("PMIX_NAMESPACE") != NULL && getenv("PMIX_RANK") != NULL;
}

int aos__boot_stops_always(void)
{
    return 1;
}

int aos__bootstrap_start(struct aos__runtime *rt)
{
    const struct aos__boot *b = &aos__boot_single;
    if (getenv(AOS__ENV_BOOT_FD) != NULL)
        b = &aos__boot_aosrun;
    else if (pmix_started())
        b = &aos__boot_pmix;
    rt->host = (struct aos__host_info){
        .hosts = 1, .host = 0, .local_rank = 0, .local_size = 1, .machine_size = 1};
    int rc = b->start(rt);
    if (rc != AOS_OK)
        return rc;
    rt->boot = b;
    return AOS_OK;
}

int aos__bootstrap_exchange(struct aos__runtime *rt, int *peer_fds)
{
    return rt->boot->exchange(rt, peer_fds);
}

int aos__bootstrap_allgather(struct aos__runtime *rt, const void *mine, size_t len,
                             char **all, size_t **offs)
{
    if (len > AOS__BOOT_BLOB_MAX)
        return AOS_ERR_SIZE;
    return rt->boot->allgather(rt, mine, len, all, offs);
}

int aos__bootstrap_barrier(struct aos__runtime *rt)
{
    return rt->boot->barrier(rt);
}

void aos__bootstrap_global_exit(struct aos__runtime *rt, int status)
{
    if (rt->boot != NULL)
        rt->boot->global_exit(rt, status);
}

void aos__bootstrap_stop(struct aos__runtime *rt, int finalized)
{
    if (rt->boot != NULL)
        rt->boot->stop(rt, finalized);
    rt->boot = NULL;
}

uint64_t aos__boot_machine_id(void)
{
    char id[64];
    FILE *f = fopen("/proc/sys/kernel/random/boot_id", "r");
    if (f == NULL)
        return 0;
    size_t n = fread(id, 1, sizeof id, f);
    fclose(f);
    uint64_t h = 0xcbf29ce484222325ull; /* FNV-1a */
    for (size_t i = 0; i < n && id[i] != '\n'; i++)
        h = (h ^ (unsigned char)id[i]) * 0x100000001b3ull;
    return n == 0 || h == 0 ? 0 : h;
}

struct aos__boot_hello aos__boot_my_hello(const struct aos__runtime *rt)
{
    return (struct aos__boot_hello){.magic = AOS__BOOT_MAGIC,
                                    .rank = (uint32_t)rt->me,
                                    .pid = (uint32_t)getpid(),
                                    .arena_size = rt->arena_size,
                                    .static_len = rt->static_len,
                                    .heap_off = rt->heap_off,
                                    .heap_size = rt->heap_size,
                                    .machine = rt->machine};
}

int aos__boot_check_layout(const struct aos__runtime *rt, int pe,
                           const struct aos__boot_hello *h)
{
    if (h->arena_size == rt->arena_size && h->static_len == rt->static_len &&
        h->heap_off == rt->heap_off && h->heap_size == rt->heap_size)
        return AOS_OK;
    fprintf(stderr,
            "aos: PE %d and PE %d disagree on the memory layout (different "
            "programs or AOS_HEAP_SIZE/AOS_SEGMENT_SPACE values)\n",
            rt->me, pe);
    return AOS_ERR_BOOTSTRAP;
}

void aos__boot_place(struct aos__runtime *rt, const int *host)
{
    int hosts = 0, local_rank = 0, local_size = 0, same_machine = 0;
    uint64_t machine = rt->peers[rt->me].machine;
    for (int pe = 0; pe < rt->npes; pe++) {
        if (host[pe] + 1 > hosts)
            hosts = host[pe] + 1;
        if (host[pe] == host[rt->me]) {
            local_rank += pe < rt->me;
            local_size++;
        }
        same_machine += machine != 0 && rt->peers[pe].machine == machine;
        /* AOS_NODE_SIZE makes pseudo-nodes of consecutive PEs: they share no
         * memory, so every pair across them takes the network path. A
         * pseudo-node never spans two hosts. */
        rt->peers[pe].host = host[pe];
        rt->peers[pe].node = rt->cfg.node_size != 0
                                 ? host[pe] * rt->npes + (int)((uint64_t)pe / rt->cfg.node_size)
                                 : host[pe];
    }
    rt->host = (struct aos__host_info){
        .hosts = hosts,
        .host = host[rt->me],
        .local_rank = local_rank,
        .local_size = local_size,
        .machine_size = same_machine > local_size ? same_machine : local_size};
}
