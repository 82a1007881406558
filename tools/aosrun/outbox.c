#include "outbox.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

struct aosrun_outbox_msg {
    struct aosrun_outbox_msg *next;
    size_t len, sent;
    int fd; /* passed with the first byte; -1: none */
    char data[];
};

void aosrun_outbox_clear(struct aosrun_outbox *o)
{
    while (o->head != NULL) {
        struct aosrun_outbox_msg *m = o->head;
        o->head = m->next;
        free(m);
    }
    o->tail = NULL;
}

int aosrun_outbox_waiting(const struct aosrun_outbox *o)
{
    return o->head != NULL;
}

/* Sends what the socket takes of m: 1 all of it, 0 part or nothing (it is
 * full), -1 the PE's end is gone. */
static int send_some(int sock, struct aosrun_outbox_msg *m)
{
    union {
        char space[CMSG_SPACE(sizeof(int))];
        struct cmsghdr align;
    } control;
    while (m->sent < m->len) {
        struct iovec iov = {.iov_base = m->data + m->sent, .iov_len = m->len - m->sent};
        struct msghdr msg = {.msg_iov = &iov, .msg_iovlen = 1};
        if (m->sent == 0 && m->fd >= 0) {
            memset(&control, 0, sizeof control);
            msg.msg_control = control.space;
            msg.msg_controllen = sizeof control.space;
            struct cmsghdr *c = CMSG_FIRSTHDR(&msg);
            c->cmsg_level = SOL_SOCKET;
            c->cmsg_type = SCM_RIGHTS;
            c->cmsg_len = CMSG_LEN(sizeof(int));
            memcpy(CMSG_DATA(c), &m->fd, sizeof m->fd);
        }
        ssize_t n = sendmsg(sock, &msg, MSG_DONTWAIT | MSG_NOSIGNAL);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
            return 0;
        if (n <= 0)
            return -1;
        m->sent += (size_t)n;
    }
    return 1;
}

int aosrun_outbox_flush(struct aosrun_outbox *o, int sock)
{
    while (o->head != NULL) {
        int r = send_some(sock, o->head);
        if (r < 0) {
            aosrun_outbox_clear(o);
            return -1;
        }
        if (r == 0)
            return 0;
        struct aosrun_outbox_msg *m = o->head;
        o->head = m->next;
        if (o->head == NULL)
            o->tail = NULL;
        free(m);
    }
    return 0;
}

int aosrun_outbox_send(struct aosrun_outbox *o, int sock, const void *a, size_t alen,
                       const void *b, size_t blen, int fd)
{
    struct aosrun_outbox_msg *m = malloc(sizeof *m + alen + blen);
    if (m == NULL) {
        aosrun_outbox_clear(o);
        return -1;
    }
    *m = (struct aosrun_outbox_msg){.len = alen + blen, .fd = fd};
    memcpy(m->data, a, alen);
    if (blen != 0)
        memcpy(m->data + alen, b, blen);
    if (o->tail != NULL)
        o->tail->next = m;
    else
        o->head = m;
    o->tail = m;
    return aosrun_outbox_flush(o, sock);
}
