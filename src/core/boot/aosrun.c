/* The bootstrap backend for PEs aosrun started: a socketpair to aosrun
 * whose descriptor is in AOS_BOOT_FD (wire format core/boot_proto.h). */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "arch/cpu.h"
#include "core/boot_proto.h"
#include "core/bootstrap.h"
#include "core/config.h"
#include "core/fdpass.h"

/* The socket to aosrun (high, close-on-exec), -1 when not started by it;
 * what it is, to notice the program closed it; and that it did, said once. */
static int boot_fd = -1;
static uint64_t boot_dev, boot_ino;
static int boot_lost;

static int env_int(const char *name, long lo, long hi, long *out)
{
    const char *s = getenv(name);
    if (s == NULL)
        return 0;
    char *end = NULL;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (errno != 0 || *end != '\0' || end == s || v < lo || v > hi) {
        fprintf(stderr, "aos: %s='%s' set by the launcher is not valid\n", name, s);
        return -1;
    }
    *out = v;
    return 1;
}

/* A process this PE starts (system(), a helper that is itself an aos
 * program) must not take the launcher's variables for its own: it runs as
 * a single PE. */
static void forget_launcher(void)
{
    unsetenv(AOS__ENV_BOOT_FD);
    unsetenv(AOS__ENV_RANK);
    unsetenv(AOS__ENV_NPES);
}

/* Moves the boot socket out of the program's way: to a high descriptor
 * number (programs reuse low ones, and some close what they inherited),
 * close-on-exec (a child must not inherit it), remembering what it is.
 * Returns the new descriptor, or -1 when fd is not a socket. */
static int take_boot_fd(int fd)
{
    struct stat st;
    if (fstat(fd, &st) != 0 || !S_ISSOCK(st.st_mode))
        return -1;
    struct rlimit lim;
    long floor = 256;
    if (getrlimit(RLIMIT_NOFILE, &lim) == 0 && lim.rlim_cur != RLIM_INFINITY &&
        (long)lim.rlim_cur / 2 < floor)
        floor = (long)lim.rlim_cur / 2;
    int high = fcntl(fd, F_DUPFD_CLOEXEC, floor > 3 ? (int)floor : 3);
    if (high < 0)
        high = fcntl(fd, F_DUPFD_CLOEXEC, 3);
    if (high < 0)
        return -1;
    close(fd);
    boot_dev = (uint64_t)st.st_dev;
    boot_ino = (uint64_t)st.st_ino;
    boot_lost = 0;
    return high;
}

static int aosrun_start(struct aos__runtime *rt)
{
    long rank = 0, npes = 1, fd = -1;
    if (env_int(AOS__ENV_BOOT_FD, 0, 1 << 20, &fd) != 1)
        return AOS_ERR_BOOTSTRAP;
    if (env_int(AOS__ENV_NPES, 1, 1 << 20, &npes) != 1 ||
        env_int(AOS__ENV_RANK, 0, npes - 1, &rank) != 1) {
        forget_launcher();
        return AOS_ERR_BOOTSTRAP;
    }
    int boot = take_boot_fd((int)fd);
    forget_launcher();
    if (boot < 0) {
        fprintf(stderr,
                "aos: PE %ld: AOS_BOOT_FD=%ld is not the socket aosrun passed (closed before "
                "aos_init?)\n",
                rank, fd);
        return AOS_ERR_BOOTSTRAP;
    }
    rt->me = (int)rank;
    rt->npes = (int)npes;
    boot_fd = boot;
    return AOS_OK;
}

/* 1 when boot_fd is still the socket aosrun passed; 0 (saying so once)
 * when the program closed it, whatever now has that number. */
static int fd_ok(const struct aos__runtime *rt)
{
    struct stat st;
    if (boot_fd < 0)
        return 0;
    if (fstat(boot_fd, &st) == 0 && (uint64_t)st.st_dev == boot_dev &&
        (uint64_t)st.st_ino == boot_ino)
        return 1;
    if (!boot_lost)
        fprintf(stderr,
                "aos: PE %d: the program closed aos's connection to aosrun (descriptor %d); "
                "aosrun learns of aos_finalize from the PE's memory instead\n",
                rt->me, boot_fd);
    boot_lost = 1;
    return 0;
}

/* The end of a start-up exchange begun now: AOS_BOOT_TIMEOUT away. */
static uint64_t exchange_deadline(const struct aos__runtime *rt)
{
    return aos__now_ns() + (uint64_t)rt->cfg.boot_timeout * 1000000000u;
}

/* Waits until aosrun's next message has begun to arrive, or, past the
 * deadline, says why and fails: aosrun answers once every PE has sent its
 * part, and a PE that is stopped, or stuck before aos_init, sends none
 * (aosrun ends the job only for one that ends). */
static int await_aosrun(const struct aos__runtime *rt, uint64_t deadline)
{
    uint64_t ms;
    while ((ms = aos__ms_left(deadline)) > 0) {
        struct pollfd pf = {.fd = boot_fd, .events = POLLIN};
        int n = poll(&pf, 1, ms < INT32_MAX ? (int)ms : INT32_MAX);
        if (n > 0)
            return 0; /* data, or the end: the receive says which */
        if (n < 0 && errno != EINTR)
            return -1;
    }
    fprintf(stderr,
            "aos: PE %d: not every PE reached the start-up exchange within %u s "
            "(AOS_BOOT_TIMEOUT): one that is stopped, or stuck before aos_init, holds the "
            "others\n",
            rt->me, (unsigned)rt->cfg.boot_timeout);
    errno = ETIMEDOUT;
    return -1;
}

static int aosrun_exchange(struct aos__runtime *rt, int *peer_fds)
{
    uint64_t deadline = exchange_deadline(rt);
    for (int pe = 0; pe < rt->npes; pe++)
        peer_fds[pe] = -1;
    struct aos__boot_hello mine = aos__boot_my_hello(rt);
    if (aos__send_with_fd(boot_fd, &mine, sizeof mine, rt->arena_fd) != 0) {
        fprintf(stderr, "aos: PE %d: cannot reach aosrun: %s\n", rt->me, strerror(errno));
        return AOS_ERR_BOOTSTRAP;
    }
    struct aos__boot_peer *peers = malloc((size_t)rt->npes * sizeof *peers);
    int *host = malloc((size_t)rt->npes * sizeof *host);
    if (peers == NULL || host == NULL) {
        free(host);
        free(peers);
        return AOS_ERR_NO_MEMORY;
    }
    int rc = AOS_OK;
    for (int pe = 0; pe < rt->npes && rc == AOS_OK; pe++) {
        if (await_aosrun(rt, deadline) != 0 ||
            aos__recv_with_fd(boot_fd, &peers[pe], sizeof peers[pe], &peer_fds[pe]) != 0) {
            fprintf(stderr, "aos: PE %d: bootstrap with aosrun failed: %s\n", rt->me,
                    strerror(errno));
            rc = AOS_ERR_BOOTSTRAP;
        }
    }
    /* A peer on another host comes without its memory: only the network
     * reaches it. My own message says which host I am on. */
    int my_node = rc == AOS_OK ? peers[rt->me].node : 0;
    for (int pe = 0; pe < rt->npes && rc == AOS_OK; pe++) {
        const struct aos__boot_hello *h = &peers[pe].hello;
        int fd_missing = peer_fds[pe] < 0 && peers[pe].node == my_node;
        if (h->magic != AOS__BOOT_MAGIC || h->rank != (uint32_t)pe || fd_missing) {
            fprintf(stderr,
                    "aos: PE %d: aosrun sent PE %d's details %s\n", rt->me, pe,
                    fd_missing && h->magic == AOS__BOOT_MAGIC
                        ? "without its memory (this PE is out of file descriptors?)"
                        : "garbled (a launcher of another aos version?)");
            rc = AOS_ERR_BOOTSTRAP;
        } else {
            rc = aos__boot_check_layout(rt, pe, h);
        }
        rt->peers[pe].pid = (pid_t)h->pid;
        rt->peers[pe].machine = h->machine;
        rt->peers[pe].cluster = peers[pe].cluster;
        host[pe] = peers[pe].node;
    }
    if (rc == AOS_OK)
        aos__boot_place(rt, host);
    free(host);
    free(peers);
    if (rc == AOS_OK && peer_fds[rt->me] >= 0) {
        close(peer_fds[rt->me]);
        peer_fds[rt->me] = -1;
    }
    if (rc != AOS_OK) {
        for (int pe = 0; pe < rt->npes; pe++) {
            if (peer_fds[pe] >= 0)
                close(peer_fds[pe]);
            peer_fds[pe] = -1;
        }
    }
    return rc;
}

static int aosrun_allgather(struct aos__runtime *rt, const void *mine, size_t len, char **all,
                            size_t **offs)
{
    size_t n = (size_t)rt->npes;
    uint64_t deadline = exchange_deadline(rt);
    size_t *o = calloc(n + 1, sizeof *o);
    char *buf = NULL;
    if (o == NULL)
        return AOS_ERR_NO_MEMORY;
    struct aos__boot_hello h = aos__boot_my_hello(rt);
    h.magic = AOS__BOOT_BLOB_MAGIC;
    h.static_len = len;
    if (!fd_ok(rt)) {
        errno = EBADF;
        goto fail_io;
    }
    if (aos__send_with_fd(boot_fd, &h, sizeof h, -1) != 0 ||
        aos__send_exact(boot_fd, mine, len) != 0)
        goto fail_io;
    size_t cap = n * len + 64, used = 0;
    buf = malloc(cap);
    if (buf == NULL)
        goto fail_offs;
    for (size_t pe = 0; pe < n; pe++) {
        int fd = -1;
        if (await_aosrun(rt, deadline) != 0 || aos__recv_with_fd(boot_fd, &h, sizeof h, &fd) != 0)
            goto fail_io;
        if (fd >= 0)
            close(fd);
        if (h.magic != AOS__BOOT_BLOB_MAGIC || h.rank != pe ||
            h.static_len > AOS__BOOT_BLOB_MAX) {
            errno = EPROTO;
            goto fail_io;
        }
        if (used + h.static_len > cap) {
            size_t want = 2 * (used + h.static_len);
            char *bigger = realloc(buf, want);
            if (bigger == NULL)
                goto fail_buf;
            buf = bigger;
            cap = want;
        }
        if (await_aosrun(rt, deadline) != 0 ||
            aos__recv_exact(boot_fd, buf + used, h.static_len) != 0)
            goto fail_io;
        o[pe] = used;
        used += h.static_len;
    }
    o[n] = used;
    *all = buf;
    *offs = o;
    return AOS_OK;

fail_io:
    fprintf(stderr, "aos: PE %d: address exchange through aosrun failed: %s\n", rt->me,
            strerror(errno));
    free(buf);
    free(o);
    return AOS_ERR_BOOTSTRAP;
fail_buf:
    free(buf);
fail_offs:
    free(o);
    return AOS_ERR_NO_MEMORY;
}

/* aosrun has no barrier of its own: an all-gather of nothing is one. */
static int aosrun_barrier(struct aos__runtime *rt)
{
    char *all;
    size_t *offs;
    int rc = aosrun_allgather(rt, NULL, 0, &all, &offs);
    if (rc == AOS_OK) {
        free(all);
        free(offs);
    }
    return rc;
}

static void aosrun_stop(struct aos__runtime *rt, int finalized)
{
    if (!fd_ok(rt)) {
        boot_fd = -1;
        return;
    }
    if (finalized) {
        struct aos__boot_hello bye = aos__boot_my_hello(rt);
        bye.arena_size = 0; /* a hello with no arena is the goodbye */
        (void)aos__send_with_fd(boot_fd, &bye, sizeof bye, -1);
    }
    close(boot_fd);
    boot_fd = -1;
}

static void aosrun_global_exit(struct aos__runtime *rt, int status)
{
    if (!fd_ok(rt))
        return;
    struct aos__boot_hello msg = aos__boot_my_hello(rt);
    msg.magic = AOS__BOOT_EXIT_MAGIC;
    msg.static_len = (uint64_t)(uint32_t)status;
    (void)aos__send_with_fd(boot_fd, &msg, sizeof msg, -1);
}

const struct aos__boot aos__boot_aosrun = {
    .name = "aosrun",
    .start = aosrun_start,
    .exchange = aosrun_exchange,
    .allgather = aosrun_allgather,
    .barrier = aosrun_barrier,
    .global_exit = aosrun_global_exit,
    .stops_on_loss = aos__boot_stops_always,
    .stops_on_exit = 1,
    .stop = aosrun_stop,
};
