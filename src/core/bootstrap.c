#include "core/bootstrap.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/boot_proto.h"
#include "core/config.h"
#include "core/fdpass.h"

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
static int take_boot_fd(int fd, struct aos__runtime *rt)
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
    rt->boot_dev = (uint64_t)st.st_dev;
    rt->boot_ino = (uint64_t)st.st_ino;
    rt->boot_lost = 0;
    return high;
}

int aos__bootstrap_identify(struct aos__runtime *rt)
{
    long rank = 0, npes = 1, fd = -1;
    int have_fd = env_int(AOS__ENV_BOOT_FD, 0, 1 << 20, &fd);
    if (have_fd < 0)
        return AOS_ERR_BOOTSTRAP;
    if (have_fd == 0) {
        rt->me = 0;
        rt->npes = 1;
        rt->boot_fd = -1;
        return AOS_OK;
    }
    if (env_int(AOS__ENV_NPES, 1, 1 << 20, &npes) != 1 ||
        env_int(AOS__ENV_RANK, 0, npes - 1, &rank) != 1) {
        forget_launcher();
        return AOS_ERR_BOOTSTRAP;
    }
    int boot = take_boot_fd((int)fd, rt);
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
    rt->boot_fd = boot;
    return AOS_OK;
}

int aos__bootstrap_fd_ok(struct aos__runtime *rt)
{
    struct stat st;
    if (rt->boot_fd < 0)
        return 0;
    if (fstat(rt->boot_fd, &st) == 0 && (uint64_t)st.st_dev == rt->boot_dev &&
        (uint64_t)st.st_ino == rt->boot_ino)
        return 1;
    if (!rt->boot_lost)
        fprintf(stderr,
                "aos: PE %d: the program closed aos's connection to aosrun (descriptor %d); "
                "aosrun learns of aos_finalize from the PE's memory instead\n",
                rt->me, rt->boot_fd);
    rt->boot_lost = 1;
    return 0;
}

static struct aos__boot_hello my_hello(const struct aos__runtime *rt)
{
    return (struct aos__boot_hello){.magic = AOS__BOOT_MAGIC,
                                    .rank = (uint32_t)rt->me,
                                    .pid = (uint32_t)getpid(),
                                    .arena_size = rt->arena_size,
                                    .static_len = rt->static_len,
                                    .heap_off = rt->heap_off,
                                    .heap_size = rt->heap_size};
}

int aos__bootstrap_exchange(struct aos__runtime *rt, int *peer_fds)
{
    for (int pe = 0; pe < rt->npes; pe++)
        peer_fds[pe] = -1;
    struct aos__boot_hello mine = my_hello(rt);
    if (rt->boot_fd < 0) {
        rt->peers[0].pid = (pid_t)mine.pid;
        rt->peers[0].cluster = 0;
        rt->peers[0].node = 0;
        return AOS_OK;
    }
    if (aos__send_with_fd(rt->boot_fd, &mine, sizeof mine, rt->arena_fd) != 0) {
        fprintf(stderr, "aos: PE %d: cannot reach aosrun: %s\n", rt->me, strerror(errno));
        return AOS_ERR_BOOTSTRAP;
    }
    struct aos__boot_peer *peers = malloc((size_t)rt->npes * sizeof *peers);
    if (peers == NULL)
        return AOS_ERR_NO_MEMORY;
    int rc = AOS_OK;
    for (int pe = 0; pe < rt->npes && rc == AOS_OK; pe++) {
        if (aos__recv_with_fd(rt->boot_fd, &peers[pe], sizeof peers[pe], &peer_fds[pe]) != 0) {
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
        } else if (h->arena_size != mine.arena_size || h->static_len != mine.static_len ||
                   h->heap_off != mine.heap_off || h->heap_size != mine.heap_size) {
            fprintf(stderr,
                    "aos: PE %d and PE %d disagree on the memory layout (different "
                    "programs or AOS_HEAP_SIZE/AOS_SEGMENT_SPACE values)\n",
                    rt->me, pe);
            rc = AOS_ERR_BOOTSTRAP;
        }
        rt->peers[pe].pid = (pid_t)h->pid;
        rt->peers[pe].cluster = peers[pe].cluster;
        /* AOS_NODE_SIZE makes pseudo-nodes of consecutive PEs: they share no
         * memory, so every pair across them takes the network path. A
         * pseudo-node never spans two hosts. */
        rt->peers[pe].node =
            rt->cfg.node_size != 0
                ? peers[pe].node * rt->npes + (int)((uint64_t)pe / rt->cfg.node_size)
                : peers[pe].node;
    }
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

int aos__bootstrap_allgather(struct aos__runtime *rt, const void *mine, size_t len,
                             char **all, size_t **offs)
{
    if (len > AOS__BOOT_BLOB_MAX)
        return AOS_ERR_SIZE;
    size_t n = rt->boot_fd < 0 ? 1 : (size_t)rt->npes;
    size_t *o = calloc(n + 1, sizeof *o);
    char *buf = NULL;
    if (o == NULL)
        return AOS_ERR_NO_MEMORY;
    if (rt->boot_fd < 0) {
        buf = malloc(len + 1);
        if (buf == NULL)
            goto fail_offs;
        memcpy(buf, mine, len);
        o[1] = len;
        *all = buf;
        *offs = o;
        return AOS_OK;
    }
    struct aos__boot_hello h = my_hello(rt);
    h.magic = AOS__BOOT_BLOB_MAGIC;
    h.static_len = len;
    if (!aos__bootstrap_fd_ok(rt)) {
        errno = EBADF;
        goto fail_io;
    }
    if (aos__send_with_fd(rt->boot_fd, &h, sizeof h, -1) != 0 ||
        aos__send_exact(rt->boot_fd, mine, len) != 0)
        goto fail_io;
    size_t cap = n * len + 64, used = 0;
    buf = malloc(cap);
    if (buf == NULL)
        goto fail_offs;
    for (size_t pe = 0; pe < n; pe++) {
        int fd = -1;
        if (aos__recv_with_fd(rt->boot_fd, &h, sizeof h, &fd) != 0)
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
        if (aos__recv_exact(rt->boot_fd, buf + used, h.static_len) != 0)
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

void aos__bootstrap_bye(struct aos__runtime *rt)
{
    if (!aos__bootstrap_fd_ok(rt))
        return;
    struct aos__boot_hello bye = my_hello(rt);
    bye.arena_size = 0; /* a hello with no arena is the goodbye */
    (void)aos__send_with_fd(rt->boot_fd, &bye, sizeof bye, -1);
}

void aos__bootstrap_global_exit(struct aos__runtime *rt, int status)
{
    if (!aos__bootstrap_fd_ok(rt))
        return;
    struct aos__boot_hello msg = my_hello(rt);
    msg.magic = AOS__BOOT_EXIT_MAGIC;
    msg.static_len = (uint64_t)(uint32_t)status;
    (void)aos__send_with_fd(rt->boot_fd, &msg, sizeof msg, -1);
}
