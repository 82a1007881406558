#include "outbox.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "core/fdpass.h"

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
    while (m->sent < m->len) {
        ssize_t n = aos__send_some_with_fd(sock, m->data + m->sent, m->len - m->sent,
                                           m->sent == 0 ? m->fd : -1, MSG_DONTWAIT);
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
