/* Which peers apply my writes with their own CPU. Over TCP (and wherever UCP
 * emulates puts and atomics with messages) the target's progress, on one of
 * its threads, copies each put into place and runs each atomic; it then rings
 * its own bell (aos__ucx_drive_once), so a wake message after the write
 * would only cost a send and a receive. Over RDMA the NIC writes and nobody
 * at the target sees it: there the writer must send the wake.
 *
 * UCP has no query for an endpoint's transports in the versions we build
 * against, so this reads its printed configuration: one line per lane, such
 * as "lane[0]:  0:tcp/lo.0 md[0] -> md[0]/tcp/sysdev[255] rma_bw#0 am ...".
 * Anything unexpected counts as RDMA (wakes are sent): the answer is only
 * ever used to skip work, never to do more. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "transport/ucx/ucx.h"

/* One printed lane: 1 when it carries puts or atomics (rma, rma_bw, amo)
 * through a transport other than TCP, 0 when not, -1 when unreadable. */
static int lane_writes_remotely(const char *line)
{
    const char *at = strstr(line, "lane[");
    if (at == NULL || (at = strchr(at, ':')) == NULL)
        return -1;
    at += strspn(at, ": ");
    at += strspn(at, "0123456789");
    if (*at != ':')
        return -1;
    at++;
    size_t n = strcspn(at, "/ ");
    if (at[n] != '/')
        return -1;
    int tcp = n == 3 && strncmp(at, "tcp", 3) == 0;
    int writes = strstr(at, " rma") != NULL || strstr(at, " amo") != NULL;
    return writes && !tcp;
}

int aos__ucx_target_applies(ucp_ep_h ep)
{
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    if (f == NULL)
        return 0;
    ucp_ep_print_info(ep, f);
    if (fclose(f) != 0) {
        free(text);
        return 0;
    }
    int lanes = 0, applies = 1;
    for (char *line = text, *end; line != NULL && *line != '\0'; line = end) {
        end = strchr(line, '\n');
        if (end != NULL)
            *end++ = '\0';
        if (strstr(line, "lane[") == NULL)
            continue;
        int r = lane_writes_remotely(line);
        lanes++;
        if (r != 0)
            applies = 0;
    }
    free(text);
    return lanes > 0 && applies;
}
