/* Starting, bootstrapping and supervising the PEs (job.h: on a single host,
 * as a multi-host daemon, and the judging half of it in the root).
 *
 * Every PE gets one end of a socketpair (its number in AOS_BOOT_FD): no file
 * is created anywhere, so nothing can be left behind. The PEs die with
 * aosrun (PR_SET_PDEATHSIG), and aosrun stops all of them when one fails:
 * SIGTERM first, SIGKILL GRACE_MS later. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "aosrun.h"
#include "arch/atomics.h"
#include "job.h"
#include "core/boot_proto.h"
#include "core/layout.h"
#include "core/fdpass.h"

#define GRACE_MS 300
/* The header's first line (magic .. finalized): the page that holds it. */
#define HEADER_MAP_LEN offsetof(struct aos__arena_header, bell)
#define EXIT_TIMEOUT 124

long long aosrun_now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* "host NAME: " before a message about PE rank, or "". */
static const char *where(const struct job *j, int rank)
{
    return j->up != NULL && j->up->where != NULL ? j->up->where(j, rank) : "";
}

/* Each PE leads a process group of its own (start_pe): signalling the group
 * reaches what the PE started too (a wrapper shell's program, a helper, a
 * background sleep), even after the PE itself has ended. */
static void signal_all(struct job *j, int sig)
{
    if (!j->local) {
        j->up->signal(j, sig);
        return;
    }
    for (int i = 0; i < j->n; i++)
        if (j->pes[i].pid > 0)
            kill(-j->pes[i].pid, sig);
}

static void stop_all(struct job *j)
{
    if (j->stopping)
        return;
    j->stopping = 1;
    j->kill_at_ms = aosrun_now_ms() + GRACE_MS;
    signal_all(j, SIGTERM);
}

void aosrun_job_stop(struct job *j, int sig)
{
    if (!j->stopping) {
        j->stopping = 1;
        j->kill_at_ms = aosrun_now_ms() + GRACE_MS;
    }
    signal_all(j, sig);
}

void aosrun_job_fail(struct job *j, int status, int pe)
{
    if (!j->failed) {
        j->failed = 1;
        j->exit_status = status;
        j->failed_pe = pe;
        if (j->up != NULL && j->up->failed != NULL)
            j->up->failed(j, status);
    }
    stop_all(j);
}

static void close_arena_fds(struct job *j)
{
    for (int i = 0; i < j->n; i++) {
        if (j->pes[i].arena_fd >= 0)
            close(j->pes[i].arena_fd);
        j->pes[i].arena_fd = -1;
    }
}

/* The PEs of this host share memory: each gets the others' memfds. */
static int arena_of(const struct job *j, int rank)
{
    int i = rank - j->first;
    return j->local && i >= 0 && i < j->n ? j->pes[i].arena_fd : -1;
}

/* The PEs' memory descriptors go with the exchange's messages: kept until
 * every PE's socket has taken those. */
static void release_arena_fds(struct job *j)
{
    for (int i = 0; i < j->n; i++)
        if (aosrun_outbox_holds_fd(&j->pes[i].out))
            return;
    close_arena_fds(j);
}

static void close_boot_socket(struct pe *p);

/* Sending to PE i failed (errno). A PE whose end is gone is reported by its
 * end (EOF, SIGCHLD); any other failure leaves it waiting for data that
 * will not come, so the job stops. */
static void send_failed(struct job *j, int i)
{
    if (errno == EPIPE || errno == ECONNRESET)
        return;
    int rank = j->first + i;
    fprintf(stderr, "aosrun: %scannot send PE %d its start-up data: %s; stopping the job\n",
            where(j, rank), rank, strerror(errno));
    close_boot_socket(&j->pes[i]);
    aosrun_job_fail(j, 1, -1);
}

/* One message (a, b, fd) to every PE here, through their outboxes. */
static void send_all_pes(struct job *j, const void *a, size_t alen, const void *b, size_t blen,
                         int fd)
{
    struct aosrun_outbox_item *it = aosrun_outbox_item(a, alen, b, blen, fd);
    if (it == NULL) {
        fprintf(stderr, "aosrun: out of memory for the PEs' start-up data; stopping the job\n");
        aosrun_job_fail(j, 1, -1);
        return;
    }
    for (int i = 0; i < j->n && !j->failed; i++) {
        struct pe *p = &j->pes[i];
        if (p->sock >= 0 && aosrun_outbox_send(&p->out, p->sock, it) != 0)
            send_failed(j, i);
    }
    aosrun_outbox_item_release(it);
}

void aosrun_job_exchange(struct job *j)
{
    /* In rank order, each with that PE's memory if it runs here. */
    for (int from = 0; from < j->total && !j->failed; from++)
        send_all_pes(j, &j->table[from], sizeof j->table[from], NULL, 0, arena_of(j, from));
    j->exchanged = 1;
    release_arena_fds(j);
}

int aosrun_job_store_blob(struct job *j, int rank, char *blob, uint64_t len)
{
    if (j->blob[rank] != NULL) {
        free(blob);
        return -1;
    }
    j->blob[rank] = blob;
    j->blob_len[rank] = len;
    return ++j->blobs == j->total;
}

void aosrun_job_allgather(struct job *j)
{
    /* In rank order, each blob after its header: one copy for all PEs. */
    for (int from = 0; j->local && from < j->total && !j->failed; from++) {
        struct aos__boot_hello h = j->table[from].hello;
        h.magic = AOS__BOOT_BLOB_MAGIC;
        h.rank = (uint32_t)from;
        h.static_len = j->blob_len[from];
        send_all_pes(j, &h, sizeof h, j->blob[from], j->blob_len[from], -1);
    }
    for (int i = 0; i < j->total; i++) {
        free(j->blob[i]);
        j->blob[i] = NULL;
        j->blob_len[i] = 0;
    }
    j->blobs = 0;
}

/* How long a PE's message may stand half sent: a PE sends each in one go,
 * so a part that stays is a broken PE's, or a stray writer's (a child that
 * inherited the socket). */
#define PARTIAL_MESSAGE_MS 2000
/* How often the loop looks again at a socket that holds part of one. */
#define PARTIAL_RECHECK_MS 20

/* len bytes of a blob that follows its header, as the PE sends them (at
 * once, after the header): the loop must never block for good on a PE, so
 * the body not whole within PARTIAL_MESSAGE_MS gives up. */
static int recv_blob(int sock, char *buf, size_t len)
{
    long long until = aosrun_now_ms() + PARTIAL_MESSAGE_MS;
    while (len > 0) {
        long long left = until - aosrun_now_ms();
        if (left <= 0)
            return -1;
        struct pollfd pf = {.fd = sock, .events = POLLIN};
        int r = poll(&pf, 1, (int)left);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            return -1;
        ssize_t n = recv(sock, buf, len, MSG_DONTWAIT);
        if (n < 0 && (errno == EINTR || errno == EAGAIN || errno == EWOULDBLOCK))
            continue;
        if (n <= 0)
            return -1;
        buf += n;
        len -= (size_t)n;
    }
    return 0;
}

static void on_blob(struct job *j, int i, const struct aos__boot_hello *h)
{
    struct pe *p = &j->pes[i];
    int rank = j->first + i;
    /* A PE reads every answer of a round before it sends its next blob, so
     * its outbox is empty by then: one that is not is no aos PE, and would
     * pile up answers here without end. */
    char *blob = h->static_len <= AOS__BOOT_BLOB_MAX && !aosrun_outbox_waiting(&p->out)
                     ? malloc(h->static_len + 1)
                     : NULL;
    int got = blob != NULL && recv_blob(p->sock, blob, h->static_len) == 0;
    if (got && j->up != NULL && j->up->blob != NULL) {
        j->up->blob(j, rank, blob, h->static_len);
        free(blob);
        return;
    }
    int all = got ? aosrun_job_store_blob(j, rank, blob, h->static_len) : -1;
    if (!got || all < 0) {
        if (!got)
            free(blob);
        fprintf(stderr, "aosrun: %sPE %d sent a broken address exchange; stopping the job\n",
                where(j, rank), rank);
        aosrun_job_fail(j, 1, -1);
        return;
    }
    if (all)
        aosrun_job_allgather(j);
}

void aosrun_job_check_missing_hello(struct job *j)
{
    if (j->hellos == 0 || j->stopping)
        return;
    for (int i = 0; i < j->n; i++) {
        struct pe *p = &j->pes[i];
        if (p->state == PE_DONE && !p->said_hello) {
            fprintf(stderr,
                    "aosrun: %sPE %d (pid %d) exited without calling aos_init while other PEs "
                    "wait in it; stopping them\n",
                    where(j, j->first + i), j->first + i, (int)p->pid);
            aosrun_job_fail(j, 1, -1);
            return;
        }
    }
}

/* A PE that ended without saying hello while others have: they would wait
 * for it in aos_init forever. The root judges that for every host. */
static void check_missing_hello(struct job *j)
{
    if (j->up == NULL)
        aosrun_job_check_missing_hello(j);
}

void aosrun_job_global_exit(struct job *j, int rank, int status)
{
    /* aos_global_exit: the PE's status is the job's, even 0. */
    if (j->stopping)
        return;
    if (j->o->verbose || status != 0)
        fprintf(stderr, "aosrun: %sPE %d called global exit with status %d; stopping "
                        "the other PEs\n", where(j, rank), rank, status);
    aosrun_job_fail(j, status, rank);
}

/* What waits on a PE's socket: 1 a whole message's header, an end or an
 * error (on_boot_message reads it); 0 nothing (a readiness reported before
 * another read took the data); -1 part of a header. Peeked, never waited
 * for: a child of the PE that holds the socket keeps it from ending. */
static int message_waiting(const struct pe *p)
{
    struct aos__boot_hello h;
    ssize_t n = recv(p->sock, &h, sizeof h, MSG_PEEK | MSG_DONTWAIT);
    if (n < 0)
        return errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR ? 0 : 1;
    return n == 0 || (size_t)n == sizeof h ? 1 : -1;
}

static void close_boot_socket(struct pe *p)
{
    aosrun_outbox_clear(&p->out);
    close(p->sock);
    p->sock = -1;
    p->partial_since_ms = 0;
}

/* Messages: a hello (with the arena fd), then a bye from aos_finalize; EOF
 * when the PE closes its end. Only after message_waiting said 1. */
static void on_boot_message(struct job *j, int i)
{
    struct pe *p = &j->pes[i];
    int rank = j->first + i;
    struct aos__boot_hello h;
    int fd = -1;
    errno = 0;
    int got = aos__recv_with_fd(p->sock, &h, sizeof h, &fd);
    if (got == 0 && h.magic == AOS__BOOT_EXIT_MAGIC) {
        if (fd >= 0)
            close(fd);
        if (j->up != NULL && j->up->global_exit != NULL)
            j->up->global_exit(j, rank, (int)h.static_len);
        else
            aosrun_job_global_exit(j, rank, (int)h.static_len);
        p->said_bye = 1;
        return;
    }
    if (got == 0 && h.magic == AOS__BOOT_BLOB_MAGIC && p->said_hello) {
        if (fd >= 0)
            close(fd);
        on_blob(j, i, &h);
        return;
    }
    if (got != 0 || h.magic != AOS__BOOT_MAGIC) {
        if (fd >= 0)
            close(fd);
        close_boot_socket(p);
        return;
    }
    if (!p->said_hello && fd < 0) {
        /* Its memory did not come with it (aosrun out of descriptors, or a
         * broken PE): the others would wait for the exchange forever. */
        fprintf(stderr,
                "aosrun: %sPE %d's hello came without its memory descriptor%s; stopping the "
                "job\n",
                where(j, rank), rank,
                errno == EMFILE || errno == ENFILE ? " (aosrun is out of file descriptors)"
                                                   : "");
        aosrun_job_fail(j, 1, -1);
        return;
    }
    if (!p->said_hello && fd >= 0 && h.rank == (uint32_t)rank) {
        const struct aosrun_placement *pl = &j->t->place[i];
        p->said_hello = 1;
        p->arena_fd = fd;
        j->table[rank] = (struct aos__boot_peer){
            .hello = h, .cluster = pl->cpuset != NULL ? pl->cluster : 0, .node = j->node};
        /* Its header says whether it finalized, even if the program closes
         * the socket; one page, read only. */
        void *hp = mmap(NULL, HEADER_MAP_LEN, PROT_READ, MAP_SHARED, fd, 0);
        p->header = hp == MAP_FAILED ? NULL : hp;
        if (j->up != NULL && j->up->hello != NULL) {
            j->up->hello(j, rank);
            return;
        }
        j->table_in++;
        if (++j->hellos == j->total)
            aosrun_job_exchange(j);
        check_missing_hello(j);
        return;
    }
    if (fd >= 0)
        close(fd);
    if (p->said_hello && h.arena_size == 0)
        p->said_bye = 1;
}

static void describe_end(int rank, pid_t pid, int ws, char *buf, size_t len)
{
    if (WIFEXITED(ws))
        snprintf(buf, len, "PE %d (pid %d) exited with status %d", rank, (int)pid,
                 WEXITSTATUS(ws));
    else if (WIFSIGNALED(ws))
        snprintf(buf, len, "PE %d (pid %d) was killed by signal %d (%s)%s", rank, (int)pid,
                 WTERMSIG(ws), strsignal(WTERMSIG(ws)), WCOREDUMP(ws) ? ", core dumped" : "");
    else
        snprintf(buf, len, "PE %d (pid %d) ended (wait status %#x)", rank, (int)pid, ws);
}

void aosrun_job_judge_end(struct job *j, int i, int ws)
{
    struct pe *p = &j->pes[i];
    int rank = j->first + i;
    p->state = PE_DONE;
    j->running--;
    char what[256];
    describe_end(rank, p->pid, ws, what, sizeof what);
    int clean = WIFEXITED(ws) && WEXITSTATUS(ws) == 0;
    if (!clean && !j->stopping) {
        if (j->running > 0)
            fprintf(stderr, "aosrun: %s%s; stopping the other %d PE(s)\n", where(j, rank),
                    what, j->running);
        else
            fprintf(stderr, "aosrun: %s%s\n", where(j, rank), what);
        aosrun_job_fail(j, WIFEXITED(ws) ? WEXITSTATUS(ws) : 128 + WTERMSIG(ws), rank);
    } else if (clean && p->said_hello && !p->said_bye && j->running > 0 && !j->stopping) {
        fprintf(stderr,
                "aosrun: %s%s without calling aos_finalize; the others could wait for it "
                "forever, so they are stopped\n",
                where(j, rank), what);
        aosrun_job_fail(j, 1, -1);
    } else {
        if (j->o->verbose)
            fprintf(stderr, "aosrun: %s%s\n", where(j, rank), what);
        if (clean && !p->said_hello)
            aosrun_job_check_missing_hello(j);
    }
}

static void on_child_exit(struct job *j, pid_t pid, int ws)
{
    int i = -1;
    for (int k = 0; j->local && k < j->n; k++)
        if (j->pes[k].pid == pid)
            i = k;
    if (i < 0) {
        if (j->up != NULL && j->up->child != NULL)
            j->up->child(j, pid, ws);
        return;
    }
    struct pe *p = &j->pes[i];
    /* Read what the PE sent before it died (its bye) before judging its end;
     * not a part of a message, which nobody may finish now. */
    while (p->sock >= 0 && message_waiting(p) > 0)
        on_boot_message(j, i);
    /* Acquire: pairs with aos_finalize's release store. */
    if (p->said_hello && !p->said_bye && p->header != NULL &&
        aos__load_acquire(&p->header->finalized) != 0)
        p->said_bye = 1;
    if (j->up != NULL && j->up->end != NULL) {
        p->state = PE_DONE;
        j->running--;
        j->up->end(j, j->first + i, ws);
        return;
    }
    aosrun_job_judge_end(j, i, ws);
}

/* A PE's socket polled readable (revents), or holding part of a message:
 * reads what is whole; a part that stays PARTIAL_MESSAGE_MS, or that
 * nobody can finish (every writer gone), ends the socket, as a broken
 * message does. */
static void on_boot_readable(struct job *j, int i, short revents)
{
    struct pe *p = &j->pes[i];
    int w = message_waiting(p);
    if (w >= 0) {
        p->partial_since_ms = 0;
        if (w > 0)
            on_boot_message(j, i);
        return;
    }
    long long now = aosrun_now_ms();
    if (revents & (POLLHUP | POLLERR))
        close_boot_socket(p);
    else if (p->partial_since_ms == 0)
        p->partial_since_ms = now;
    else if (now - p->partial_since_ms >= PARTIAL_MESSAGE_MS)
        close_boot_socket(p);
}

static void reap(struct job *j)
{
    int ws;
    pid_t pid;
    while ((pid = waitpid(-1, &ws, WNOHANG)) > 0)
        on_child_exit(j, pid, ws);
}

static void on_signal(struct job *j, int sig)
{
    if (sig == SIGCHLD) {
        reap(j);
        return;
    }
    fprintf(stderr, "aosrun: %sgot signal %d (%s); passing it to the PEs\n", where(j, -1), sig,
            strsignal(sig));
    signal_all(j, sig);
    if (!j->failed) {
        j->failed = 1;
        j->exit_status = 128 + sig;
        if (j->up != NULL && j->up->failed != NULL)
            j->up->failed(j, j->exit_status);
    }
    if (!j->stopping) {
        j->stopping = 1;
        j->kill_at_ms = aosrun_now_ms() + 1000;
    }
}

/* Descriptors aosrun holds at most: per PE its socket and, until every PE
 * has taken the exchange, the PE's memory; plus its own (standard streams,
 * signalfd, hwloc's, a socketpair being made) with room to spare. */
#define FDS_PER_PE 2
#define FDS_OWN 32

int aosrun_raise_fd_limit(struct aosrun_options *o)
{
    if (getrlimit(RLIMIT_NOFILE, &o->nofile) != 0) {
        perror("aosrun: getrlimit");
        return -1;
    }
    struct rlimit raised = o->nofile;
    raised.rlim_cur = raised.rlim_max;
    if (raised.rlim_cur != o->nofile.rlim_cur && setrlimit(RLIMIT_NOFILE, &raised) != 0)
        raised = o->nofile;
    rlim_t need = (rlim_t)o->npes * FDS_PER_PE + FDS_OWN;
    if (raised.rlim_cur != RLIM_INFINITY && raised.rlim_cur < need) {
        long most = raised.rlim_cur > FDS_OWN ? (long)(raised.rlim_cur - FDS_OWN) / FDS_PER_PE
                                              : 0;
        fprintf(stderr,
                "aosrun: -n %d needs about %llu file descriptors, but the limit is %llu "
                "(ulimit -n, hard limit): at most %ld PEs here\n",
                o->npes, (unsigned long long)need, (unsigned long long)raised.rlim_cur, most);
        return -1;
    }
    return 0;
}

/* In the child: the PE program, with its end of the socket as AOS_BOOT_FD. */
static void exec_pe(struct job *j, int i, int child_sock)
{
    int rank = j->first + i;
    setrlimit(RLIMIT_NOFILE, &j->o->nofile); /* the PE runs with the user's limit */
    aosrun_topology_bind(j->t, i);
    if (j->pe_stdout >= 0)
        dup2(j->pe_stdout, STDOUT_FILENO);
    int fd = fcntl(child_sock, F_DUPFD, 3); /* without CLOEXEC: survives exec */
    char buf[32];
    snprintf(buf, sizeof buf, "%d", fd);
    setenv(AOS__ENV_BOOT_FD, buf, 1);
    snprintf(buf, sizeof buf, "%d", rank);
    setenv(AOS__ENV_RANK, buf, 1);
    snprintf(buf, sizeof buf, "%d", j->total);
    setenv(AOS__ENV_NPES, buf, 1);
    execvp(j->o->argv[0], j->o->argv);
    fprintf(stderr, "aosrun: %sPE %d: cannot run %s: %s\n", where(j, rank), rank,
            j->o->argv[0], strerror(errno));
    _exit(127);
}

pid_t aosrun_job_spawn(struct job *j, int index, int death_sig, const sigset_t *old_mask,
                       void (*child)(struct job *j, int index, int sock), int *sock)
{
    int sv[2];
    if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) != 0) {
        perror("aosrun: socketpair");
        aosrun_job_fail(j, 1, -1);
        return -1;
    }
    pid_t parent = getpid();
    pid_t pid = fork();
    if (pid == 0) {
        /* A process group of its own; die with aosrun, whatever kills it. */
        setpgid(0, 0);
        prctl(PR_SET_PDEATHSIG, death_sig);
        if (getppid() != parent)
            _exit(127);
        sigprocmask(SIG_SETMASK, old_mask, NULL);
        child(j, index, sv[1]);
        _exit(127);
    }
    close(sv[1]);
    if (pid < 0) {
        perror("aosrun: fork");
        close(sv[0]);
        aosrun_job_fail(j, 1, -1);
        return -1;
    }
    setpgid(pid, pid); /* also here: a signal may come before the child's own call */
    *sock = sv[0];
    return pid;
}

static int poll_timeout(struct job *j)
{
    long long now = aosrun_now_ms(), next = -1;
    if (j->stopping)
        next = j->kill_at_ms;
    if (j->deadline_ms && (next < 0 || j->deadline_ms < next))
        next = j->deadline_ms;
    long long up = j->up != NULL && j->up->wake_ms != NULL ? j->up->wake_ms(j) : -1;
    if (up >= 0 && (next < 0 || up < next))
        next = up;
    if (next < 0)
        return -1;
    if (next <= now)
        return 0;
    return next - now > INT_MAX ? INT_MAX : (int)(next - now);
}

static void check_clocks(struct job *j)
{
    long long now = aosrun_now_ms();
    if (j->deadline_ms && now >= j->deadline_ms && !j->stopping) {
        fprintf(stderr, "aosrun: timeout after %g s: stopping %d PE(s) still running\n",
                j->o->timeout_s, j->running);
        j->deadline_ms = 0;
        if (!j->failed)
            j->timed_out = 1;
        aosrun_job_fail(j, EXIT_TIMEOUT, -1);
    }
    if (j->stopping && now >= j->kill_at_ms) {
        signal_all(j, SIGKILL);
        j->kill_at_ms = now + 1000;
    }
}

static int job_busy(struct job *j)
{
    return j->running > 0 || (j->up != NULL && j->up->busy != NULL && j->up->busy(j));
}

static void event_loop(struct job *j, int sfd)
{
    int n = j->n;
    int most = n + 1 + AOSRUN_UPLINK_FDS;
    struct pollfd *fds = calloc((size_t)most, sizeof *fds);
    int *who = calloc((size_t)most, sizeof *who);
    if (fds == NULL || who == NULL) {
        aosrun_job_fail(j, 1, -1);
        free(fds);
        free(who);
        while (j->running > 0) {
            int ws;
            pid_t pid = waitpid(-1, &ws, 0);
            if (pid > 0)
                on_child_exit(j, pid, ws);
        }
        return;
    }
    while (job_busy(j)) {
        int m = 0, recheck = 0; /* some socket is looked at every PARTIAL_RECHECK_MS */
        fds[m] = (struct pollfd){.fd = sfd, .events = POLLIN};
        who[m++] = -1;
        for (int i = 0; i < n; i++) {
            if (j->pes[i].sock >= 0) {
                /* A socket holding part of a message stays readable: it is
                 * looked at again every PARTIAL_RECHECK_MS instead. */
                int part = j->pes[i].partial_since_ms != 0;
                recheck |= part;
                /* An outbox stalled on descriptors in flight is tried
                 * again every PARTIAL_RECHECK_MS: poll does not say when. */
                int stalled = aosrun_outbox_stalled(&j->pes[i].out);
                recheck |= stalled;
                short out = aosrun_outbox_waiting(&j->pes[i].out) && !stalled ? POLLOUT : 0;
                fds[m] = (struct pollfd){.fd = j->pes[i].sock,
                                         .events = (short)((part ? 0 : POLLIN) | out)};
                who[m++] = i;
            }
        }
        int extra = m;
        if (j->up != NULL && j->up->pollfds != NULL)
            m += j->up->pollfds(j, fds + m, AOSRUN_UPLINK_FDS);
        int wait_ms = poll_timeout(j);
        if (recheck && (wait_ms < 0 || wait_ms > PARTIAL_RECHECK_MS))
            wait_ms = PARTIAL_RECHECK_MS;
        int r = poll(fds, (nfds_t)m, wait_ms);
        if (r < 0 && errno != EINTR)
            break;
        for (int k = 0; r >= 0 && k < extra; k++) {
            if (who[k] < 0) {
                struct signalfd_siginfo si;
                while (fds[k].revents != 0 && read(sfd, &si, sizeof si) == (ssize_t)sizeof si)
                    on_signal(j, (int)si.ssi_signo);
                continue;
            }
            struct pe *p = &j->pes[who[k]];
            if (((fds[k].revents & (POLLOUT | POLLERR | POLLHUP)) ||
                 aosrun_outbox_stalled(&p->out)) &&
                p->sock >= 0 && aosrun_outbox_waiting(&p->out) &&
                aosrun_outbox_flush(&p->out, p->sock) != 0)
                send_failed(j, who[k]);
            short in = (short)(fds[k].revents & ~POLLOUT);
            /* (the signals above may have read this socket already:
             * on_boot_readable only peeks before it reads) */
            if ((in != 0 || p->partial_since_ms != 0) && p->sock >= 0)
                on_boot_readable(j, who[k], in);
        }
        if (j->exchanged)
            release_arena_fds(j);
        if (r > 0 && m > extra)
            j->up->events(j, fds + extra, m - extra);
        reap(j); /* SIGCHLD coalesces; never miss an exit */
        check_clocks(j);
    }
    free(fds);
    free(who);
}

int aosrun_job_init(struct job *j, const struct aosrun_options *o,
                    const struct aosrun_topology *t, int first, int count, int total, int local)
{
    *j = (struct job){.o = o, .t = t, .n = count, .first = first, .total = total,
                      .local = local, .pe_stdout = -1, .failed_pe = -1};
    j->pes = calloc((size_t)count, sizeof *j->pes);
    j->table = calloc((size_t)total, sizeof *j->table);
    j->blob = calloc((size_t)total, sizeof *j->blob);
    j->blob_len = calloc((size_t)total, sizeof *j->blob_len);
    if (j->pes == NULL || j->table == NULL || j->blob == NULL || j->blob_len == NULL) {
        free(j->pes);
        free(j->table);
        free(j->blob);
        free(j->blob_len);
        return -1;
    }
    for (int i = 0; i < count; i++) {
        j->pes[i].sock = -1;
        j->pes[i].arena_fd = -1;
        j->pes[i].state = local ? PE_DONE : PE_RUNNING;
    }
    if (!local)
        j->running = count;
    return 0;
}

/* The signal a keeper (below) gets when aosrun dies. */
#define KEEPER_SIG (SIGRTMIN + 1)

/* A keeper in each PE's process group ends the group when aosrun dies
 * outright (SIGKILL: nothing of aosrun runs on). The PE's parent-death
 * signal reaches only the PE, not what it started (a wrapper shell's
 * program, a background helper), which signal_all reaches while aosrun
 * lives. The keeper is aosrun's child: it holds no descriptor, blocks
 * every signal and waits for its parent-death one, and, being a member,
 * keeps the group's id from being reused while aosrun may still signal
 * it; aosrun's last SIGKILL to the group ends it with the rest. A keeper
 * that cannot start costs only that protection. */
static void start_keeper(pid_t group)
{
    pid_t parent = getpid();
    pid_t pid = fork();
    if (pid > 0)
        setpgid(pid, group); /* also here, as for the PE */
    if (pid != 0)
        return;
    sigset_t all;
    sigfillset(&all);
    sigprocmask(SIG_SETMASK, &all, NULL);
    /* Only ever inside the PE's group: the kill below reaches the caller's. */
    if (setpgid(0, group) != 0 || getpgrp() != group)
        _exit(0);
    close_range(0, ~0u, 0); /* no pipe or socket held open past the PE */
    prctl(PR_SET_PDEATHSIG, KEEPER_SIG);
    sigset_t mine;
    sigemptyset(&mine);
    sigaddset(&mine, KEEPER_SIG);
    int sig;
    while (getppid() == parent) /* another sender's KEEPER_SIG changes nothing */
        (void)sigwait(&mine, &sig);
    kill(0, SIGKILL);
    _exit(0);
}

void aosrun_job_start_pes(struct job *j, const sigset_t *old)
{
    for (int i = 0; j->local && i < j->n; i++) {
        int sock;
        pid_t pid = aosrun_job_spawn(j, i, SIGKILL, old, exec_pe, &sock);
        if (pid < 0)
            break;
        j->pes[i] = (struct pe){.pid = pid, .sock = sock, .arena_fd = -1, .state = PE_RUNNING};
        j->running++;
        start_keeper(pid);
    }
}

int aosrun_job_run(struct job *j)
{
    sigset_t mask, old;
    sigemptyset(&mask);
    sigaddset(&mask, SIGCHLD);
    sigaddset(&mask, SIGINT);
    sigaddset(&mask, SIGTERM);
    sigaddset(&mask, SIGHUP);
    sigaddset(&mask, SIGQUIT);
    sigprocmask(SIG_BLOCK, &mask, &old);
    int sfd = signalfd(-1, &mask, SFD_NONBLOCK | SFD_CLOEXEC);
    if (sfd < 0) {
        perror("aosrun: signalfd");
        free(j->pes);
        free(j->table);
        free(j->blob);
        free(j->blob_len);
        return 1;
    }
    if (j->o->timeout_s > 0)
        j->deadline_ms = aosrun_now_ms() + (long long)(j->o->timeout_s * 1000.0);
    if (j->local)
        aosrun_strays_adopt();
    if (j->up != NULL && j->up->start != NULL)
        j->up->start(j, &old);
    else
        aosrun_job_start_pes(j, &old);
    event_loop(j, sfd);
    /* Every PE has ended: what they started and left behind ends with the
     * job, in their groups and outside them. */
    if (j->local) {
        signal_all(j, SIGKILL);
        aosrun_strays_end();
    }
    close_arena_fds(j);
    for (int i = 0; i < j->n; i++) {
        aosrun_outbox_clear(&j->pes[i].out);
        if (j->pes[i].sock >= 0)
            close(j->pes[i].sock);
        if (j->pes[i].header != NULL)
            munmap((void *)j->pes[i].header, HEADER_MAP_LEN);
    }
    for (int i = 0; i < j->total; i++)
        free(j->blob[i]);
    close(sfd);
    free(j->pes);
    free(j->table);
    free(j->blob);
    free(j->blob_len);
    sigprocmask(SIG_SETMASK, &old, NULL);
    /* 124 is also what a PE may exit with (timeout(1) inside a PE does):
     * say whose it is. */
    if (j->failed && j->exit_status == EXIT_TIMEOUT) {
        if (j->timed_out)
            fprintf(stderr, "aosrun: exit status %d: the job ran out of its --timeout\n",
                    EXIT_TIMEOUT);
        else if (j->failed_pe >= 0)
            fprintf(stderr, "aosrun: exit status %d is PE %d's own, not aosrun's --timeout\n",
                    EXIT_TIMEOUT, j->failed_pe);
    }
    return j->failed ? j->exit_status : 0;
}

int aosrun_supervise(const struct aosrun_options *o, const struct aosrun_topology *t)
{
    struct job j;
    if (aosrun_job_init(&j, o, t, 0, o->npes, o->npes, 1) != 0)
        return 1;
    return aosrun_job_run(&j);
}
