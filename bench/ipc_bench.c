/* RPC and IPC benchmarks, with their baselines in the same run:
 *   rpc    null-RPC round trip to a target that waits, and to one that
 *          computes (polling aos_progress every ~20 us, or not at all when
 *          AOS_PROGRESS_THREAD=1 serves for it); RPC throughput from every
 *          other PE to PE 0
 *   dot    the Epiphany experiment: a dot product of two vectors held by
 *          another PE, computed there by RPC or here after getting both;
 *          symmetric (each PE asks its right neighbour) and asymmetric (all
 *          ask PE 0) loads; the RPC queue depth is AOS_RPC_QUEUE_DEPTH
 *   ipc    mailbox ping-pong latency (120-byte messages, PE 0 with each of
 *          its peers in turn) and portal throughput (PE 1 to PE 0, 1 KiB-
 *          1 MiB, two portals alternating), each against a Unix-domain
 *          stream socket between the same processes (blocking write/read)
 * Prints CSV: metric,bytes,value,unit.
 * usage: aosrun -n N ipc-bench [rpc|dot|ipc|all] [quick] */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <aos.h>

#include "try.h"

#include "bench_common.h"


static int me, npes, threaded;
static double scale = 1.0;
static uint64_t stop_flag; /* symmetric: the target stops computing */

static long iters_of(long n)
{
    return (long)((double)n * scale) + 4;
}

/* ---- RPC ---------------------------------------------------------------------- */

static size_t null_handler(const aos_rpc_info_t *info, const void *args, size_t len,
                           void *reply, size_t cap)
{
    (void)info, (void)args, (void)len, (void)reply, (void)cap;
    return 0;
}

/* ~20 us of arithmetic */
static void work_chunk(void)
{
    volatile double x = 1.0;
    for (int k = 0; k < 6000; k++)
        x = x * 1.0000001 + 1e-9;
}

/* PE 1 computes until PE 0 says stop: with a progress thread it never
 * calls aos, otherwise it polls aos_progress between chunks. */
static void compute_until_stopped(void)
{
    while (__atomic_load_n(&stop_flag, __ATOMIC_ACQUIRE) == 0) {
        work_chunk();
        if (!threaded)
            TRY(aos_progress());
    }
}

static double rtt(aos_rpc_id_t id, long iters, int target_computes)
{
    stop_flag = 0;
    TRY(aos_barrier_all());
    double t = 0;
    if (me == 0) {
        for (long i = 0; i < 100; i++) /* the target is settled in its loop */
            TRY(aos_rpc(1, id, NULL, 0, NULL, 0, NULL, NULL));
        double t0 = bench_now();
        for (long i = 0; i < iters; i++)
            TRY(aos_rpc(1, id, NULL, 0, NULL, 0, NULL, NULL));
        t = (bench_now() - t0) / (double)iters;
        uint64_t one = 1;
        TRY(aos_putmem(1, &stop_flag, &one, sizeof one, NULL));
    } else if (me == 1 && target_computes) {
        compute_until_stopped();
    }
    TRY(aos_barrier_all()); /* a waiting target serves in here */
    return t;
}

/* Every PE but 0 makes `iters` calls to PE 0, 32 outstanding; calls/s at PE 0. */
static double throughput_to_0(aos_rpc_id_t id, long iters)
{
    aos_event_t *ev;
    TRY(aos_event_create(&ev));
    TRY(aos_barrier_all());
    double t0 = bench_now();
    if (me != 0) {
        uint64_t arg = (uint64_t)me;
        for (long i = 0; i < iters; i += 32) {
            for (long j = i; j < iters && j < i + 32; j++)
                TRY(aos_rpc(0, id, &arg, sizeof arg, NULL, 0, NULL, ev));
            TRY(aos_event_wait(ev));
        }
    }
    TRY(aos_barrier_all()); /* PE 0 serves in here */
    double t = bench_now() - t0;
    TRY(aos_event_destroy(ev));
    return (double)iters * (npes - 1) / t;
}

static void rpc_metrics(void)
{
    aos_rpc_id_t id;
    TRY(aos_rpc_register("null", null_handler, 0, &id));
    TRY(aos_barrier_all());
    double v[TRIALS];
    const char *suffix = threaded ? "thread" : "poll";
    char name[64];
    for (int k = 0; k < TRIALS; k++)
        v[k] = rtt(id, iters_of(20000), 0);
    if (me == 0)
        bench_report("rpc_rtt_waiting", 0, bench_median(v, TRIALS) * 1e6, "us");
    for (int k = 0; k < TRIALS; k++)
        v[k] = rtt(id, iters_of(5000), 1);
    snprintf(name, sizeof name, "rpc_rtt_computing_%s", suffix);
    if (me == 0)
        bench_report(name, 0, bench_median(v, TRIALS) * 1e6, "us");
    for (int k = 0; k < TRIALS; k++)
        v[k] = throughput_to_0(id, iters_of(100000) / (npes - 1) + 32);
    snprintf(name, sizeof name, "rpc_rate_to_0_p%d", npes - 1);
    if (me == 0)
        bench_report(name, 0, bench_median(v, TRIALS) / 1e6, "Mcalls/s");
}

/* ---- the Epiphany experiment -------------------------------------------------- */

#define DOT_MAX 65536
static double xs[DOT_MAX], ys[DOT_MAX]; /* symmetric: every PE's vectors */

static double dot(const double *a, const double *b, size_t n)
{
    double s = 0;
    for (size_t i = 0; i < n; i++)
        s += a[i] * b[i];
    return s;
}

static size_t dot_handler(const aos_rpc_info_t *info, const void *args, size_t len, void *reply,
                          size_t cap)
{
    (void)info;
    uint64_t n;
    if (len != sizeof n || cap < sizeof(double))
        return 0;
    memcpy(&n, args, sizeof n);
    double s = dot(xs, ys, n);
    memcpy(reply, &s, sizeof s);
    return sizeof s;
}

/* Time per dot product over n elements held by `owner`, by RPC or by get;
 * PEs with owner < 0 only serve. Checks the value against the owner's
 * data, which every PE can compute (x_i = i + owner, y_i = 1/(i+1)). */
static double dot_run(aos_rpc_id_t id, int owner, uint64_t n, int by_rpc, long iters)
{
    static double bx[DOT_MAX], by[DOT_MAX];
    TRY(aos_barrier_all());
    double t0 = bench_now(), s = 0;
    for (long i = 0; owner >= 0 && i < iters; i++) {
        if (by_rpc) {
            size_t got;
            TRY(aos_rpc(owner, id, &n, sizeof n, &s, sizeof s, &got, NULL));
        } else {
            TRY(aos_getmem(owner, bx, xs, n * sizeof(double), NULL));
            TRY(aos_getmem(owner, by, ys, n * sizeof(double), NULL));
            s = dot(bx, by, n);
        }
    }
    double t = (bench_now() - t0) / (double)iters;
    if (owner >= 0) {
        double want = 0;
        for (uint64_t i = 0; i < n; i++)
            want += ((double)i + owner) * (1.0 / ((double)i + 1));
        if (s != want) {
            fprintf(stderr, "PE %d: dot over %llu from PE %d: %g, expected %g\n", me,
                    (unsigned long long)n, owner, s, want);
            exit(1);
        }
    }
    TRY(aos_barrier_all()); /* asymmetric: PE 0 serves in here */
    return t;
}

static void dot_metrics(void)
{
    for (size_t i = 0; i < DOT_MAX; i++) {
        xs[i] = (double)i + me;
        ys[i] = 1.0 / ((double)i + 1);
    }
    aos_rpc_id_t id;
    TRY(aos_rpc_register("dot", dot_handler, 0, &id));
    static const uint64_t sizes[] = {16, 256, 4096, 65536};
    for (int load = 0; load < 2; load++) {
        /* symmetric: my right neighbour's vectors; asymmetric: PE 0's */
        int owner = load == 0 ? (me + 1) % npes : (me == 0 ? -1 : 0);
        for (size_t k = 0; k < 4; k++) {
            long iters = iters_of(sizes[k] >= 4096 ? 2000 : 20000);
            for (int by_rpc = 1; by_rpc >= 0; by_rpc--) {
                double v[TRIALS], mine[TRIALS];
                for (int r = 0; r < TRIALS; r++)
                    mine[r] = dot_run(id, owner, sizes[k], by_rpc, iters);
                /* report PE 1's time: it is a caller under both loads */
                double m = bench_median(mine, TRIALS);
                (void)v;
                char name[64];
                snprintf(name, sizeof name, "dot_%s_%s_p%d", load == 0 ? "sym" : "asym",
                         by_rpc ? "rpc" : "get", npes);
                if (me == 1)
                    bench_report(name, sizes[k] * sizeof(double), m * 1e6, "us");
            }
        }
    }
}

/* ---- mailboxes and portals vs a Unix-domain socket ------------------------------ */

static uint64_t job_tag; /* symmetric: PE 0's pid, names the sockets */

static void socket_name(struct sockaddr_un *a, int peer)
{
    memset(a, 0, sizeof *a);
    a->sun_family = AF_UNIX;
    /* abstract namespace: no file to clean up */
    snprintf(a->sun_path + 1, sizeof a->sun_path - 1, "aos-ipc-bench-%llu-%d",
             (unsigned long long)job_tag, peer);
}

static void io_all(int fd, void *buf, size_t len, int writing)
{
    char *p = buf;
    while (len > 0) {
        ssize_t n = writing ? write(fd, p, len) : read(fd, p, len);
        if (n <= 0) {
            if (n < 0 && errno == EINTR)
                continue;
            perror("socket");
            exit(1);
        }
        p += n;
        len -= (size_t)n;
    }
}

/* PE 0: fds[p] connected to peer p; a peer: fds[0] connected to PE 0. */
static int *connect_sockets(void)
{
    int *fds = calloc((size_t)npes, sizeof *fds);
    if (me == 0) {
        uint64_t pid = (uint64_t)getpid();
        for (int p = 1; p < npes; p++)
            TRY(aos_putmem(p, &job_tag, &pid, sizeof pid, NULL));
        job_tag = pid;
        for (int p = 1; p < npes; p++) {
            int l = socket(AF_UNIX, SOCK_STREAM, 0);
            struct sockaddr_un a;
            socket_name(&a, p);
            if (l < 0 || bind(l, (struct sockaddr *)&a, sizeof a) != 0 || listen(l, 1) != 0) {
                perror("listen");
                exit(1);
            }
            fds[p] = l; /* accepted below */
        }
    }
    TRY(aos_barrier_all());
    if (me != 0) {
        int s = socket(AF_UNIX, SOCK_STREAM, 0);
        struct sockaddr_un a;
        socket_name(&a, me);
        if (s < 0 || connect(s, (struct sockaddr *)&a, sizeof a) != 0) {
            perror("connect");
            exit(1);
        }
        fds[0] = s;
    } else {
        for (int p = 1; p < npes; p++) {
            int c = accept(fds[p], NULL, NULL);
            if (c < 0) {
                perror("accept");
                exit(1);
            }
            close(fds[p]);
            fds[p] = c;
        }
    }
    TRY(aos_barrier_all());
    return fds;
}

#define MSG 120

/* PE 0 sends a message to each peer in turn and waits for its answer; half
 * the mean round trip. */
static double mbox_latency(aos_mbox_t *mine, aos_mbox_t **to, long iters)
{
    char msg[MSG] = {0};
    TRY(aos_barrier_all());
    double t0 = bench_now();
    for (long i = 0; i < iters; i++) {
        if (me == 0) {
            for (int p = 1; p < npes; p++) {
                TRY(aos_mbox_write(to[p], msg, NULL));
                TRY(aos_mbox_read(mine, msg, NULL));
            }
        } else {
            TRY(aos_mbox_read(mine, msg, NULL));
            TRY(aos_mbox_write(to[0], msg, NULL));
        }
    }
    double t = bench_now() - t0;
    TRY(aos_barrier_all());
    return t / (double)iters / (npes - 1) / 2;
}

static double socket_latency(const int *fds, long iters)
{
    char msg[MSG] = {0};
    TRY(aos_barrier_all());
    double t0 = bench_now();
    for (long i = 0; i < iters; i++) {
        if (me == 0) {
            for (int p = 1; p < npes; p++) {
                io_all(fds[p], msg, MSG, 1);
                io_all(fds[p], msg, MSG, 0);
            }
        } else {
            io_all(fds[0], msg, MSG, 0);
            io_all(fds[0], msg, MSG, 1);
        }
    }
    double t = bench_now() - t0;
    TRY(aos_barrier_all());
    return t / (double)iters / (npes - 1) / 2;
}

/* PE 1 streams `iters` messages of `bytes` into PE 0's buffer through two
 * portals used alternately (PE 0 grants the next before the last lands). */
static double portal_rate(aos_portal_t **mine, aos_portal_t **to0, char *rbuf, const char *src,
                          size_t bytes, long iters)
{
    TRY(aos_barrier_all());
    double t0 = bench_now();
    if (me == 0) {
        aos_event_t *ev[2];
        size_t len[2];
        TRY(aos_event_create(&ev[0]));
        TRY(aos_event_create(&ev[1]));
        for (long i = 0; i < iters && i < 2; i++)
            TRY(aos_portal_read(mine[i], 1, rbuf + (size_t)i * bytes, bytes, &len[i], ev[i]));
        for (long i = 0; i < iters; i++) {
            int k = (int)(i % 2);
            TRY(aos_event_wait(ev[k]));
            if (len[k] != bytes)
                exit(1);
            if (i + 2 < iters)
                TRY(aos_portal_read(mine[k], 1, rbuf + (size_t)k * bytes, bytes, &len[k], ev[k]));
        }
        TRY(aos_event_destroy(ev[0]));
        TRY(aos_event_destroy(ev[1]));
    } else if (me == 1) {
        for (long i = 0; i < iters; i++)
            TRY(aos_portal_write(to0[i % 2], src, bytes, NULL));
    }
    double t = bench_now() - t0;
    TRY(aos_barrier_all());
    return (double)bytes * (double)iters / t;
}

static double socket_rate(const int *fds, char *rbuf, const char *src, size_t bytes, long iters)
{
    TRY(aos_barrier_all());
    double t0 = bench_now();
    for (long i = 0; i < iters; i++) {
        if (me == 0)
            io_all(fds[1], rbuf, bytes, 0);
        else if (me == 1)
            io_all(fds[0], (void *)(uintptr_t)src, bytes, 1);
    }
    double t = bench_now() - t0;
    TRY(aos_barrier_all());
    return (double)bytes * (double)iters / t;
}

static void ipc_metrics(void)
{
    int *fds = connect_sockets();
    aos_mbox_t *mine, **to = calloc((size_t)npes, sizeof *to);
    TRY(aos_mbox_create(1, MSG, 64, &mine));
    TRY(aos_barrier_all());
    for (int p = 0; p < npes; p++)
        TRY(aos_mbox_open(p, 1, &to[p]));
    double v[TRIALS], w[TRIALS];
    for (int k = 0; k < TRIALS; k++) { /* alternate, so drifts hit both */
        v[k] = mbox_latency(mine, to, iters_of(20000));
        w[k] = socket_latency(fds, iters_of(20000));
    }
    char name[64];
    snprintf(name, sizeof name, "mbox_lat_p%d", npes - 1);
    if (me == 0)
        bench_report(name, MSG, bench_median(v, TRIALS) * 1e6, "us");
    snprintf(name, sizeof name, "socket_lat_p%d", npes - 1);
    if (me == 0)
        bench_report(name, MSG, bench_median(w, TRIALS) * 1e6, "us");

    aos_portal_t *pm[2], *pt[2];
    TRY(aos_portal_create(1, &pm[0]));
    TRY(aos_portal_create(2, &pm[1]));
    TRY(aos_barrier_all());
    TRY(aos_portal_open(0, 1, &pt[0]));
    TRY(aos_portal_open(0, 2, &pt[1]));
    char *rbuf = aos_malloc(2u << 20), *src = malloc(1u << 20);
    memset(src, 7, 1u << 20);
    for (size_t bytes = 1024; bytes <= (1u << 20); bytes *= 4) {
        long iters = bench_iters(bytes, 256e6 * scale, 20, 200000);
        for (int k = 0; k < TRIALS; k++) {
            v[k] = portal_rate(pm, pt, rbuf, src, bytes, iters);
            w[k] = socket_rate(fds, rbuf, src, bytes, iters);
        }
        if (me == 0) {
            bench_report("portal_bw", bytes, bench_median(v, TRIALS) / 1e9, "GB/s");
            bench_report("socket_bw", bytes, bench_median(w, TRIALS) / 1e9, "GB/s");
        }
    }
    TRY(aos_barrier_all());
    for (int i = 0; i < 2; i++)
        TRY(aos_portal_close(pt[i]));
    for (int p = 0; p < npes; p++)
        TRY(aos_mbox_close(to[p]));
    TRY(aos_barrier_all());
    for (int i = 0; i < 2; i++)
        TRY(aos_portal_close(pm[i]));
    TRY(aos_mbox_close(mine));
    aos_free(rbuf);
    free(src);
    free(to);
    for (int p = 0; p < npes; p++)
        if (fds[p] > 0)
            close(fds[p]);
    free(fds);
}

int main(int argc, char **argv)
{
    const char *what = argc > 1 ? argv[1] : "all";
    for (int i = 1; i < argc; i++)
        if (strcmp(argv[i], "quick") == 0)
            scale = 0.05;
    const char *pt = getenv("AOS_PROGRESS_THREAD");
    threaded = pt != NULL && strcmp(pt, "1") == 0;
    TRY(aos_init());
    me = aos_my_pe();
    npes = aos_n_pes();
    if (npes < 2) {
        fprintf(stderr, "ipc-bench needs at least 2 PEs\n");
        return 2;
    }
    int all = strcmp(what, "all") == 0 || strcmp(what, "quick") == 0;
    if (all || strcmp(what, "rpc") == 0)
        rpc_metrics();
    if (all || strcmp(what, "dot") == 0)
        dot_metrics();
    if (all || strcmp(what, "ipc") == 0)
        ipc_metrics();
    TRY(aos_finalize());
    return 0;
}
