/* aosrun --daemon: one host's part of a --hosts job. It starts and
 * supervises this host's PEs as a single-host aosrun does (supervise.c);
 * what needs every PE goes to the root over stdin/stdout (hosts_proto.h):
 * hellos and blobs up, the full table and every blob back down, and each
 * PE's end, which the root judges. The PEs' stdout goes up the same
 * channel, so that nothing they print can break a frame. */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "aosrun.h"
#include "chan.h"
#include "job.h"

/* Output waiting for the root beyond this: stop reading the PEs' stdout
 * until it drains (they block on a full pipe, as on a slow terminal). */
#define OUT_BACKLOG (1u << 20)
/* After the last PE ended: how long what it started may keep stdout open,
 * and how long the root may take to read the rest. */
#define OUT_DRAIN_MS 1000
#define CHAN_DRAIN_MS 3000

struct daemon {
    struct aosrun_chan ch;
    int out_rd;      /* the PEs' stdout, read end; -1 at EOF */
    int root_gone;
    long long alive_ms; /* when the root last heard ALIVE (or anything) */
    char name[AOSRUN_HOST_NAME_MAX];
    char prefix[AOSRUN_HOST_NAME_MAX + 16];
};

static struct daemon *dmn(const struct job *j)
{
    return j->ctx;
}

static void send_up(struct job *j, unsigned type, const void *a, size_t alen, const void *b,
                    size_t blen)
{
    struct daemon *d = dmn(j);
    if (!d->root_gone)
        (void)aosrun_chan_send(&d->ch, type, a, alen, b, blen);
}

static void up_hello(struct job *j, int rank)
{
    send_up(j, AOSRUN_F_HELLO, &j->table[rank], sizeof j->table[rank], NULL, 0);
}

static void up_blob(struct job *j, int rank, const char *blob, uint64_t len)
{
    uint32_t r = (uint32_t)rank;
    send_up(j, AOSRUN_F_BLOB, &r, sizeof r, blob, (size_t)len);
}

static void up_global_exit(struct job *j, int rank, int status)
{
    struct aosrun_f_exit m = {.rank = rank, .status = status};
    send_up(j, AOSRUN_F_EXIT, &m, sizeof m, NULL, 0);
}

static void up_end(struct job *j, int rank, int ws)
{
    const struct pe *p = &j->pes[rank - j->first];
    struct aosrun_f_end m = {.rank = rank,
                             .pid = (int32_t)p->pid,
                             .wait_status = ws,
                             .flags = (p->said_hello ? AOSRUN_END_HELLO : 0u) |
                                      (p->said_bye ? AOSRUN_END_BYE : 0u)};
    send_up(j, AOSRUN_F_END, &m, sizeof m, NULL, 0);
}

static void up_failed(struct job *j, int status)
{
    int32_t s = status;
    send_up(j, AOSRUN_F_FAIL, &s, sizeof s, NULL, 0);
}

static const char *up_where(const struct job *j, int rank)
{
    (void)rank;
    return dmn(j)->prefix;
}

/* Nobody is left to judge the PEs or to read what they print. */
static void root_gone(struct job *j, const char *why)
{
    struct daemon *d = dmn(j);
    if (d->root_gone)
        return;
    d->root_gone = 1;
    if (j->running > 0)
        fprintf(stderr, "aosrun: %s%s; killing this host's PEs\n", d->prefix, why);
    aosrun_job_stop(j, SIGKILL);
}

static void up_start(struct job *j, const sigset_t *old)
{
    aosrun_job_start_pes(j, old);
    close(j->pe_stdout); /* only the PEs write there: EOF when they are all gone */
    j->pe_stdout = -1;
}

static void on_frame(struct job *j, const struct aosrun_frame *f, const char *p)
{
    if (f->type == AOSRUN_F_HELLO && f->len == sizeof(struct aos__boot_peer) &&
        j->table_in < j->total) {
        memcpy(&j->table[j->table_in], p, sizeof j->table[0]);
        if (++j->table_in == j->total)
            aosrun_job_exchange(j);
    } else if (f->type == AOSRUN_F_BLOB && f->len >= sizeof(uint32_t)) {
        uint32_t rank;
        memcpy(&rank, p, sizeof rank);
        uint64_t len = f->len - sizeof rank;
        char *blob = rank < (uint32_t)j->total ? malloc(len + 1) : NULL;
        if (blob == NULL) {
            root_gone(j, "the root sent a blob it cannot keep");
            return;
        }
        memcpy(blob, p + sizeof rank, len);
        if (aosrun_job_store_blob(j, (int)rank, blob, len) == 1)
            aosrun_job_allgather(j);
    } else if (f->type == AOSRUN_F_STOP && f->len == sizeof(int32_t)) {
        int32_t sig;
        memcpy(&sig, p, sizeof sig);
        aosrun_job_stop(j, sig);
    } else {
        root_gone(j, "the root sent a message this aosrun does not know (another version?)");
    }
}

static int up_pollfds(struct job *j, struct pollfd *fds, int max)
{
    struct daemon *d = dmn(j);
    int m = 0;
    if (d->root_gone || max < 3)
        return 0;
    if (aosrun_now_ms() - d->alive_ms >= AOSRUN_ALIVE_MS) { /* the root judges silence */
        send_up(j, AOSRUN_F_ALIVE, NULL, 0, NULL, 0);
        d->alive_ms = aosrun_now_ms();
    }
    fds[m++] = (struct pollfd){.fd = d->ch.in_fd, .events = POLLIN};
    if (aosrun_chan_pending(&d->ch) > 0)
        fds[m++] = (struct pollfd){.fd = d->ch.out_fd, .events = POLLOUT};
    if (d->out_rd >= 0 && aosrun_chan_pending(&d->ch) < OUT_BACKLOG)
        fds[m++] = (struct pollfd){.fd = d->out_rd, .events = POLLIN};
    return m;
}

/* Passes what the PEs wrote on; returns 0 at EOF (or when nobody reads). */
static int forward_output(struct job *j)
{
    struct daemon *d = dmn(j);
    char buf[65536];
    ssize_t n = read(d->out_rd, buf, sizeof buf);
    if (n < 0 && (errno == EINTR || errno == EAGAIN))
        return 1;
    if (n <= 0 || d->root_gone) {
        close(d->out_rd);
        d->out_rd = -1;
        return 0;
    }
    send_up(j, AOSRUN_F_OUT, buf, (size_t)n, NULL, 0);
    return 1;
}

static void up_events(struct job *j, const struct pollfd *fds, int n)
{
    struct daemon *d = dmn(j);
    for (int k = 0; k < n && !d->root_gone; k++) {
        if (fds[k].revents == 0)
            continue;
        if (fds[k].fd == d->out_rd) {
            (void)forward_output(j);
        } else if (fds[k].events & POLLOUT) {
            aosrun_chan_flush(&d->ch);
        } else {
            aosrun_chan_read(&d->ch);
            struct aosrun_frame f;
            const char *p;
            int r;
            while (!d->root_gone && (r = aosrun_chan_next(&d->ch, &f, &p)) != 0) {
                if (r < 0)
                    root_gone(j, "the root sent a malformed message");
                else
                    on_frame(j, &f, p);
            }
            if (d->ch.eof)
                root_gone(j, "the root aosrun is gone");
        }
        if (d->ch.broken)
            root_gone(j, "the root aosrun is gone");
    }
}

static long long up_wake_ms(struct job *j)
{
    return dmn(j)->root_gone ? -1 : dmn(j)->alive_ms + AOSRUN_ALIVE_MS;
}

static const struct aosrun_uplink daemon_uplink = {
    .hello = up_hello,
    .blob = up_blob,
    .global_exit = up_global_exit,
    .end = up_end,
    .failed = up_failed,
    .start = up_start,
    .pollfds = up_pollfds,
    .events = up_events,
    .wake_ms = up_wake_ms,
    .where = up_where,
};

/* Waits for START; fills d->name, changes to the root's directory and
 * takes its variables. Returns 0, or -1 after a message. */
static int read_start(struct daemon *d, struct aosrun_f_start *s)
{
    struct aosrun_frame f;
    const char *p = NULL;
    int r = 0;
    while (!d->ch.eof && (r = aosrun_chan_next(&d->ch, &f, &p)) == 0) {
        struct pollfd pf = {.fd = d->ch.in_fd, .events = POLLIN};
        if (poll(&pf, 1, -1) < 0 && errno != EINTR)
            break;
        aosrun_chan_read(&d->ch);
    }
    if (r != 1 || f.type != AOSRUN_F_START || f.len < sizeof *s) {
        fprintf(stderr, "aosrun --daemon: no start message from the root aosrun%s\n",
                r == 1 ? " (another version?)" : "");
        return -1;
    }
    memcpy(s, p, sizeof *s);
    /* then NUL-terminated: the host name, the root's directory, NAME=VALUE... */
    const char *str = p + sizeof *s, *end = p + f.len;
    if (s->magic != AOSRUN_HOSTS_MAGIC || s->npes < 1 || s->count < 1 || s->first < 0 ||
        s->first > s->npes - s->count || end[-1] != '\0') {
        fprintf(stderr, "aosrun --daemon: the root aosrun's start message is not this "
                        "version's\n");
        return -1;
    }
    snprintf(d->name, sizeof d->name, "%s", str);
    snprintf(d->prefix, sizeof d->prefix, "host %s: ", d->name);
    str += strlen(str) + 1;
    if (str < end && chdir(str) != 0)
        fprintf(stderr, "aosrun: %scannot enter %s (%s); the PEs start in %s\n", d->prefix,
                str, strerror(errno), getenv("HOME") ? getenv("HOME") : "the daemon's directory");
    if (str < end)
        str += strlen(str) + 1;
    for (; str < end; str += strlen(str) + 1) {
        const char *eq = strchr(str, '=');
        if (eq == NULL || eq == str)
            continue;
        char name[256];
        if ((size_t)(eq - str) >= sizeof name)
            continue;
        memcpy(name, str, (size_t)(eq - str));
        name[eq - str] = '\0';
        setenv(name, eq + 1, 1);
    }
    return 0;
}

/* The channel moves off stdin and stdout: the PEs read /dev/null, and a
 * stray write to this process's stdout lands on stderr. */
static int take_channel(struct daemon *d)
{
    int in = fcntl(STDIN_FILENO, F_DUPFD_CLOEXEC, 3);
    int out = fcntl(STDOUT_FILENO, F_DUPFD_CLOEXEC, 3);
    int null = open("/dev/null", O_RDONLY);
    if (in < 0 || out < 0 || null < 0 || dup2(null, STDIN_FILENO) < 0 ||
        dup2(STDERR_FILENO, STDOUT_FILENO) < 0) {
        perror("aosrun --daemon: standard streams");
        return -1;
    }
    close(null);
    aosrun_chan_init(&d->ch, in, out);
    return 0;
}

int aosrun_daemon_run(struct aosrun_options *o)
{
    struct daemon d = {.out_rd = -1};
    struct aosrun_f_start s;
    aosrun_catch_sigpipe();
    if (take_channel(&d) != 0)
        return 1;
    if (read_start(&d, &s) != 0) {
        aosrun_chan_close(&d.ch);
        return 1;
    }
    o->npes = s.count;
    o->timeout_s = 0; /* the root keeps the time */
    int status = 1;
    struct aosrun_topology t = {0};
    struct job j;
    int out[2];
    if (aosrun_raise_fd_limit(o) != 0 || aosrun_topology_plan(&t, o->bind, s.count) != 0)
        goto out_topo;
    if (pipe2(out, O_CLOEXEC) != 0) {
        perror("aosrun --daemon: pipe");
        goto out_topo;
    }
    struct aosrun_f_ready ready = {.magic = AOSRUN_HOSTS_MAGIC, .pid = (int32_t)getpid()};
    if (aosrun_chan_send(&d.ch, AOSRUN_F_READY, &ready, sizeof ready, NULL, 0) != 0 ||
        aosrun_job_init(&j, o, &t, s.first, s.count, s.npes, 1) != 0)
        goto out_pipe;
    j.node = s.host;
    j.up = &daemon_uplink;
    j.ctx = &d;
    j.pe_stdout = out[1];
    d.out_rd = out[0];
    d.alive_ms = aosrun_now_ms();
    status = aosrun_job_run(&j);
    /* What the PEs printed last, then the end. */
    long long until = aosrun_now_ms() + OUT_DRAIN_MS;
    while (d.out_rd >= 0 && !d.root_gone) {
        long long left = until - aosrun_now_ms();
        struct pollfd pf = {.fd = d.out_rd, .events = POLLIN};
        if (left <= 0 || poll(&pf, 1, (int)left) == 0)
            break;
        if (forward_output(&j) && aosrun_chan_pending(&d.ch) >= OUT_BACKLOG)
            aosrun_chan_drain(&d.ch, CHAN_DRAIN_MS);
    }
    if (d.out_rd >= 0)
        close(d.out_rd);
    send_up(&j, AOSRUN_F_DONE, NULL, 0, NULL, 0);
    aosrun_chan_drain(&d.ch, CHAN_DRAIN_MS);
    aosrun_chan_close(&d.ch);
    aosrun_topology_free(&t);
    return status;

out_pipe:
    close(out[0]);
    close(out[1]);
out_topo:
    aosrun_topology_free(&t);
    aosrun_chan_close(&d.ch);
    return status;
}
