/* aosrun --hosts: the root of a multi-host job. It starts one daemon per
 * host through the remote-shell command (`RSH host /path/aosrun --daemon
 * ...`, the daemon's stdin and stdout a socket to the root) and judges the
 * job as a single-host aosrun does (supervise.c), from what the daemons
 * report: hellos, blobs and global exits are gathered here and sent back
 * to every host; a PE's end is judged here; stopping means a STOP to
 * every daemon. A host whose daemon never says READY, or whose channel
 * ends before DONE, is reported and stops the job. */
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "aosrun.h"
#include "chan.h"
#include "job.h"

/* The hosts of a job: the uplink polls each one's channel and stdout. */
#define MAX_HOSTS (AOSRUN_UPLINK_FDS - 1)

/* After the job began to stop (or every PE ended): how long a daemon has
 * to finish before its remote shell is killed. */
#define DAEMON_GRACE_MS 3000
/* A daemon that has not said READY this long after its remote shell
 * started, or that has sent nothing (not even its AOSRUN_F_ALIVE, every
 * AOSRUN_ALIVE_MS) this long since, is reported and the job stops: a
 * remote shell waiting for a password or a host key, a stopped daemon,
 * a frozen host or a cut link. */
#define DAEMON_START_MS 60000
#define DAEMON_SILENT_MS 10000
/* The PEs' output the root holds for a slow stdout; beyond, it stops
 * reading the daemons (whose PEs then block, as on a slow terminal). */
#define OUT_HELD_MAX (64u << 20)
/* At the end, how long stdout may take nothing before the rest of the
 * output is dropped: after a failure (a timeout, a signal, a PE's death:
 * the report is out, the user waits for the status), and after success. */
#define OUT_STALL_FAILED_MS 1000
#define OUT_STALL_MS 10000

extern char **environ;

struct host {
    char name[AOSRUN_HOST_NAME_MAX];
    int first, count;   /* its ranks */
    pid_t pid;          /* the remote shell; 0 once reaped */
    int wait_status;
    struct aosrun_chan ch;
    int open;           /* ch is open */
    int ready;          /* READY came */
    int done;           /* DONE came: every PE of this host ended */
    int killed;         /* the root killed its remote shell */
    int32_t daemon_pid;
    long long heard_ms; /* when it started, or last sent anything */
};

/* The PEs' output on its way to the root's stdout, which is written only
 * when poll says it takes more: a reader that stops does not stop the
 * root's timers, signals and reports. */
struct held_output {
    char *data;
    size_t off, len, cap;
    int dropped; /* stdout failed: nobody reads it */
};

struct root {
    struct host *h;
    int nhosts;
    int *host_of;       /* rank -> index in h */
    const char *rsh_line; /* the remote-shell command as given, for reports */
    char **rsh;         /* its words */
    int nrsh;
    char prefix[AOSRUN_HOST_NAME_MAX + 16];
    long long stop_ms;  /* when the job began to stop, or 0 */
    struct held_output out;
    int reading;        /* the daemons' channels are read (out below its most) */
    long long looked_ms; /* when check_silence last ran */
};

static struct root *rt(const struct job *j)
{
    return j->ctx;
}

static const char *where(const struct job *j, int rank)
{
    struct root *r = rt(j);
    if (rank < 0 || rank >= j->total)
        return "";
    snprintf(r->prefix, sizeof r->prefix, "host %s: ", r->h[r->host_of[rank]].name);
    return r->prefix;
}

/* --hosts h1:4,h2:4 -> hosts and their PE counts. Returns the host count,
 * or -1 after a message. */
static int parse_hosts(const char *spec, struct host **out)
{
    int most = 1;
    for (const char *c = spec; *c; c++)
        most += *c == ',';
    struct host *h = calloc((size_t)most, sizeof *h);
    if (h == NULL)
        return -1;
    int n = 0, total = 0;
    for (const char *c = spec;;) {
        const char *comma = strchr(c, ',');
        size_t len = comma ? (size_t)(comma - c) : strlen(c);
        /* The count follows the last colon: an IPv6 address has colons of
         * its own, and may come in brackets ([::1]:4). */
        const char *colon = memrchr(c, ':', len), *name = c;
        size_t name_len = colon ? (size_t)(colon - c) : 0;
        if (name_len >= 2 && name[0] == '[' && name[name_len - 1] == ']') {
            name++;
            name_len -= 2;
        }
        char *end = NULL;
        long count = colon && colon[1] >= '0' && colon[1] <= '9' ? strtol(colon + 1, &end, 10) : 0;
        if (name_len >= sizeof h[n].name) {
            fprintf(stderr, "aosrun: --hosts: host name '%.*s...' longer than %zu characters\n",
                    40, name, sizeof h[n].name - 1);
            free(h);
            return -1;
        }
        if (colon == NULL || name_len == 0 || end != c + len || count < 1 || count > 4096 ||
            (total += (int)count) > 4096) {
            fprintf(stderr,
                    "aosrun: --hosts '%s': expected HOST:COUNT[,HOST:COUNT...] with counts "
                    "from 1 and at most 4096 PEs in all (at '%.*s')\n",
                    spec, (int)len, c);
            free(h);
            return -1;
        }
        /* The name goes to the remote shell as one word after its own: one
         * that looks like an option, or holds blanks, would be taken for
         * something else. */
        const char *bad = name[0] == '-' ? "starts with '-'" : NULL;
        for (size_t k = 0; k < name_len && bad == NULL; k++)
            if ((unsigned char)name[k] <= ' ' || name[k] == 0x7f)
                bad = "holds a blank or a control character";
        if (bad != NULL) {
            fprintf(stderr, "aosrun: --hosts: host name '%.*s' %s\n", (int)name_len, name, bad);
            free(h);
            return -1;
        }
        memcpy(h[n].name, name, name_len);
        for (int k = 0; k < n; k++) {
            if (strcmp(h[k].name, h[n].name) == 0) {
                /* two daemons on one host would bind their PEs to the same
                 * cores and reach each other only over the network */
                fprintf(stderr,
                        "aosrun: --hosts: host '%s' is named twice: name it once, with all "
                        "its PEs (%s:%d)\n",
                        h[n].name, h[n].name, h[k].count + (int)count);
                free(h);
                return -1;
            }
        }
        h[n].count = (int)count;
        h[n].first = n > 0 ? h[n - 1].first + h[n - 1].count : 0;
        n++;
        if (comma == NULL)
            break;
        c = comma + 1;
    }
    *out = h;
    return n;
}

/* --rsh "ssh -p 2222": its words, split on blanks (nothing is quoted). */
static int split_rsh(struct root *r, const char *cmd)
{
    size_t len = strlen(cmd);
    r->rsh_line = cmd;
    r->rsh = calloc(len / 2 + 2, sizeof *r->rsh);
    char *copy = strdup(cmd);
    if (r->rsh == NULL || copy == NULL) {
        free(copy);
        return -1;
    }
    for (char *save = NULL, *w = strtok_r(copy, " \t", &save); w != NULL;
         w = strtok_r(NULL, " \t", &save))
        r->rsh[r->nrsh++] = w;
    if (r->nrsh == 0) {
        fprintf(stderr, "aosrun: --rsh '%s': expected a command\n", cmd);
        free(copy);
        return -1;
    }
    return 0;
}

static void send_start(const struct job *j, struct host *h, int index)
{
    struct aosrun_f_start s = {.magic = AOSRUN_HOSTS_MAGIC,
                               .host = index,
                               .first = h->first,
                               .count = h->count,
                               .npes = j->total};
    /* Then: the host's name, this directory (the PEs start there), and the
     * variables that steer aos and UCX (a remote shell passes none). */
    size_t cap = 4096, len = 0;
    char *rest = malloc(cap);
    char cwd[PATH_MAX];
    if (getcwd(cwd, sizeof cwd) == NULL)
        cwd[0] = '\0';
    const char *words[3] = {h->name, cwd, NULL};
    for (int k = 0; rest != NULL; k++) {
        const char *w = words[0] != NULL && k < 2 ? words[k] : environ[k - 2];
        if (w == NULL)
            break;
        if (k >= 2 && ((strncmp(w, "AOS_", 4) != 0 && strncmp(w, "UCX_", 4) != 0 &&
                        strncmp(w, "SHMEM_", 6) != 0) ||
                       strncmp(w, "AOS_BOOT_FD=", 12) == 0 || strncmp(w, "AOS_RANK=", 9) == 0 ||
                       strncmp(w, "AOS_NPES=", 9) == 0))
            continue;
        size_t wl = strlen(w) + 1;
        if (len + wl > AOSRUN_FRAME_MAX - sizeof s)
            break;
        if (len + wl > cap) {
            char *bigger = realloc(rest, 2 * (len + wl));
            if (bigger == NULL) {
                free(rest);
                rest = NULL;
                break;
            }
            rest = bigger;
            cap = 2 * (len + wl);
        }
        memcpy(rest + len, w, wl);
        len += wl;
    }
    if (rest == NULL)
        h->ch.broken = 1;
    else
        (void)aosrun_chan_send(&h->ch, AOSRUN_F_START, &s, sizeof s, rest, len);
    free(rest);
}

/* A word as a POSIX shell reads it back unchanged: a remote shell (ssh)
 * joins its arguments with blanks and hands the line to the user's shell
 * on the host. Words of only safe characters stay as they are. Called in
 * the child before exec: the copy is never freed. */
static const char *shell_word(const char *w)
{
    static const char safe[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                               "0123456789_-+=./:,@%";
    if (*w != '\0' && strspn(w, safe) == strlen(w))
        return w;
    size_t quotes = 0;
    for (const char *c = w; *c != '\0'; c++)
        quotes += *c == '\'';
    /* 'it'\''s': each ' closes the quote, adds an escaped one, reopens */
    char *q = malloc(strlen(w) + 3 * quotes + 3);
    if (q == NULL)
        _exit(127);
    char *o = q;
    *o++ = '\'';
    for (const char *c = w; *c != '\0'; c++) {
        if (*c == '\'') {
            memcpy(o, "'\\''", 4);
            o += 4;
        } else {
            *o++ = *c;
        }
    }
    *o++ = '\'';
    *o = '\0';
    return q;
}

/* Child: RSH host /path/aosrun --daemon --bind MODE -- prog args (the
 * path and the program's words quoted for the host's shell), in a
 * process group of its own (a Ctrl-C on the terminal is the root's to
 * pass on), with the channel as stdin and stdout. */
static void exec_rsh(struct job *j, int index, int sock)
{
    struct root *r = rt(j);
    const struct host *h = &r->h[index];
    static const char *bind_names[] = {"none", "core", "cluster"};
    char self[PATH_MAX];
    ssize_t sl = readlink("/proc/self/exe", self, sizeof self - 1);
    if (sl <= 0)
        _exit(127);
    self[sl] = '\0';
    int argc = 0;
    while (j->o->argv[argc] != NULL)
        argc++;
    const char **av = calloc((size_t)(r->nrsh + argc + 8), sizeof *av);
    if (av == NULL)
        _exit(127);
    int k = 0;
    for (int i = 0; i < r->nrsh; i++)
        av[k++] = r->rsh[i];
    av[k++] = h->name;
    av[k++] = shell_word(self);
    av[k++] = "--daemon";
    av[k++] = "--bind";
    av[k++] = bind_names[j->o->bind];
    av[k++] = "--";
    for (int i = 0; i < argc; i++)
        av[k++] = shell_word(j->o->argv[i]);
    av[k] = NULL;
    if (dup2(sock, STDIN_FILENO) < 0 || dup2(sock, STDOUT_FILENO) < 0)
        _exit(127);
    execvp(av[0], (char *const *)av);
    fprintf(stderr, "aosrun: host %s: cannot run %s: %s\n", h->name, av[0], strerror(errno));
    _exit(127);
}

static void up_start(struct job *j, const sigset_t *old)
{
    struct root *r = rt(j);
    for (int i = 0; i < r->nhosts; i++) {
        struct host *h = &r->h[i];
        int sock;
        /* If the root dies, the daemon (or the local end of the remote
         * shell) hears of it and stops its PEs. */
        pid_t pid = aosrun_job_spawn(j, i, SIGTERM, old, exec_rsh, &sock);
        if (pid < 0)
            return;
        h->pid = pid;
        h->open = 1;
        h->heard_ms = aosrun_now_ms();
        aosrun_chan_init(&h->ch, sock, sock);
        send_start(j, h, i);
    }
}

/* The host's PEs that have not reported their end never will. */
static void forget_pes(struct job *j, const struct host *h)
{
    for (int rank = h->first; rank < h->first + h->count; rank++) {
        if (j->pes[rank].state == PE_RUNNING) {
            j->pes[rank].state = PE_DONE;
            j->running--;
        }
    }
}

static void close_host(struct host *h)
{
    if (h->open)
        aosrun_chan_close(&h->ch);
    h->open = 0;
}

static void send_all(struct job *j, unsigned type, const void *a, size_t alen, const void *b,
                     size_t blen)
{
    struct root *r = rt(j);
    for (int i = 0; i < r->nhosts; i++)
        if (r->h[i].open)
            (void)aosrun_chan_send(&r->h[i].ch, type, a, alen, b, blen);
}

static void on_hello(struct job *j, struct host *h, const struct aos__boot_peer *m)
{
    int rank = (int)m->hello.rank;
    struct pe *p = &j->pes[rank];
    if (p->said_hello)
        return;
    p->said_hello = 1;
    p->pid = (pid_t)m->hello.pid;
    j->table[rank] = *m;
    j->table[rank].node = (int32_t)(h - rt(j)->h);
    if (++j->hellos == j->total) {
        for (int pe = 0; pe < j->total; pe++)
            send_all(j, AOSRUN_F_HELLO, &j->table[pe], sizeof j->table[pe], NULL, 0);
        j->exchanged = 1;
    }
    aosrun_job_check_missing_hello(j);
}

static void on_blob(struct job *j, int rank, const char *data, uint64_t len)
{
    char *blob = malloc(len + 1);
    int all = blob != NULL ? (memcpy(blob, data, len), aosrun_job_store_blob(j, rank, blob, len))
                           : -1;
    if (all < 0) {
        fprintf(stderr, "aosrun: %sPE %d sent a broken address exchange; stopping the job\n",
                where(j, rank), rank);
        aosrun_job_fail(j, 1, -1);
        return;
    }
    if (!all)
        return;
    for (int pe = 0; pe < j->total; pe++) {
        uint32_t r = (uint32_t)pe;
        send_all(j, AOSRUN_F_BLOB, &r, sizeof r, j->blob[pe], (size_t)j->blob_len[pe]);
    }
    aosrun_job_allgather(j); /* (no PE here: ends the round) */
}

static void on_end(struct job *j, const struct aosrun_f_end *m)
{
    struct pe *p = &j->pes[m->rank];
    if (p->state != PE_RUNNING)
        return;
    p->pid = (pid_t)m->pid;
    p->said_hello = (m->flags & AOSRUN_END_HELLO) != 0;
    p->said_bye = (m->flags & AOSRUN_END_BYE) != 0;
    aosrun_job_judge_end(j, m->rank, m->wait_status);
}

/* Blocking writes to stdout: the fallback when no memory holds output. */
static void write_out_now(const char *p, size_t len)
{
    while (len > 0) {
        ssize_t n = write(STDOUT_FILENO, p, len);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return; /* nobody reads our stdout: the output is lost, not the job */
        p += n;
        len -= (size_t)n;
    }
}

static void hold_output(struct held_output *o, const char *p, size_t len)
{
    if (o->dropped)
        return;
    if (o->off > 0 && o->off == o->len)
        o->off = o->len = 0;
    if (o->len + len > o->cap) {
        size_t want = o->len - o->off + len, cap = o->cap ? o->cap : 65536;
        while (cap < want)
            cap *= 2;
        char *bigger = malloc(cap);
        if (bigger == NULL) { /* as before holding: in order, blocking */
            if (o->len > o->off)
                write_out_now(o->data + o->off, o->len - o->off);
            o->off = o->len = 0;
            write_out_now(p, len);
            return;
        }
        if (o->data != NULL) /* (memcpy from NULL is undefined, even of 0 bytes) */
            memcpy(bigger, o->data + o->off, o->len - o->off);
        free(o->data);
        o->data = bigger;
        o->len -= o->off;
        o->off = 0;
        o->cap = cap;
    }
    memcpy(o->data + o->len, p, len);
    o->len += len;
}

static size_t held(const struct held_output *o)
{
    return o->dropped ? 0 : o->len - o->off;
}

/* One write of what stdout takes now: after poll said POLLOUT, at most
 * PIPE_BUF bytes, which a pipe takes whole without blocking. */
static void write_held(struct held_output *o)
{
    size_t len = held(o) < PIPE_BUF ? held(o) : PIPE_BUF;
    ssize_t n = len > 0 ? write(STDOUT_FILENO, o->data + o->off, len) : 0;
    if (n > 0)
        o->off += (size_t)n;
    else if (n < 0 && errno != EINTR && errno != EAGAIN)
        o->dropped = 1; /* nobody reads our stdout: the output is lost, not the job */
}

/* The job is over: what is held goes out while stdout takes it, until it
 * has taken nothing for stall_ms. */
static void flush_held(struct held_output *o, int stall_ms)
{
    long long last = aosrun_now_ms();
    while (held(o) > 0) {
        long long left = last + stall_ms - aosrun_now_ms();
        struct pollfd pf = {.fd = STDOUT_FILENO, .events = POLLOUT};
        int r = left > 0 ? poll(&pf, 1, (int)left) : 0;
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0) {
            fprintf(stderr, "aosrun: stdout took nothing for %.0f s: %zu bytes of the PEs' "
                            "output are dropped\n", stall_ms / 1000.0, held(o));
            break;
        }
        size_t before = held(o);
        write_held(o);
        if (held(o) < before)
            last = aosrun_now_ms();
    }
    free(o->data);
    *o = (struct held_output){0};
}

static int in_range(const struct host *h, int32_t rank)
{
    return rank >= h->first && rank < h->first + h->count;
}

/* Returns 0, or -1 when the frame makes no sense from this host. */
static int on_frame(struct job *j, struct host *h, const struct aosrun_frame *f, const char *p)
{
    if (f->type == AOSRUN_F_READY && f->len == sizeof(struct aosrun_f_ready) && !h->ready) {
        struct aosrun_f_ready m;
        memcpy(&m, p, sizeof m);
        h->ready = m.magic == AOSRUN_HOSTS_MAGIC;
        h->daemon_pid = m.pid;
        return h->ready ? 0 : -1;
    }
    if (!h->ready)
        return -1;
    if (f->type == AOSRUN_F_HELLO && f->len == sizeof(struct aos__boot_peer)) {
        struct aos__boot_peer m;
        memcpy(&m, p, sizeof m);
        if (!in_range(h, (int32_t)m.hello.rank))
            return -1;
        on_hello(j, h, &m);
    } else if (f->type == AOSRUN_F_BLOB && f->len >= sizeof(uint32_t)) {
        uint32_t rank;
        memcpy(&rank, p, sizeof rank);
        if (rank > INT32_MAX || !in_range(h, (int32_t)rank))
            return -1;
        on_blob(j, (int)rank, p + sizeof rank, f->len - sizeof rank);
    } else if (f->type == AOSRUN_F_EXIT && f->len == sizeof(struct aosrun_f_exit)) {
        struct aosrun_f_exit m;
        memcpy(&m, p, sizeof m);
        if (!in_range(h, m.rank))
            return -1;
        aosrun_job_global_exit(j, m.rank, m.status);
        j->pes[m.rank].said_bye = 1;
    } else if (f->type == AOSRUN_F_END && f->len == sizeof(struct aosrun_f_end)) {
        struct aosrun_f_end m;
        memcpy(&m, p, sizeof m);
        if (!in_range(h, m.rank))
            return -1;
        on_end(j, &m);
    } else if (f->type == AOSRUN_F_OUT) {
        hold_output(&rt(j)->out, p, f->len);
    } else if (f->type == AOSRUN_F_ALIVE) {
        /* (heard: read_host notes the time of every read) */
    } else if (f->type == AOSRUN_F_FAIL && f->len == sizeof(int32_t)) {
        int32_t status;
        memcpy(&status, p, sizeof status);
        aosrun_job_fail(j, status, -1);
    } else if (f->type == AOSRUN_F_DONE) {
        h->done = 1;
        forget_pes(j, h);
    } else {
        return -1;
    }
    return 0;
}

static void describe_status(int ws, char *buf, size_t len)
{
    /* The remote shell's status: a shell or ssh reports a process that a
     * signal killed as 128 + the signal. */
    int sig = WIFEXITED(ws) ? WEXITSTATUS(ws) - 128 : 0;
    if (sig > 0 && sig < 65)
        snprintf(buf, len, "exited with status %d (as a remote shell reports one killed by "
                 "signal %d, %s)", WEXITSTATUS(ws), sig, strsignal(sig));
    else if (WIFEXITED(ws))
        snprintf(buf, len, "exited with status %d", WEXITSTATUS(ws));
    else if (WIFSIGNALED(ws))
        snprintf(buf, len, "was killed by signal %d (%s)", WTERMSIG(ws), strsignal(WTERMSIG(ws)));
    else
        snprintf(buf, len, "ended (wait status %#x)", ws);
}

/* The host's channel ended, or its remote shell did: reports a daemon
 * that ended before DONE once both have happened. */
static void host_over(struct job *j, struct host *h)
{
    if (h->open || h->pid != 0 || h->done)
        return;
    h->done = 1;
    forget_pes(j, h);
    if (h->killed)
        return;
    char how[128];
    describe_status(h->wait_status, how, sizeof how);
    if (!h->ready)
        fprintf(stderr,
                "aosrun: host %s: cannot start the daemon: '%s %s ...' %s before the daemon "
                "was ready; stopping the job\n",
                h->name, rt(j)->rsh_line, h->name, how);
    else
        fprintf(stderr, "aosrun: host %s: daemon (pid %d) %s before its PEs ended; stopping "
                        "the job\n", h->name, (int)h->daemon_pid, how);
    aosrun_job_fail(j, 1, -1);
}

/* Something that is no frame of ours came from the host: says what it
 * looked like, kills the remote shell, fails the job. */
static void garbled(struct job *j, struct host *h)
{
    if (!h->ready) {
        /* Its first line, printable: a login banner or a shell's greeting. */
        char seen[61];
        size_t n = 0, avail = h->ch.in_len - h->ch.in_off;
        for (size_t i = 0; i < avail && n < sizeof seen - 1; i++) {
            char c = h->ch.in[h->ch.in_off + i];
            if ((c == '\n' || c == '\r') && n > 0)
                break;
            seen[n++] = c >= 32 && c < 127 ? c : '.';
        }
        seen[n] = '\0';
        fprintf(stderr, "aosrun: host %s: the remote shell wrote to its stdout before the "
                        "daemon started ('%s'): a login banner or message? aosrun needs a "
                        "remote shell whose stdout is the command's alone\n", h->name, seen);
    } else {
        fprintf(stderr, "aosrun: host %s: the daemon sent a message this aosrun does not "
                        "expect (another version, or not an aosrun daemon?)\n", h->name);
    }
    close_host(h);
    if (h->pid != 0) {
        h->killed = 1; /* reported here, not as a death of its own */
        kill(-h->pid, SIGKILL);
    }
    aosrun_job_fail(j, 1, -1);
}

static void read_host(struct job *j, struct host *h)
{
    aosrun_chan_read(&h->ch);
    h->heard_ms = aosrun_now_ms();
    struct aosrun_frame f;
    const char *p;
    int r;
    while (h->open && !h->done && (r = aosrun_chan_next(&h->ch, &f, &p)) != 0) {
        if (r < 0 || on_frame(j, h, &f, p) != 0)
            garbled(j, h);
    }
    if (h->open && h->done) /* after DONE: no frames; what a remote shell adds is not ours */
        h->ch.in_off = h->ch.in_len = 0;
    if (h->open && h->ch.eof) {
        close_host(h);
        if (!h->done && !h->killed)
            aosrun_job_fail(j, 1, -1); /* (reported with its status once reaped) */
        host_over(j, h);
    }
}

static void up_child(struct job *j, pid_t pid, int ws)
{
    struct root *r = rt(j);
    for (int i = 0; i < r->nhosts; i++) {
        struct host *h = &r->h[i];
        if (h->pid != pid)
            continue;
        h->pid = 0;
        h->wait_status = ws;
        if (h->open) /* what it sent before it ended */
            read_host(j, h);
        host_over(j, h);
    }
}

static void up_signal(struct job *j, int sig)
{
    struct root *r = rt(j);
    long long now = aosrun_now_ms();
    if (r->stop_ms == 0)
        r->stop_ms = now;
    int32_t s = sig;
    send_all(j, AOSRUN_F_STOP, &s, sizeof s, NULL, 0);
    if (sig != SIGKILL || now - r->stop_ms < DAEMON_GRACE_MS)
        return;
    for (int i = 0; i < r->nhosts; i++) {
        struct host *h = &r->h[i];
        if (h->pid != 0) {
            if (!h->ready)
                fprintf(stderr, "aosrun: host %s: no daemon said it was ready through the "
                                "remote shell; killing it\n", h->name);
            else if (!h->done)
                fprintf(stderr, "aosrun: host %s: the daemon does not finish; killing it\n",
                        h->name);
            h->killed = 1;
            kill(-h->pid, SIGKILL);
        }
    }
}

static void check_silence(struct job *j);

static int up_pollfds(struct job *j, struct pollfd *fds, int max)
{
    struct root *r = rt(j);
    int m = 0;
    /* Every PE has ended: the daemons have a grace to go, then are killed. */
    if (j->running == 0 && !j->stopping) {
        j->stopping = 1;
        j->kill_at_ms = aosrun_now_ms() + DAEMON_GRACE_MS;
        r->stop_ms = aosrun_now_ms();
    }
    /* Output held for stdout, and beyond its most the channels unread (as
     * a daemon stops reading its PEs). Their silence then is not theirs. */
    int reading = held(&r->out) < OUT_HELD_MAX;
    for (int i = 0; reading && !r->reading && i < r->nhosts; i++)
        r->h[i].heard_ms = aosrun_now_ms();
    r->reading = reading;
    check_silence(j);
    if (held(&r->out) > 0 && m < max)
        fds[m++] = (struct pollfd){.fd = STDOUT_FILENO, .events = POLLOUT};
    for (int i = 0; i < r->nhosts && m < max; i++) {
        struct host *h = &r->h[i];
        short events = (short)((reading ? POLLIN : 0) |
                               (aosrun_chan_pending(&h->ch) > 0 ? POLLOUT : 0));
        if (h->open && events != 0)
            fds[m++] = (struct pollfd){.fd = h->ch.in_fd, .events = events};
    }
    return m;
}

/* A daemon that never starts, or that goes silent: reported, and the job
 * stops. Its remote shell is killed: a stopped or cut-off daemon would
 * never go by itself. */
static void check_silence(struct job *j)
{
    struct root *r = rt(j);
    long long now = aosrun_now_ms();
    /* The loop comes round every AOSRUN_ALIVE_MS: a longer gap means this
     * process was stopped (Ctrl-Z) or starved, and the daemons' silence
     * meanwhile is its own. */
    if (r->looked_ms != 0 && now - r->looked_ms > 3 * AOSRUN_ALIVE_MS)
        for (int i = 0; i < r->nhosts; i++)
            r->h[i].heard_ms = now;
    r->looked_ms = now;
    for (int i = 0; r->reading && i < r->nhosts; i++) {
        struct host *h = &r->h[i];
        if (!h->open || h->done || h->killed)
            continue;
        if (!h->ready && now - h->heard_ms >= DAEMON_START_MS)
            fprintf(stderr, "aosrun: host %s: no daemon after %d s: the remote shell '%s %s' "
                            "has not started it (waiting for a password or a host key? aosrun "
                            "needs a remote shell that asks nothing); stopping the job\n",
                    h->name, DAEMON_START_MS / 1000, r->rsh_line, h->name);
        else if (h->ready && now - h->heard_ms >= DAEMON_SILENT_MS)
            fprintf(stderr, "aosrun: host %s: the daemon (pid %d) has sent nothing for %d s "
                            "(stopped, or the host or its link is down); stopping the job\n",
                    h->name, (int)h->daemon_pid, DAEMON_SILENT_MS / 1000);
        else
            continue;
        close_host(h);
        if (h->pid != 0) {
            h->killed = 1;
            kill(-h->pid, SIGKILL);
        }
        forget_pes(j, h);
        aosrun_job_fail(j, 1, -1);
    }
}

static long long up_wake_ms(struct job *j)
{
    struct root *r = rt(j);
    for (int i = 0; i < r->nhosts; i++)
        if (r->h[i].open && !r->h[i].done)
            return aosrun_now_ms() + AOSRUN_ALIVE_MS; /* look again then */
    return -1;
}

static void up_events(struct job *j, const struct pollfd *fds, int n)
{
    struct root *r = rt(j);
    for (int k = 0; k < n; k++) {
        if (fds[k].revents == 0)
            continue;
        if (fds[k].fd == STDOUT_FILENO) {
            if (fds[k].revents & (POLLERR | POLLHUP | POLLNVAL))
                r->out.dropped = 1; /* nobody reads it */
            else
                write_held(&r->out);
            continue;
        }
        for (int i = 0; i < r->nhosts; i++) {
            struct host *h = &r->h[i];
            if (!h->open || h->ch.in_fd != fds[k].fd)
                continue;
            if (fds[k].revents & POLLOUT)
                aosrun_chan_flush(&h->ch);
            if (fds[k].revents & (POLLIN | POLLHUP | POLLERR))
                read_host(j, h);
        }
    }
}

static int up_busy(struct job *j)
{
    struct root *r = rt(j);
    for (int i = 0; i < r->nhosts; i++)
        if (r->h[i].pid != 0 || r->h[i].open)
            return 1;
    return 0;
}

static const struct aosrun_uplink root_uplink = {
    .signal = up_signal,
    .child = up_child,
    .start = up_start,
    .pollfds = up_pollfds,
    .events = up_events,
    .busy = up_busy,
    .wake_ms = up_wake_ms,
    .where = where,
};

int aosrun_hosts_run(struct aosrun_options *o)
{
    struct root r = {0};
    r.nhosts = parse_hosts(o->hosts, &r.h);
    if (r.nhosts < 0)
        return 2;
    if (r.nhosts > MAX_HOSTS) {
        fprintf(stderr, "aosrun: --hosts: at most %d hosts\n", MAX_HOSTS);
        free(r.h);
        return 2;
    }
    int total = r.h[r.nhosts - 1].first + r.h[r.nhosts - 1].count;
    if (o->npes != 0 && o->npes != total) {
        fprintf(stderr, "aosrun: -n %d but --hosts '%s' has %d PEs\n", o->npes, o->hosts,
                total);
        free(r.h);
        return 2;
    }
    o->npes = total;
    int status = 1;
    r.host_of = calloc((size_t)total, sizeof *r.host_of);
    if (r.host_of == NULL || split_rsh(&r, o->rsh != NULL ? o->rsh : "ssh") != 0) {
        status = r.host_of == NULL ? 1 : 2;
        goto out;
    }
    for (int i = 0; i < r.nhosts; i++)
        for (int k = 0; k < r.h[i].count; k++)
            r.host_of[r.h[i].first + k] = i;
    aosrun_catch_sigpipe();
    struct job j;
    if (aosrun_job_init(&j, o, NULL, 0, total, total, 0) != 0)
        goto out;
    j.up = &root_uplink;
    j.ctx = &r;
    j.node = -1;
    r.reading = 1;
    status = aosrun_job_run(&j);
    for (int i = 0; i < r.nhosts; i++)
        close_host(&r.h[i]);
    flush_held(&r.out, status != 0 ? OUT_STALL_FAILED_MS : OUT_STALL_MS);
out:
    if (r.rsh != NULL && r.nrsh > 0)
        free(r.rsh[0]);
    free(r.rsh);
    free(r.host_of);
    free(r.h);
    return status;
}
