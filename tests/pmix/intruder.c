/* A stranger at the door of the memory exchange among one host's PEs
 * (core/boot/node_share.c). Under mpirun, PE 1, before its aos_init, finds
 * the host's exchange socket (its name in /proc/net/unix ends in the job's
 * namespace) and asks to join as PE 1 with a wrong cookie, offering a
 * memfd. The leader must close that connection without handing it any
 * memory, and the job must still start and work: every PE puts its rank
 * into its right neighbour and checks what it got. */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "aos.h"
#include "core/boot/node_share.h"

static int fail(const char *what)
{
    fprintf(stderr, "intruder: FAIL: %s\n", what);
    return 1;
}

/* The exchange socket of this job: "@aos.<tag>.<host>.<job>" in
 * /proc/net/unix. Waits for the leader to open it. */
static int find_socket(const char *job, char *name, size_t cap)
{
    char suffix[300];
    snprintf(suffix, sizeof suffix, ".%s", job);
    for (int tries = 0; tries < 6000; tries++) {
        FILE *f = fopen("/proc/net/unix", "r");
        char line[512];
        while (f != NULL && fgets(line, sizeof line, f) != NULL) {
            line[strcspn(line, "\n")] = '\0';
            char *path = strstr(line, " @aos.");
            if (path == NULL)
                continue;
            path++;
            size_t len = strlen(path), sl = strlen(suffix);
            if (len > sl && strcmp(path + len - sl, suffix) == 0 && len < cap) {
                memcpy(name, path, len + 1);
                fclose(f);
                return (int)len;
            }
        }
        if (f != NULL)
            fclose(f);
        struct timespec pause = {0, 10 * 1000 * 1000};
        nanosleep(&pause, NULL);
    }
    return -1;
}

struct knock {
    int sock;
    ssize_t got;      /* bytes the leader sent back */
    int fds;          /* descriptors among them */
};

/* Waits for the leader's answer: there must be none, only the close. */
static void *listen_back(void *arg)
{
    struct knock *k = arg;
    char buf[256];
    union {
        char space[CMSG_SPACE(sizeof(int))];
        struct cmsghdr align;
    } control;
    struct iovec iov = {.iov_base = buf, .iov_len = sizeof buf};
    struct msghdr msg = {.msg_iov = &iov, .msg_iovlen = 1, .msg_control = control.space,
                         .msg_controllen = sizeof control.space};
    k->got = recvmsg(k->sock, &msg, MSG_CMSG_CLOEXEC);
    for (struct cmsghdr *c = CMSG_FIRSTHDR(&msg); k->got > 0 && c != NULL;
         c = CMSG_NXTHDR(&msg, c))
        k->fds += c->cmsg_type == SCM_RIGHTS;
    return NULL;
}

static int knock(struct knock *k, pthread_t *t)
{
    const char *job = getenv("PMIX_NAMESPACE");
    if (job == NULL)
        return fail("no PMIX_NAMESPACE: run me under mpirun");
    char name[256];
    int len = find_socket(job, name, sizeof name);
    if (len < 0)
        return fail("the host's exchange socket never appeared in /proc/net/unix");
    struct sockaddr_un sa = {.sun_family = AF_UNIX};
    memcpy(sa.sun_path + 1, name + 1, (size_t)len - 1); /* '@' is the leading NUL */
    k->sock = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (k->sock < 0 ||
        connect(k->sock, (struct sockaddr *)&sa,
                (socklen_t)(offsetof(struct sockaddr_un, sun_path) + (size_t)len)) != 0)
        return fail("cannot connect to the exchange socket");
    struct aos__share_join j = {.magic = AOS__SHARE_JOIN_MAGIC, .rank = 1};
    memset(j.cookie, 0x5a, sizeof j.cookie);
    int mfd = memfd_create("intruder", MFD_CLOEXEC);
    union {
        char space[CMSG_SPACE(sizeof(int))];
        struct cmsghdr align;
    } control;
    memset(&control, 0, sizeof control);
    struct iovec iov = {.iov_base = &j, .iov_len = sizeof j};
    struct msghdr msg = {.msg_iov = &iov, .msg_iovlen = 1, .msg_control = control.space,
                         .msg_controllen = sizeof control.space};
    struct cmsghdr *c = CMSG_FIRSTHDR(&msg);
    c->cmsg_level = SOL_SOCKET;
    c->cmsg_type = SCM_RIGHTS;
    c->cmsg_len = CMSG_LEN(sizeof(int));
    memcpy(CMSG_DATA(c), &mfd, sizeof mfd);
    if (mfd < 0 || sendmsg(k->sock, &msg, MSG_NOSIGNAL) != (ssize_t)sizeof j)
        return fail("cannot send the request");
    close(mfd);
    struct timeval tv = {.tv_sec = 200};
    setsockopt(k->sock, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    if (pthread_create(t, NULL, listen_back, k) != 0)
        return fail("no thread");
    return 0;
}

static long got_rank = -1;

int main(void)
{
    const char *rank = getenv("PMIX_RANK");
    int intruder = rank != NULL && strcmp(rank, "1") == 0;
    struct knock k = {.sock = -1};
    pthread_t t;
    if (intruder && knock(&k, &t) != 0)
        return 1;
    if (aos_init() != AOS_OK)
        return fail("aos_init failed");
    int me = aos_my_pe(), n = aos_n_pes();
    long mine = me;
    if (aos_putmem((me + 1) % n, &got_rank, &mine, sizeof mine, NULL) != AOS_OK ||
        aos_barrier_all() != AOS_OK)
        return fail("put or barrier failed");
    int rc = 0;
    if (got_rank != (me + n - 1) % n)
        rc = fail("wrong data from the left neighbour");
    if (intruder) {
        pthread_join(t, NULL);
        if (k.got != 0)
            rc = fail(k.got > 0 ? "the leader answered a wrong cookie" : "no close, an error");
        if (k.fds != 0)
            rc = fail("the leader handed memory to a wrong cookie");
        close(k.sock);
        if (rc == 0)
            printf("intruder: refused as it should be\n");
    }
    if (aos_finalize() != AOS_OK)
        rc = fail("aos_finalize failed");
    return rc;
}
