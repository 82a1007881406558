/* aos_init / aos_finalize and the queries about PEs. */
#include "core/runtime.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "arch/atomics.h"
#include "arch/copy.h"
#include "coll/team.h"
#include "core/bootstrap.h"
#include "core/peer_loss.h"
#include "mem/memory.h"
#include "core/progress_thread.h"
#include "core/wait.h"
#include "ipc/ipc.h"
#include "queue/notify_lanes.h"
#include "queue/queue.h"
#include "rpc/rpc.h"

struct aos__runtime aos__rt = {.me = -1, .npes = -1, .arena_fd = -1};

#define AOS__STR2(x) #x
#define AOS__STR(x) AOS__STR2(x)

const char *aos_version_string(void)
{
    return AOS__STR(AOS_VERSION_MAJOR) "." AOS__STR(AOS_VERSION_MINOR) "." AOS__STR(
        AOS_VERSION_PATCH);
}

void aos__debug(const char *fmt, ...)
{
    if (!aos__rt.cfg.debug)
        return;
    char line[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    fprintf(stderr, "aos[%d]: %s\n", aos__rt.me, line);
}

static uint64_t align_up(uint64_t v, uint64_t a)
{
    return (v + a - 1) & ~(a - 1);
}

/* Places header, static data, heap and segment space in the arena. */
static void plan_layout(struct aos__runtime *rt, uint64_t static_len)
{
    const uint64_t big = 2u << 20; /* keep regions huge-page aligned */
    rt->coll_off = AOS__HEADER_SIZE;
    rt->coll_size = align_up(AOS__TEAM_SLOTS * aos__slot_size(rt->npes), rt->page_size);
    rt->notify_off = rt->coll_off + rt->coll_size;
    rt->notify_size = align_up(aos__notify_region_size(rt->npes), rt->page_size);
    rt->heap_size = align_up(rt->cfg.heap_size, big);
    rt->segspace_size = align_up(rt->cfg.segment_space, big);
    uint64_t granules = (rt->heap_size + rt->segspace_size + AOS__KEY_GRANULE - 1) /
                        AOS__KEY_GRANULE;
    rt->keys_off = rt->notify_off + rt->notify_size;
    rt->keys_size = align_up((1 + granules) * AOS__KEY_ENTRY_SIZE, rt->page_size);
    rt->static_off = rt->keys_off + rt->keys_size;
    rt->static_len = static_len;
    rt->heap_off = align_up(rt->static_off + static_len, big);
    rt->segspace_off = rt->heap_off + rt->heap_size;
    rt->arena_size = rt->segspace_off + rt->segspace_size;
}

/* With more PEs than CPUs on the node, a spinning waiter takes the CPU from
 * the PE it waits for: spin briefly, then yield, then sleep. Yielding a while
 * is what pays here: a yield hands the CPU to a runnable PE at once, where a
 * sleep costs a kernel wake per message, far more than the yields for
 * exchanges of small messages (ping-pongs, stencils): so a short spin and
 * many yields. The PEs counted are those of my machine: my host's
 * (AOS_NODE_SIZE's pseudo-nodes share its CPUs), and those of hosts that
 * run under the same kernel (containers or network namespaces of one
 * machine), whose PEs spinning would starve each other just the same.
 * Explicit AOS_SPIN_COUNT / AOS_YIELD_COUNT settings are kept. */
static void adapt_waiting(struct aos__runtime *rt)
{
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    int local = rt->host.machine_size;
    if (cpus <= 0 || local <= cpus)
        return;
    if (getenv("AOS_SPIN_COUNT") == NULL)
        rt->cfg.spin_count = 20;
    if (getenv("AOS_YIELD_COUNT") == NULL)
        rt->cfg.yield_count = 50;
    aos__debug("%d PEs on %ld CPUs: spin %llu, yield %llu", local, cpus,
               (unsigned long long)rt->cfg.spin_count, (unsigned long long)rt->cfg.yield_count);
}

/* AOS_CLUSTER_SIZE=N overrides the clusters the launcher found. */
static void override_clusters(struct aos__runtime *rt)
{
    if (rt->cfg.cluster_size == 0)
        return;
    for (int pe = 0; pe < rt->npes; pe++)
        rt->peers[pe].cluster = (int)((uint64_t)pe / rt->cfg.cluster_size);
}

/* Routes each peer: shared memory on my node, the network transport for
 * the others, which starts only when there are some. */
static int start_network(struct aos__runtime *rt)
{
    int remote = 0;
    for (int pe = 0; pe < rt->npes; pe++) {
        int here = rt->peers[pe].node == rt->peers[rt->me].node;
        rt->peers[pe].tp = here ? &aos__transport_shm : &aos__transport_net;
        remote |= !here;
    }
    /* Every PE takes part in the network's address exchange when any PE has
     * a peer elsewhere: with nodes of different sizes, some may not. */
    int any_remote = 0;
    for (int pe = 0; pe < rt->npes && !any_remote; pe++)
        any_remote = rt->peers[pe].node != rt->peers[0].node;
    if (!any_remote)
        return AOS_OK;
    int rc = aos__transport_net.start(rt);
    if (rc != AOS_OK)
        return rc;
    rt->net = &aos__transport_net;
    aos__debug("%s PEs on other nodes through %s", remote ? "reaching" : "no",
               aos__transport_net.name);
    return AOS_OK;
}

static void stop_network(struct aos__runtime *rt)
{
    if (rt->net != NULL)
        rt->net->stop(rt);
    rt->net = NULL;
}

int aos_init(void)
{
    struct aos__runtime *rt = &aos__rt;
    if (rt->initialized)
        return AOS_ERR_ALREADY_INITIALIZED;
    if (rt->finalized_launched)
        return AOS_ERR_FINALIZED; /* the launcher's bootstrap is gone */
    int rc = aos__config_load(&rt->cfg);
    if (rc != AOS_OK)
        return rc;
    rc = aos__bootstrap_start(rt);
    if (rc != AOS_OK)
        return rc;
    rt->page_size = (size_t)sysconf(_SC_PAGESIZE);
    rt->net = NULL;
    rt->remaps = NULL;
    rt->heap_top = 0;

    uintptr_t static_lo = 0;
    uint64_t static_len = 0;
    if (rt->cfg.symmetric_static)
        aos__static_data_range(&static_lo, &static_len);
    rt->static_lo = static_lo;
    plan_layout(rt, static_len);
    rt->machine = aos__boot_machine_id();

    rt->peers = calloc((size_t)rt->npes, sizeof *rt->peers);
    if (rt->peers == NULL) {
        rc = AOS_ERR_NO_MEMORY;
        goto fail_boot;
    }
    aos__copy_init();
    rc = aos__transport_shm.start(rt);
    if (rc != AOS_OK)
        goto fail_peers;
    rc = start_network(rt);
    if (rc != AOS_OK)
        goto fail_shm;
    adapt_waiting(rt);
    override_clusters(rt);
    rc = aos__memory_start(rt);
    if (rc != AOS_OK)
        goto fail_transport;
    rt->initialized = 1;
    rc = aos__queue_start();
    if (rc == AOS_OK)
        rc = aos__ipc_start();
    if (rc != AOS_OK)
        goto fail_memory;
    rc = aos__notify_start();
    if (rc != AOS_OK)
        goto fail_memory;
    rc = aos__rpc_start();
    if (rc != AOS_OK)
        goto fail_notify;
    rc = aos__coll_start();
    if (rc != AOS_OK)
        goto fail_rpc;
    rc = aos__progress_thread_start();
    if (rc != AOS_OK)
        goto fail_coll;
    rc = aos__peer_watch_start(rt);
    if (rc != AOS_OK)
        goto fail_thread;
    /* Nobody touches a peer's memory before every PE has set its up. */
    rc = aos_barrier_all();
    if (rc != AOS_OK)
        goto fail_thread;
    aos__debug("up: %d PEs, arena %llu MiB reserved, static data %llu KiB, transports shm%s%s",
               rt->npes, (unsigned long long)(rt->arena_size >> 20),
               (unsigned long long)(static_len >> 10), rt->net != NULL ? " + " : "",
               rt->net != NULL ? rt->net->name : "");
    return AOS_OK;

fail_thread:
    aos__peer_watch_stop(rt);
    aos__progress_thread_stop();
fail_coll:
    aos__coll_stop();
fail_rpc:
    aos__rpc_stop();
fail_notify:
    aos__notify_stop();
fail_memory:
    aos__ipc_stop();
    aos__queue_stop();
    aos__progress_reset();
    rt->initialized = 0;
    aos__memory_stop(rt);
fail_transport:
    stop_network(rt);
fail_shm:
    aos__transport_shm.stop(rt);
fail_peers:
    free(rt->peers);
    rt->peers = NULL;
fail_boot:
    aos__bootstrap_stop(rt, 0);
    rt->me = rt->npes = -1;
    return rc;
}

int aos_finalize(void)
{
    struct aos__runtime *rt = &aos__rt;
    AOS__CHECK_INIT();
    /* From a handler its barrier could wait on PEs waiting on the handler,
     * and the RPC state would be freed under the handler's own caller. */
    if (aos__in_rpc_handler())
        return AOS_ERR_INVALID;
    /* Every RPC made anywhere runs before anyone leaves (its handler may
     * write my memory or call me); then everyone is done with everyone's
     * memory before anything is unmapped. */
    int rc = aos__rpc_drain();
    int qrc = aos_quiet();
    if (rc == AOS_OK)
        rc = qrc;
    /* Release: set before my arrival at the barrier below leaves, which a
     * peer needs before it can finish and close its connections; pairs with
     * the acquire in aos__peer_lost, which then takes the close for a
     * goodbye. */
    aos__store_release(&rt->leaving, 1);
    int brc = aos_barrier_all();
    if (rc == AOS_OK)
        rc = brc;
    rt->finalizing = 1;
    aos__peer_watch_stop(rt);
    aos__progress_thread_stop();
    aos__coll_stop();
    aos__rpc_stop();
    aos__notify_stop();
    aos__ipc_stop();
    aos__queue_stop();
    aos__progress_reset();
    rt->initialized = 0;
    aos__memory_stop(rt);
    stop_network(rt);
    /* Release: pairs with aosrun's acquire load when this PE has ended. */
    aos__store_release(&((struct aos__arena_header *)(void *)rt->my_base)->finalized, 1);
    aos__transport_shm.stop(rt);
    free(rt->peers);
    rt->peers = NULL;
    if (rt->boot != &aos__boot_single)
        rt->finalized_launched = 1;
    aos__bootstrap_stop(rt, 1);
    rt->me = rt->npes = -1;
    rt->finalizing = 0;
    aos__store_relaxed(&rt->leaving, 0); /* no progress runs now to read it */
    return rc;
}

int aos_initialized(void)
{
    return aos__rt.initialized;
}

void aos_global_exit(int status)
{
    fflush(NULL);
    /* Where the launcher would not stop the other PEs, which may be waiting
     * for this one anywhere or computing, they are told to leave with
     * status; then the launcher ends the job with it (core/peer_loss.c). */
    aos__peer_tell_exit(status);
    aos__bootstrap_global_exit(&aos__rt, status);
    _exit(status);
}

int aos_my_pe(void)
{
    return aos__rt.initialized ? aos__rt.me : -1;
}

int aos_n_pes(void)
{
    return aos__rt.initialized ? aos__rt.npes : -1;
}

/* Lists the PEs for which same(me, pe) holds. */
static int list_pes(int (*same)(int, int), int *pes, int max, int *count)
{
    AOS__CHECK_INIT();
    if (count == NULL || (pes == NULL && max > 0))
        return AOS_ERR_NULL;
    if (max < 0)
        return AOS_ERR_INVALID;
    int n = 0;
    for (int pe = 0; pe < aos__rt.npes; pe++) {
        if (!same(aos__rt.me, pe))
            continue;
        if (n < max)
            pes[n] = pe;
        n++;
    }
    *count = n;
    return AOS_OK;
}

static int same_node(int a, int b)
{
    return aos__rt.peers[a].node == aos__rt.peers[b].node;
}

static int same_cluster(int a, int b)
{
    const struct aos__peer *p = aos__rt.peers;
    return same_node(a, b) && p[a].cluster == p[b].cluster;
}

int aos_node_pes(int *pes, int max, int *count)
{
    return list_pes(same_node, pes, max, count);
}

int aos_cluster_pes(int *pes, int max, int *count)
{
    return list_pes(same_cluster, pes, max, count);
}
