/* UCX opens its descriptors (pipes, epoll and timer descriptors, /dev/null,
 * TCP sockets) without close-on-exec, so a program a PE starts (system(),
 * a helper tool) would inherit every connection of the job and keep it
 * open after the PE ends. aos marks them close-on-exec: the descriptors
 * that appeared while the transport started are UCX's (one that another
 * thread of the program opened meanwhile would be marked too), and
 * start-up first waits for a message from every peer on another node
 * (ucx.c), then until UCX's listening sockets have no connection waiting
 * to be accepted: when two PEs connect to each other at once, UCX may keep
 * both connections, and accepts the second whenever its own thread runs,
 * after the messages have crossed on the first.
 *
 * It also finds the event sets of UCX's TCP interfaces, which the progress
 * thread may sleep on (sleep.c): epoll instances opened while the worker
 * was created that UCX's own thread's epoll instance watches (UCP hangs
 * each interface's descriptor there, even without UCP_FEATURE_WAKEUP).
 * That instance is the one that watches a listening socket opened
 * meanwhile, a TCP interface's; an epoll instance another thread of the
 * program opened meanwhile is not taken for one of UCX's. */
#include <dirent.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "transport/ucx/ucx.h"

/* Calls fn(fd, arg) for every open descriptor of this process but the
 * directory's own; 0 when /proc cannot be read (nothing is called). */
static int each_fd(void (*fn)(int fd, void *arg), void *arg)
{
    DIR *d = opendir("/proc/self/fd");
    if (d == NULL)
        return 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        char *end;
        long fd = strtol(e->d_name, &end, 10);
        if (end != e->d_name && *end == '\0' && fd >= 0 && fd != dirfd(d) && fd <= INT32_MAX)
            fn((int)fd, arg);
    }
    closedir(d);
    return 1;
}

static void note_fd(int fd, void *arg)
{
    struct aos__ucx_fds *s = arg;
    if (s->count == s->cap) {
        size_t cap = s->cap != 0 ? 2 * s->cap : 64;
        int *grown = realloc(s->fd, cap * sizeof *grown);
        if (grown == NULL) {
            s->failed = 1;
            return;
        }
        s->fd = grown;
        s->cap = cap;
    }
    s->fd[s->count++] = fd;
}

void aos__ucx_fds_note(struct aos__ucx_fds *before)
{
    *before = (struct aos__ucx_fds){0};
    if (!each_fd(note_fd, before))
        before->failed = 1;
}

static int is_new(const struct aos__ucx_fds *before, int fd)
{
    for (size_t i = 0; i < before->count; i++)
        if (before->fd[i] == fd)
            return 0;
    return 1;
}

static void mark_new(int fd, void *arg)
{
    if (!is_new(arg, fd))
        return;
    int flags = fcntl(fd, F_GETFD);
    if (flags >= 0 && !(flags & FD_CLOEXEC))
        (void)fcntl(fd, F_SETFD, flags | FD_CLOEXEC);
}

static int is_listening(int fd)
{
    int listening = 0;
    socklen_t len = sizeof listening;
    return getsockopt(fd, SOL_SOCKET, SO_ACCEPTCONN, &listening, &len) == 0 && listening;
}

struct accepting {
    const struct aos__ucx_fds *before;
    int waiting;
};

static void note_waiting(int fd, void *arg)
{
    struct accepting *a = arg;
    if (a->waiting || !is_new(a->before, fd) || !is_listening(fd))
        return;
    struct pollfd pf = {.fd = fd, .events = POLLIN};
    a->waiting = poll(&pf, 1, 0) > 0;
}

int aos__ucx_fds_accepting(const struct aos__ucx_fds *before)
{
    struct accepting a = {.before = before, .waiting = 0};
    if (!before->failed)
        (void)each_fd(note_waiting, &a);
    return a.waiting;
}

void aos__ucx_fds_cloexec_new(struct aos__ucx_fds *before)
{
    if (!before->failed) /* else leave them: marking the program's would be worse */
        (void)each_fd(mark_new, before);
    free(before->fd);
    *before = (struct aos__ucx_fds){0};
}

/* Whether fd is an epoll instance. */
static int is_epoll(int fd)
{
    char path[32], target[32];
    (void)snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
    ssize_t n = readlink(path, target, sizeof target - 1);
    if (n <= 0)
        return 0;
    target[n] = '\0';
    return strcmp(target, "anon_inode:[eventpoll]") == 0;
}

static void note_epoll(int fd, void *arg)
{
    if (is_epoll(fd))
        note_fd(fd, arg);
}

/* The descriptors epoll instance fd watches (its fdinfo's "tfd:" lines),
 * in *out. */
static void note_watched(int fd, struct aos__ucx_fds *out)
{
    char path[40];
    (void)snprintf(path, sizeof path, "/proc/self/fdinfo/%d", fd);
    FILE *f = fopen(path, "r");
    if (f == NULL) {
        out->failed = 1;
        return;
    }
    char line[256];
    int tfd;
    while (fgets(line, sizeof line, f) != NULL)
        if (sscanf(line, "tfd: %d", &tfd) == 1)
            note_fd(tfd, out);
    fclose(f);
}

/* If epoll instance fd is UCX's own thread's (it watches a listening
 * socket opened since `before`: a TCP interface's), the epoll instances
 * opened since then that it watches go into *sets. */
static void note_sets_of(const struct aos__ucx_fds *before, int fd, struct aos__ucx_fds *sets)
{
    struct aos__ucx_fds watched = {0};
    note_watched(fd, &watched);
    int ucx = 0;
    for (size_t i = 0; i < watched.count && !ucx; i++)
        ucx = is_new(before, watched.fd[i]) && is_listening(watched.fd[i]);
    for (size_t i = 0; i < watched.count && ucx; i++)
        if (is_new(before, watched.fd[i]) && is_epoll(watched.fd[i]))
            note_fd(watched.fd[i], sets);
    sets->failed |= watched.failed;
    free(watched.fd);
}

int aos__ucx_fds_event_sets(const struct aos__ucx_fds *before, struct aos__ucx_fds *sets)
{
    struct aos__ucx_fds epolls = {0};
    *sets = (struct aos__ucx_fds){0};
    if (before->failed || !each_fd(note_epoll, &epolls))
        epolls.failed = 1;
    for (size_t i = 0; i < epolls.count && !epolls.failed; i++)
        note_sets_of(before, epolls.fd[i], sets);
    int ok = !epolls.failed && !sets->failed && sets->count > 0;
    free(epolls.fd);
    if (!ok) {
        free(sets->fd);
        *sets = (struct aos__ucx_fds){0};
    }
    return ok;
}
