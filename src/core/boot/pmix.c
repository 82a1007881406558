/* The bootstrap backend for PEs a PMIx server started: Open MPI's mpirun,
 * Slurm's srun --mpi=pmix, PRRTE. Rank, size and hosts come from the PMIx
 * store; blobs travel by PMIx_Put, a fence that collects data, and
 * PMIx_Get; the PEs of one host share their arenas through
 * core/boot/node_share.c. */
#include <pmix.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "core/boot/cache_domain.h"
#include "core/boot/node_share.h"
#include "core/bootstrap.h"

static pmix_proc_t myproc;
static unsigned rounds; /* all-gathers so far: each round has its own key */

static int pmix_failed(int me, const char *what, pmix_status_t st)
{
    fprintf(stderr, "aos: PE %d: %s through PMIx failed: %s\n", me, what, PMIx_Error_string(st));
    return AOS_ERR_BOOTSTRAP;
}

/* An unsigned number from the store (servers differ in the width). */
static int get_uint(const pmix_proc_t *who, const char *key, uint64_t *out)
{
    pmix_value_t *v = NULL;
    if (PMIx_Get(who, key, NULL, 0, &v) != PMIX_SUCCESS || v == NULL)
        return -1;
    int rc = 0;
    switch (v->type) {
    case PMIX_UINT32: *out = v->data.uint32; break;
    case PMIX_UINT16: *out = v->data.uint16; break;
    case PMIX_UINT64: *out = v->data.uint64; break;
    case PMIX_UINT: *out = v->data.uint; break;
    case PMIX_INT: rc = v->data.integer < 0 ? -1 : 0; *out = (uint64_t)v->data.integer; break;
    default: rc = -1;
    }
    PMIX_VALUE_RELEASE(v);
    return rc;
}

/* mpirun marks the processes it starts with OMPI_COMM_WORLD_SIZE, which
 * srun does not set (pmix_stops_on_loss). */
static int started_by_mpirun;

static int pmix_start(struct aos__runtime *rt)
{
    pmix_status_t st = PMIx_Init(&myproc, NULL, 0);
    if (st != PMIX_SUCCESS) {
        fprintf(stderr,
                "aos: PMIx_Init failed (%s): the PMIx server that started this process "
                "(PMIX_NAMESPACE=%s) cannot be reached\n",
                PMIx_Error_string(st), getenv("PMIX_NAMESPACE"));
        return AOS_ERR_BOOTSTRAP;
    }
    pmix_proc_t job;
    PMIX_LOAD_PROCID(&job, myproc.nspace, PMIX_RANK_WILDCARD);
    uint64_t size = 0;
    if (get_uint(&job, PMIX_JOB_SIZE, &size) != 0 || size == 0 || size > (1u << 20) ||
        myproc.rank >= size) {
        fprintf(stderr, "aos: PE %u: PMIx gives no usable job size (rank %u of %llu)\n",
                myproc.rank, myproc.rank, (unsigned long long)size);
        PMIx_Finalize(NULL, 0);
        return AOS_ERR_BOOTSTRAP;
    }
    rt->me = (int)myproc.rank;
    rt->npes = (int)size;
    rounds = 0;
    /* Read here, not where a loss is taken (a progress thread, while the
     * program may change its environment). */
    started_by_mpirun = getenv("OMPI_COMM_WORLD_SIZE") != NULL;
    return AOS_OK;
}

/* Fences wait for every PE of the job, which a PE that never calls
 * aos_init (or died where its launcher does not notice) would make
 * forever: they wait at most AOS_BOOT_TIMEOUT. The wait is abandoned
 * then, and the callback that may still come frees it. */
struct fence_wait {
    pthread_mutex_t mu;
    pthread_cond_t cv;
    int done, abandoned;
    pmix_status_t st;
    pmix_info_t info[1];
    size_t ninfo;
};

static void fence_free(struct fence_wait *w)
{
    if (w->ninfo > 0)
        PMIX_INFO_DESTRUCT(&w->info[0]);
    pthread_cond_destroy(&w->cv);
    pthread_mutex_destroy(&w->mu);
    free(w);
}

static void fence_done(pmix_status_t st, void *arg)
{
    struct fence_wait *w = arg;
    pthread_mutex_lock(&w->mu);
    if (w->abandoned) {
        pthread_mutex_unlock(&w->mu);
        fence_free(w);
        return;
    }
    w->st = st;
    w->done = 1;
    pthread_cond_signal(&w->cv);
    pthread_mutex_unlock(&w->mu);
}

static int fence(struct aos__runtime *rt, int collect, const char *why)
{
    struct fence_wait *w = calloc(1, sizeof *w);
    if (w == NULL)
        return AOS_ERR_NO_MEMORY;
    pthread_condattr_t ca;
    pthread_condattr_init(&ca);
    pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
    pthread_mutex_init(&w->mu, NULL);
    pthread_cond_init(&w->cv, &ca);
    pthread_condattr_destroy(&ca);
    if (collect) {
        bool yes = true;
        PMIX_INFO_LOAD(&w->info[0], PMIX_COLLECT_DATA, &yes, PMIX_BOOL);
        w->ninfo = 1;
    }
    pmix_status_t st = PMIx_Fence_nb(NULL, 0, w->info, w->ninfo, fence_done, w);
    if (st == PMIX_OPERATION_SUCCEEDED) { /* done at once: no callback */
        fence_free(w);
        return AOS_OK;
    }
    if (st != PMIX_SUCCESS) {
        fence_free(w);
        return pmix_failed(rt->me, why, st);
    }
    struct timespec until;
    clock_gettime(CLOCK_MONOTONIC, &until);
    until.tv_sec += (time_t)rt->cfg.boot_timeout;
    pthread_mutex_lock(&w->mu);
    int timed_out = 0;
    while (!w->done && !timed_out)
        timed_out = pthread_cond_timedwait(&w->cv, &w->mu, &until) != 0 && !w->done;
    if (timed_out) {
        w->abandoned = 1;
        pthread_mutex_unlock(&w->mu);
        fprintf(stderr,
                "aos: PE %d: not every PE reached %s within %llu s (AOS_BOOT_TIMEOUT): one "
                "that never calls aos_init, or that failed, holds the others\n",
                rt->me, why, (unsigned long long)rt->cfg.boot_timeout);
        return AOS_ERR_BOOTSTRAP;
    }
    st = w->st;
    pthread_mutex_unlock(&w->mu);
    fence_free(w);
    return st == PMIX_SUCCESS ? AOS_OK : pmix_failed(rt->me, why, st);
}

static int put_blob(int me, pmix_scope_t scope, const char *key, const void *data, size_t len)
{
    pmix_value_t v;
    memset(&v, 0, sizeof v);
    v.type = PMIX_BYTE_OBJECT;
    v.data.bo.bytes = (char *)(uintptr_t)data;
    v.data.bo.size = len;
    pmix_status_t st = PMIx_Put(scope, key, &v); /* PMIx copies it */
    return st == PMIX_SUCCESS ? AOS_OK : pmix_failed(me, "put", st);
}

/* pe's blob under key: a malloc'd copy (*len bytes). */
static int get_blob(int me, int pe, const char *key, char **data, size_t *len)
{
    pmix_proc_t who;
    PMIX_LOAD_PROCID(&who, myproc.nspace, (pmix_rank_t)pe);
    /* After the fence the data is there; a PE that failed before putting
     * it must not leave me waiting. */
    pmix_info_t info;
    int secs = (int)aos__rt.cfg.boot_timeout;
    PMIX_INFO_LOAD(&info, PMIX_TIMEOUT, &secs, PMIX_INT);
    pmix_value_t *v = NULL;
    pmix_status_t st = PMIx_Get(&who, key, &info, 1, &v);
    PMIX_INFO_DESTRUCT(&info);
    if (st != PMIX_SUCCESS || v == NULL) {
        fprintf(stderr, "aos: PE %d: PMIx has no %s from PE %d: %s\n", me, key, pe,
                PMIx_Error_string(st));
        return AOS_ERR_BOOTSTRAP;
    }
    int rc = AOS_OK;
    if (v->type != PMIX_BYTE_OBJECT || v->data.bo.size > AOS__BOOT_BLOB_MAX) {
        fprintf(stderr, "aos: PE %d: PMIx gave a garbled %s from PE %d\n", me, key, pe);
        rc = AOS_ERR_BOOTSTRAP;
    } else {
        *len = v->data.bo.size;
        *data = malloc(*len + 1);
        if (*data == NULL)
            rc = AOS_ERR_NO_MEMORY;
        else if (*len > 0)
            memcpy(*data, v->data.bo.bytes, *len);
    }
    PMIX_VALUE_RELEASE(v);
    return rc;
}

/* Gets pe's blob into dst, which must be exactly len bytes. */
static int get_exact(int me, int pe, const char *key, void *dst, size_t len)
{
    char *data;
    size_t got;
    int rc = get_blob(me, pe, key, &data, &got);
    if (rc != AOS_OK)
        return rc;
    if (got == len) {
        memcpy(dst, data, len);
    } else {
        fprintf(stderr, "aos: PE %d: PE %d's %s has %zu bytes, not %zu (another aos version?)\n",
                me, pe, key, got, len);
        rc = AOS_ERR_BOOTSTRAP;
    }
    free(data);
    return rc;
}

/* The host of every PE as 0 .. hosts-1, in order of first appearance: from
 * PMIX_NODEID, else from PMIX_HOSTNAME. */
static int find_hosts(const struct aos__runtime *rt, int *host)
{
    uint64_t *id = malloc((size_t)rt->npes * sizeof *id);
    char **name = calloc((size_t)rt->npes, sizeof *name);
    int rc = id != NULL && name != NULL ? AOS_OK : AOS_ERR_NO_MEMORY;
    int by_name = 0;
    for (int pe = 0; pe < rt->npes && rc == AOS_OK; pe++) {
        pmix_proc_t who;
        PMIX_LOAD_PROCID(&who, myproc.nspace, (pmix_rank_t)pe);
        if (!by_name && get_uint(&who, PMIX_NODEID, &id[pe]) == 0)
            continue;
        pmix_value_t *v = NULL;
        by_name = 1;
        if (PMIx_Get(&who, PMIX_HOSTNAME, NULL, 0, &v) != PMIX_SUCCESS || v == NULL ||
            v->type != PMIX_STRING || v->data.string == NULL ||
            (name[pe] = strdup(v->data.string)) == NULL) {
            fprintf(stderr, "aos: PE %d: PMIx says neither the node id nor the host of PE %d\n",
                    rt->me, pe);
            rc = AOS_ERR_BOOTSTRAP;
        }
        if (v != NULL)
            PMIX_VALUE_RELEASE(v);
        if (pe > 0 && rc == AOS_OK && name[0] == NULL)
            pe = -1; /* node ids for some only: start over by names */
    }
    int hosts = 0;
    for (int pe = 0; pe < rt->npes && rc == AOS_OK; pe++) {
        host[pe] = -1;
        for (int q = 0; q < pe && host[pe] < 0; q++)
            if (by_name ? strcmp(name[q], name[pe]) == 0 : id[q] == id[pe])
                host[pe] = host[q];
        if (host[pe] < 0)
            host[pe] = hosts++;
    }
    if (name != NULL)
        for (int pe = 0; pe < rt->npes; pe++)
            free(name[pe]);
    free(name);
    free(id);
    return rc;
}

/* Every PE's hello (pid and layout) through the store, checked, and the
 * clusters of the PEs of my host. */
static int gather_hellos(struct aos__runtime *rt, const int *host, pid_t *pid)
{
    for (int pe = 0; pe < rt->npes; pe++) {
        struct aos__boot_hello h;
        int rc = get_exact(rt->me, pe, "aos.hello", &h, sizeof h);
        if (rc != AOS_OK)
            return rc;
        if (h.magic != AOS__BOOT_MAGIC || h.rank != (uint32_t)pe) {
            fprintf(stderr, "aos: PE %d: PE %d's details are garbled (another aos version?)\n",
                    rt->me, pe);
            return AOS_ERR_BOOTSTRAP;
        }
        rc = aos__boot_check_layout(rt, pe, &h);
        if (rc != AOS_OK)
            return rc;
        pid[pe] = (pid_t)h.pid;
        rt->peers[pe].pid = (pid_t)h.pid;
        rt->peers[pe].machine = h.machine;
        int32_t cluster = 0; /* another host's: only ever compared on its host */
        if (host[pe] == host[rt->me]) {
            rc = get_exact(rt->me, pe, "aos.cluster", &cluster, sizeof cluster);
            if (rc != AOS_OK)
                return rc;
        }
        rt->peers[pe].cluster = cluster;
    }
    return AOS_OK;
}

static int pmix_exchange(struct aos__runtime *rt, int *peer_fds)
{
    int n = rt->npes;
    for (int pe = 0; pe < n; pe++)
        peer_fds[pe] = -1;
    int *host = malloc((size_t)n * sizeof *host);
    int *local = malloc((size_t)n * sizeof *local);
    pid_t *pid = malloc((size_t)n * sizeof *pid);
    if (host == NULL || local == NULL || pid == NULL) {
        free(pid);
        free(local);
        free(host);
        return AOS_ERR_NO_MEMORY;
    }
    int rc = find_hosts(rt, host);
    if (rc != AOS_OK) /* PMIx gives every PE the same: all fail here alike */
        goto out;
    int nlocal = 0;
    for (int pe = 0; pe < n; pe++)
        if (host[pe] == host[rt->me])
            local[nlocal++] = pe;
    struct aos__share share = {.job = myproc.nspace,
                               .host = host[rt->me],
                               .me = rt->me,
                               .local = local,
                               .nlocal = nlocal,
                               .pid = pid,
                               .arena_fd = rt->arena_fd,
                               .timeout_ms = rt->cfg.boot_timeout * 1000};
    struct aos__share_ticket ticket;
    int lfd = -1;
    /* The leader listens before the fence, so that its socket exists when
     * the others learn its name. */
    if (nlocal > 1 && local[0] == rt->me) {
        rc = aos__share_listen(&share, &ticket, &lfd);
        if (rc == AOS_OK)
            rc = put_blob(rt->me, PMIX_LOCAL, "aos.share", &ticket, sizeof ticket);
    }
    struct aos__boot_hello mine = aos__boot_my_hello(rt);
    if (rc == AOS_OK)
        rc = put_blob(rt->me, PMIX_GLOBAL, "aos.hello", &mine, sizeof mine);
    /* The launcher bound me (or not); my host's PEs learn where. 0: not
     * inside one last-level cache, so with every such PE of the host. */
    int32_t cluster = aos__cache_domain_mine();
    if (rc == AOS_OK)
        rc = put_blob(rt->me, PMIX_LOCAL, "aos.cluster", &cluster, sizeof cluster);
    if (rc == AOS_OK && PMIx_Commit() != PMIX_SUCCESS)
        rc = pmix_failed(rt->me, "commit", PMIX_ERROR);
    /* Every PE takes part in the fence, even one that failed above: the
     * others then fail on its missing data instead of waiting. */
    int frc = fence(rt, 1, "the start-up exchange");
    if (rc == AOS_OK)
        rc = frc;
    if (rc == AOS_OK)
        rc = gather_hellos(rt, host, pid);
    if (rc == AOS_OK)
        aos__boot_place(rt, host);
    if (lfd >= 0) {
        if (rc == AOS_OK)
            rc = aos__share_serve(&share, &ticket, lfd, peer_fds);
        else
            close(lfd);
    } else if (nlocal > 1 && local[0] != rt->me && rc == AOS_OK) {
        rc = get_exact(rt->me, local[0], "aos.share", &ticket, sizeof ticket);
        if (rc == AOS_OK &&
            (ticket.rank != (uint32_t)local[0] || (pid_t)ticket.pid != pid[local[0]])) {
            fprintf(stderr, "aos: PE %d: PE %d's memory exchange ticket is garbled\n", rt->me,
                    local[0]);
            rc = AOS_ERR_BOOTSTRAP;
        }
        if (rc == AOS_OK)
            rc = aos__share_join(&share, &ticket, peer_fds);
    }
    if (rc == AOS_OK)
        aos__debug("PMIx: %d PEs on %d hosts, %d on mine (host %d)", n, rt->host.hosts,
                   rt->host.local_size, rt->host.host);
out:
    if (rc != AOS_OK) {
        for (int pe = 0; pe < n; pe++) {
            if (peer_fds[pe] >= 0)
                close(peer_fds[pe]);
            peer_fds[pe] = -1;
        }
    }
    free(pid);
    free(local);
    free(host);
    return rc;
}

static int pmix_allgather(struct aos__runtime *rt, const void *mine, size_t len, char **all,
                          size_t **offs)
{
    char key[32];
    snprintf(key, sizeof key, "aos.blob.%u", rounds++);
    int rc = put_blob(rt->me, PMIX_GLOBAL, key, mine, len);
    if (rc == AOS_OK && PMIx_Commit() != PMIX_SUCCESS)
        rc = pmix_failed(rt->me, "commit", PMIX_ERROR);
    int frc = fence(rt, 1, "an address exchange");
    if (rc != AOS_OK || frc != AOS_OK)
        return rc != AOS_OK ? rc : frc;
    size_t n = (size_t)rt->npes, used = 0, cap = n * len + 64;
    size_t *o = calloc(n + 1, sizeof *o);
    char *buf = malloc(cap);
    if (o == NULL || buf == NULL) {
        rc = AOS_ERR_NO_MEMORY;
        goto fail;
    }
    for (size_t pe = 0; pe < n; pe++) {
        char *blob;
        size_t got;
        rc = get_blob(rt->me, (int)pe, key, &blob, &got);
        if (rc != AOS_OK)
            goto fail;
        if (used + got > cap) {
            size_t want = 2 * (used + got);
            char *bigger = realloc(buf, want);
            if (bigger == NULL) {
                free(blob);
                rc = AOS_ERR_NO_MEMORY;
                goto fail;
            }
            buf = bigger;
            cap = want;
        }
        memcpy(buf + used, blob, got);
        free(blob);
        o[pe] = used;
        used += got;
    }
    o[n] = used;
    *all = buf;
    *offs = o;
    return AOS_OK;
fail:
    free(buf);
    free(o);
    return rc;
}

static int pmix_barrier(struct aos__runtime *rt)
{
    return fence(rt, 0, "a barrier");
}

static void pmix_global_exit(struct aos__runtime *rt, int status)
{
    (void)rt;
    /* The other PEs were told and leave with status (core/peer_loss.c).
     * A non-zero status also goes to the server, which stops every process
     * of the job and makes status the job's (mpirun, srun) should one not
     * leave. Status 0 may not: Slurm kills the step on any PMIx_Abort,
     * whatever its status, and then reports the killed tasks' 137. So this
     * PE finalizes instead, as any PE that ends well (a client that goes
     * without finalizing fails the step too); the caller exits after. */
    if (status != 0)
        (void)PMIx_Abort(status, "aos_global_exit", NULL, 0);
    else
        (void)PMIx_Finalize(NULL, 0);
}

/* Open MPI's mpirun (ORTE, PRRTE) kills every process of a job when one
 * dies or leaves without finalizing, and says which, on which host and how
 * it ended. Slurm keeps a job whose task failed unless told
 * (--kill-on-bad-exit), and other launchers are not known to stop it. */
static int pmix_stops_on_loss(void)
{
    return started_by_mpirun;
}

static void pmix_stop(struct aos__runtime *rt, int finalized)
{
    (void)rt;
    (void)finalized;
    (void)PMIx_Finalize(NULL, 0);
}

const struct aos__boot aos__boot_pmix = {
    .name = "pmix",
    .start = pmix_start,
    .exchange = pmix_exchange,
    .allgather = pmix_allgather,
    .barrier = pmix_barrier,
    .global_exit = pmix_global_exit,
    .stops_on_loss = pmix_stops_on_loss,
    .stops_on_exit = 0,
    .stop = pmix_stop,
};
