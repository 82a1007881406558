/* What the network progress thread sleeps on between turns (thread.c),
 * chosen at start-up. With AOS_NET_WAKEUP=1 (the default) it sleeps on
 * descriptors that announce every arrival, and with 2 always on the
 * second kind:
 *
 * - The TCP interfaces' own event sets (AOS__UCX_SLEEP_IFACES), where every
 *   transport UCX found is TCP or stays within this host. poll() on an
 *   epoll instance hangs the sleeper on it only for the length of the
 *   call, so while the program drives the worker a message costs no more
 *   than with no sleeper. Those sets are level-triggered and UCX's TCP
 *   arms nothing, so what arrived after the thread's last turn is seen by
 *   its poll. An eventfd of ours ends the sleep early. What UCP would
 *   signal on the worker's descriptor without an arrival (an endpoint
 *   failure its own thread found) waits for the next arrival or the end
 *   of the bounded sleep (thread.c).
 * - The worker's event descriptor (UCP_FEATURE_WAKEUP), where UCX found
 *   another network (RDMA), whose interfaces must be armed before a sleep
 *   (ucp_worker_arm). UCP then hangs every interface's set on the worker's
 *   for good, and over TCP each message pays for that second wake-up list
 *   in the sender's system call.
 *
 * The thread dozes on a futex instead (AOS__UCX_SLEEP_DOZE) with
 * AOS_NET_WAKEUP=0, and when the interfaces' sets cannot be found or UCX
 * reaches a peer through more than TCP (its shared memory, say), whose
 * arrivals they do not announce. */
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include "core/runtime.h"
#include "transport/ucx/ucx.h"

#define U aos__ucx

/* One printed resource, "#      resource 1  :  md 1  dev 1  flags -- tcp/lo":
 * whether it is TCP or reaches only this host (its device is "memory",
 * as for self, sysv, posix, cma, knem and xpmem). */
static int tcp_or_local(const char *line)
{
    const char *tl = strstr(line, "-- ");
    if (tl == NULL)
        return 0;
    tl += 3;
    const char *dev = strchr(tl, '/');
    if (dev == NULL)
        return 0;
    return (dev - tl == 3 && strncmp(tl, "tcp", 3) == 0) ||
           strncmp(dev + 1, "memory", 6) == 0;
}

struct resource_counts {
    int resources, others;
};

static void count_resource(const char *line, void *arg)
{
    struct resource_counts *c = arg;
    if (strstr(line, "resource ") == NULL)
        return;
    c->resources++;
    c->others += !tcp_or_local(line);
}

static void print_context(void *ctx, FILE *f)
{
    ucp_context_print_info(ctx, f);
}

int aos__ucx_context_tcp_only(ucp_context_h ctx)
{
    struct resource_counts c = {0};
    return aos__ucx_each_printed_line(print_context, ctx, count_resource, &c) &&
           c.resources > 0 && c.others == 0;
}

static void doze_instead(const char *why)
{
    aos__debug("network progress thread: dozes between polls (%s)", why);
    U.sleep_on = AOS__UCX_SLEEP_DOZE;
}

int aos__ucx_sleep_open(const struct aos__ucx_fds *before)
{
    if (U.sleep_on == AOS__UCX_SLEEP_WORKER) {
        aos__debug("network progress thread: sleeps on the worker's event descriptor");
        return aos__ucx_status(ucp_worker_get_efd(U.worker, &U.efd), "getting its event fd",
                               aos__rt.me);
    }
    if (U.sleep_on == AOS__UCX_SLEEP_DOZE) {
        doze_instead("AOS_NET_WAKEUP=0");
        return AOS_OK;
    }
    struct aos__ucx_fds sets;
    if (!aos__ucx_fds_event_sets(before, &sets)) {
        doze_instead("no interface event set found");
        return AOS_OK;
    }
    U.sleep_fds = calloc(sets.count + 1, sizeof *U.sleep_fds);
    U.wake_fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
    if (U.sleep_fds == NULL || U.wake_fd < 0) {
        free(sets.fd);
        aos__ucx_sleep_close();
        return AOS_ERR_NO_MEMORY;
    }
    U.sleep_fds[0] = (struct pollfd){.fd = U.wake_fd, .events = POLLIN};
    for (size_t i = 0; i < sets.count; i++)
        U.sleep_fds[i + 1] = (struct pollfd){.fd = sets.fd[i], .events = POLLIN};
    U.sleep_nfds = sets.count + 1;
    free(sets.fd);
    aos__debug("network progress thread: sleeps on %zu TCP interface event set(s)",
               U.sleep_nfds - 1);
    return AOS_OK;
}

void aos__ucx_sleep_close(void)
{
    if (U.wake_fd >= 0)
        close(U.wake_fd);
    U.wake_fd = -1;
    free(U.sleep_fds);
    U.sleep_fds = NULL;
    U.sleep_nfds = 0;
}

void aos__ucx_sleep_peer(int pe, unsigned traits)
{
    if (U.sleep_on == AOS__UCX_SLEEP_IFACES && !(traits & AOS__UCX_ALL_TCP)) {
        aos__debug("PE %d: reached through more than TCP", pe);
        doze_instead("a peer's arrivals reach no interface event set");
    }
}

int aos__ucx_sleep_arm(void)
{
    if (U.sleep_on != AOS__UCX_SLEEP_WORKER)
        return 1; /* level-triggered sets: nothing to arm */
    ucs_status_t st = ucp_worker_arm(U.worker);
    return st == UCS_OK ? 1 : st == UCS_ERR_BUSY ? 0 : -1;
}

int aos__ucx_sleep_poll(int ms)
{
    if (U.sleep_on == AOS__UCX_SLEEP_WORKER) {
        struct pollfd pf = {.fd = U.efd, .events = POLLIN};
        return poll(&pf, 1, ms);
    }
    int rc = poll(U.sleep_fds, (nfds_t)U.sleep_nfds, ms);
    if (rc > 0 && (U.sleep_fds[0].revents & POLLIN)) {
        uint64_t count;
        while (read(U.wake_fd, &count, sizeof count) < 0 && errno == EINTR)
            ;
    }
    return rc;
}

void aos__ucx_sleep_interrupt(void)
{
    if (U.sleep_on == AOS__UCX_SLEEP_WORKER) {
        (void)ucp_worker_signal(U.worker);
    } else if (U.sleep_on == AOS__UCX_SLEEP_IFACES) {
        uint64_t one = 1;
        /* A full counter (EAGAIN) already ends the next poll. */
        while (write(U.wake_fd, &one, sizeof one) < 0 && errno == EINTR)
            ;
    }
}
