/* What an endpoint's lanes tell about a peer (aos__ucx_lane_traits).
 *
 * Applied by its CPU: over TCP (and wherever UCP emulates puts and atomics
 * with messages) the target's progress, on one of its threads, copies each
 * put into place and runs each atomic; it then rings its own bell
 * (aos__ucx_drive_once), so a wake message after the write would only cost
 * a send and a receive. Over RDMA the NIC writes and nobody at the target
 * sees it: there the writer must send the wake.
 *
 * Ordered: with one lane, and that lane TCP, every operation to the peer
 * travels in one byte stream in the order UCP issued it (UCP queues what
 * the socket cannot take yet behind what it holds), and the peer applies
 * them in the order they arrive: a put is in place before a later atomic,
 * message or get is looked at. No flush is needed to order them then, and
 * with both traits a flush can be a request the peer answers (ack.c).
 *
 * UCP has no query for an endpoint's transports in the versions we build
 * against, so this reads its printed configuration (printed.c): one line
 * per lane, such as
 * "lane[0]:  0:tcp/lo.0 md[0] -> md[0]/tcp/sysdev[255] rma_bw#0 am ...".
 * Anything unexpected counts as RDMA: the answer is only ever used to skip
 * work, never to do more. */
#include <stdio.h>
#include <string.h>

#include "transport/ucx/ucx.h"

/* One printed lane: its transport's name in *tl (n bytes), and whether it
 * carries puts or atomics (rma, rma_bw, amo). -1 when unreadable. */
static int read_lane(const char *line, const char **tl, size_t *n)
{
    const char *at = strstr(line, "lane[");
    if (at == NULL || (at = strchr(at, ':')) == NULL)
        return -1;
    at += strspn(at, ": ");
    at += strspn(at, "0123456789");
    if (*at != ':')
        return -1;
    at++;
    *n = strcspn(at, "/ ");
    if (at[*n] != '/')
        return -1;
    *tl = at;
    return strstr(at, " rma") != NULL || strstr(at, " amo") != NULL;
}

struct lane_counts {
    int lanes, tcp, remote_writes, unreadable;
};

static void count_lane(const char *line, void *arg)
{
    struct lane_counts *c = arg;
    if (strstr(line, "lane[") == NULL)
        return;
    const char *tl = NULL;
    size_t n = 0;
    int writes = read_lane(line, &tl, &n);
    c->lanes++;
    int is_tcp = writes >= 0 && n == 3 && strncmp(tl, "tcp", 3) == 0;
    c->tcp += is_tcp;
    c->unreadable += writes < 0;
    c->remote_writes += writes > 0 && !is_tcp;
}

static void print_ep(void *ep, FILE *f)
{
    ucp_ep_print_info(ep, f);
}

unsigned aos__ucx_lane_traits(ucp_ep_h ep)
{
    struct lane_counts c = {0};
    if (!aos__ucx_each_printed_line(print_ep, ep, count_lane, &c))
        return 0;
    if (c.lanes == 0 || c.unreadable != 0)
        return 0;
    unsigned traits = 0;
    if (c.remote_writes == 0)
        traits |= AOS__UCX_APPLIED_BY_CPU;
    if (c.lanes == 1 && c.tcp == 1)
        traits |= AOS__UCX_ORDERED;
    if (c.tcp == c.lanes)
        traits |= AOS__UCX_ALL_TCP;
    return traits;
}
