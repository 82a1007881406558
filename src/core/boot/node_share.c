/* The memfd exchange among the PEs of one host (core/boot/node_share.h). */
#include "core/boot/node_share.h"

#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "aos.h"
#include "arch/cpu.h"
#include "core/fdpass.h"

/* A connection that has not said who it is within this long is dropped, so
 * that a stranger cannot hold the leader until the deadline. */
#define AOS__SHARE_HELLO_MS 10000

static void set_timeouts(int fd, uint64_t ms)
{
    if (ms == 0)
        ms = 1; /* 0 would mean "wait forever" */
    struct timeval tv = {.tv_sec = (time_t)(ms / 1000), .tv_usec = (suseconds_t)(ms % 1000) * 1000};
    (void)setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    (void)setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
}

int aos__share_name(const char *job, int host, uint64_t tag, char *path, size_t cap)
{
    /* The tag and host come first: a long job name is cut, never them. */
    int n = snprintf(path + 1, cap - 1, "aos.%016llx.%d.%s", (unsigned long long)tag, host, job);
    path[0] = '\0';
    if (n < 0)
        return -1;
    return (size_t)n + 1 < cap ? n + 1 : (int)cap - 1;
}

static socklen_t make_addr(const struct aos__share *s, uint64_t tag, struct sockaddr_un *sa)
{
    memset(sa, 0, sizeof *sa);
    sa->sun_family = AF_UNIX;
    int len = aos__share_name(s->job, s->host, tag, sa->sun_path, sizeof sa->sun_path);
    return (socklen_t)(offsetof(struct sockaddr_un, sun_path) + (size_t)len);
}

/* The index of pe among the host's PEs, -1 if not one of them. */
static int local_index(const struct aos__share *s, int pe)
{
    for (int i = 0; i < s->nlocal; i++)
        if (s->local[i] == pe)
            return i;
    return -1;
}

/* Cookies compare in time independent of where they differ. */
static int cookie_equal(const uint8_t *a, const uint8_t *b)
{
    uint8_t diff = 0;
    for (int i = 0; i < AOS__SHARE_COOKIE_LEN; i++)
        diff |= (uint8_t)(a[i] ^ b[i]);
    return diff == 0;
}

int aos__share_listen(const struct aos__share *s, struct aos__share_ticket *t, int *lfd)
{
    struct aos__share_ticket mine = {.pid = (uint32_t)getpid(), .rank = (uint32_t)s->me};
    uint8_t rnd[AOS__SHARE_COOKIE_LEN + sizeof mine.tag];
    if (getrandom(rnd, sizeof rnd, 0) != (ssize_t)sizeof rnd) {
        fprintf(stderr, "aos: PE %d: no random bytes for the host's memory exchange: %s\n",
                s->me, strerror(errno));
        return AOS_ERR_BOOTSTRAP;
    }
    memcpy(mine.cookie, rnd, AOS__SHARE_COOKIE_LEN);
    memcpy(&mine.tag, rnd + AOS__SHARE_COOKIE_LEN, sizeof mine.tag);
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0)
        goto fail;
    struct sockaddr_un sa;
    socklen_t len = make_addr(s, mine.tag, &sa);
    if (bind(fd, (struct sockaddr *)&sa, len) != 0 || listen(fd, s->nlocal + 16) != 0) {
        close(fd);
        goto fail;
    }
    *t = mine;
    *lfd = fd;
    return AOS_OK;
fail:
    fprintf(stderr, "aos: PE %d: cannot open the host's memory exchange socket: %s\n", s->me,
            strerror(errno));
    return AOS_ERR_BOOTSTRAP;
}

/* Reads one connection's join; returns the joining PE's rank and its memfd
 * in *fd, or -1 (saying why) when it is not one of the host's PEs with the
 * right cookie. */
static int admit(const struct aos__share *s, const struct aos__share_ticket *t, int conn,
                 const int *joined, uint64_t deadline, int *fd)
{
    struct ucred cred;
    socklen_t clen = sizeof cred;
    struct aos__share_join j;
    const char *why = NULL;
    *fd = -1;
    uint64_t ms = aos__ms_left(deadline);
    set_timeouts(conn, ms < AOS__SHARE_HELLO_MS ? ms : AOS__SHARE_HELLO_MS);
    if (getsockopt(conn, SOL_SOCKET, SO_PEERCRED, &cred, &clen) != 0)
        cred.pid = 0;
    if (aos__recv_with_fd(conn, &j, sizeof j, fd) != 0)
        why = "it sent no complete request";
    else if (j.magic != AOS__SHARE_JOIN_MAGIC)
        why = "not an aos request";
    else if (!cookie_equal(j.cookie, t->cookie))
        why = "wrong cookie";
    else if (j.rank == (uint32_t)s->me || j.rank > INT32_MAX || local_index(s, (int)j.rank) < 0)
        why = "not a PE of this host";
    else if (joined[local_index(s, (int)j.rank)])
        why = "that PE has joined already";
    else if (cred.pid != s->pid[j.rank] || cred.uid != getuid())
        why = "not that PE's process";
    else if (*fd < 0)
        why = "no memory descriptor came with it (out of descriptors?)";
    if (why == NULL)
        return (int)j.rank;
    fprintf(stderr, "aos: PE %d: refused a connection to the host's memory exchange from pid %ld: %s\n",
            s->me, (long)cred.pid, why);
    if (*fd >= 0)
        close(*fd);
    *fd = -1;
    return -1;
}

int aos__share_serve(const struct aos__share *s, const struct aos__share_ticket *t, int lfd,
                     int *peer_fds)
{
    uint64_t deadline = aos__now_ns() + s->timeout_ms * 1000000u;
    int *conn = malloc((size_t)s->nlocal * sizeof *conn);
    int *joined = calloc((size_t)s->nlocal, sizeof *joined);
    int rc = AOS_OK, waiting = s->nlocal - 1;
    if (conn == NULL || joined == NULL) {
        rc = AOS_ERR_NO_MEMORY;
        goto out;
    }
    for (int i = 0; i < s->nlocal; i++)
        conn[i] = -1;
    while (waiting > 0) {
        struct pollfd p = {.fd = lfd, .events = POLLIN};
        uint64_t ms = aos__ms_left(deadline);
        int n = ms > 0 ? poll(&p, 1, (int)(ms < 1000 ? ms : 1000)) : 0;
        if (n < 0 && errno == EINTR)
            continue;
        if (n == 0 && aos__ms_left(deadline) > 0)
            continue;
        if (n <= 0) {
            int missing = -1;
            for (int i = 0; i < s->nlocal && missing < 0; i++)
                if (!joined[i] && s->local[i] != s->me)
                    missing = s->local[i];
            fprintf(stderr,
                    "aos: PE %d: PE %d did not join the host's memory exchange within %llu s "
                    "(AOS_BOOT_TIMEOUT)\n",
                    s->me, missing, (unsigned long long)(s->timeout_ms / 1000));
            rc = AOS_ERR_BOOTSTRAP;
            goto out;
        }
        int c = accept4(lfd, NULL, NULL, SOCK_CLOEXEC);
        if (c < 0)
            continue;
        int fd;
        int pe = admit(s, t, c, joined, deadline, &fd);
        if (pe < 0) {
            close(c);
            continue;
        }
        int i = local_index(s, pe);
        joined[i] = 1;
        conn[i] = c;
        peer_fds[pe] = fd;
        waiting--;
    }
    /* Everyone is in: each gets every other PE's memory, mine included. */
    for (int i = 0; i < s->nlocal && rc == AOS_OK; i++) {
        if (conn[i] < 0)
            continue;
        set_timeouts(conn[i], aos__ms_left(deadline));
        for (int k = 0; k < s->nlocal && rc == AOS_OK; k++) {
            if (k == i)
                continue;
            int pe = s->local[k];
            struct aos__share_entry e = {.magic = AOS__SHARE_ENTRY_MAGIC, .rank = (uint32_t)pe};
            int fd = pe == s->me ? s->arena_fd : peer_fds[pe];
            if (aos__send_with_fd(conn[i], &e, sizeof e, fd) != 0) {
                fprintf(stderr, "aos: PE %d: cannot hand PE %d the memory of its host's PEs: %s\n",
                        s->me, s->local[i], strerror(errno));
                rc = AOS_ERR_BOOTSTRAP;
            }
        }
    }
out:
    if (conn != NULL)
        for (int i = 0; i < s->nlocal; i++)
            if (conn[i] >= 0)
                close(conn[i]);
    free(joined);
    free(conn);
    close(lfd);
    return rc;
}

/* Connects to the leader's socket. It listens from before the fence after
 * which the others learn its name, so a refusal means it is gone. */
static int connect_leader(const struct aos__share *s, const struct aos__share_ticket *t)
{
    struct sockaddr_un sa;
    socklen_t len = make_addr(s, t->tag, &sa);
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0)
        return -1;
    if (connect(fd, (struct sockaddr *)&sa, len) == 0)
        return fd;
    int e = errno;
    close(fd);
    errno = e;
    return -1;
}

int aos__share_join(const struct aos__share *s, const struct aos__share_ticket *t,
                    int *peer_fds)
{
    uint64_t deadline = aos__now_ns() + s->timeout_ms * 1000000u;
    int leader = (int)t->rank;
    int c = connect_leader(s, t);
    if (c < 0) {
        fprintf(stderr, "aos: PE %d: cannot reach PE %d for the host's memory exchange: %s\n",
                s->me, leader, strerror(errno));
        return AOS_ERR_BOOTSTRAP;
    }
    /* My memory goes only to the leader's process, not to whoever holds
     * the name. */
    struct ucred cred;
    socklen_t clen = sizeof cred;
    if (getsockopt(c, SOL_SOCKET, SO_PEERCRED, &cred, &clen) != 0 ||
        cred.pid != (pid_t)t->pid || cred.uid != getuid()) {
        fprintf(stderr,
                "aos: PE %d: the host's memory exchange socket is held by pid %ld, not by PE "
                "%d (pid %lu)\n",
                s->me, (long)cred.pid, leader, (unsigned long)t->pid);
        close(c);
        return AOS_ERR_BOOTSTRAP;
    }
    set_timeouts(c, aos__ms_left(deadline));
    struct aos__share_join j = {.magic = AOS__SHARE_JOIN_MAGIC, .rank = (uint32_t)s->me};
    memcpy(j.cookie, t->cookie, sizeof j.cookie);
    int rc = AOS_OK;
    if (aos__send_with_fd(c, &j, sizeof j, s->arena_fd) != 0) {
        fprintf(stderr, "aos: PE %d: cannot send my memory to PE %d: %s\n", s->me, leader,
                strerror(errno));
        rc = AOS_ERR_BOOTSTRAP;
    }
    for (int got = 0; got < s->nlocal - 1 && rc == AOS_OK; got++) {
        struct aos__share_entry e;
        int fd;
        if (aos__recv_with_fd(c, &e, sizeof e, &fd) != 0) {
            fprintf(stderr,
                    "aos: PE %d: PE %d ended the host's memory exchange early: %s\n", s->me,
                    leader,
                    errno == EAGAIN ? "timed out (AOS_BOOT_TIMEOUT)" : strerror(errno));
            rc = AOS_ERR_BOOTSTRAP;
        } else if (e.magic != AOS__SHARE_ENTRY_MAGIC || e.rank > INT32_MAX ||
                   local_index(s, (int)e.rank) < 0 || e.rank == (uint32_t)s->me ||
                   peer_fds[e.rank] >= 0 || fd < 0) {
            fprintf(stderr, "aos: PE %d: PE %d sent a garbled memory exchange%s\n", s->me, leader,
                    fd < 0 ? " (this PE is out of file descriptors?)" : "");
            rc = AOS_ERR_BOOTSTRAP;
        }
        if (rc == AOS_OK)
            peer_fds[e.rank] = fd;
        else if (fd >= 0)
            close(fd);
    }
    close(c);
    return rc;
}
