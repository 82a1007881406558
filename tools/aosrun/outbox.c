#include "outbox.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "core/fdpass.h"

struct aosrun_outbox_item {
    size_t holds; /* the maker's, and one per queued message */
    size_t len;
    int fd; /* passed with the first byte; -1: none */
    char data[];
};

/* One item queued for one PE, and how much of it went. */
struct aosrun_outbox_msg {
    struct aosrun_outbox_msg *next;
    struct aosrun_outbox_item *item;
    size_t sent;
};

struct aosrun_outbox_item *aosrun_outbox_item(const void *a, size_t alen, const void *b,
                                              size_t blen, int fd)
{
    struct aosrun_outbox_item *it = malloc(sizeof *it + alen + blen);
    if (it == NULL)
        return NULL;
    *it = (struct aosrun_outbox_item){.holds = 1, .len = alen + blen, .fd = fd};
    memcpy(it->data, a, alen);
    if (blen != 0)
        memcpy(it->data + alen, b, blen);
    return it;
}

void aosrun_outbox_item_release(struct aosrun_outbox_item *it)
{
    if (it != NULL && --it->holds == 0)
        free(it);
}

/* Drops the head message. */
static void pop(struct aosrun_outbox *o)
{
    struct aosrun_outbox_msg *m = o->head;
    o->head = m->next;
    if (o->head == NULL)
        o->tail = NULL;
    if (m->item->fd >= 0)
        o->fds--;
    aosrun_outbox_item_release(m->item);
    free(m);
}

void aosrun_outbox_clear(struct aosrun_outbox *o)
{
    int saved = errno; /* (callers report the failure that cleared it) */
    while (o->head != NULL)
        pop(o);
    errno = saved;
}

int aosrun_outbox_waiting(const struct aosrun_outbox *o)
{
    return o->head != NULL;
}

int aosrun_outbox_holds_fd(const struct aosrun_outbox *o)
{
    return o->fds != 0;
}

int aosrun_outbox_stalled(const struct aosrun_outbox *o)
{
    return o->head != NULL && o->stalled;
}

/* Sends what the socket takes of m: 1 all of it, 0 part or nothing (it is
 * full, or its descriptor must wait), -1 a failure (errno). */
static int send_some(int sock, struct aosrun_outbox_msg *m)
{
    const struct aosrun_outbox_item *it = m->item;
    while (m->sent < it->len) {
        ssize_t n = aos__send_some_with_fd(sock, it->data + m->sent, it->len - m->sent,
                                           m->sent == 0 ? it->fd : -1, MSG_DONTWAIT);
        if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == ETOOMANYREFS))
            return 0;
        if (n <= 0) {
            if (n == 0)
                errno = EPIPE;
            return -1;
        }
        m->sent += (size_t)n;
    }
    return 1;
}

int aosrun_outbox_flush(struct aosrun_outbox *o, int sock)
{
    while (o->head != NULL) {
        errno = 0;
        int r = send_some(sock, o->head);
        if (r < 0) {
            aosrun_outbox_clear(o);
            return -1;
        }
        o->stalled = r == 0 && errno == ETOOMANYREFS;
        if (r == 0)
            return 0;
        pop(o);
    }
    return 0;
}

int aosrun_outbox_send(struct aosrun_outbox *o, int sock, struct aosrun_outbox_item *it)
{
    struct aosrun_outbox_msg *m = malloc(sizeof *m);
    if (m == NULL) {
        aosrun_outbox_clear(o);
        errno = ENOMEM;
        return -1;
    }
    it->holds++;
    *m = (struct aosrun_outbox_msg){.item = it};
    if (it->fd >= 0)
        o->fds++;
    if (o->tail != NULL)
        o->tail->next = m;
    else
        o->head = m;
    o->tail = m;
    return aosrun_outbox_flush(o, sock);
}
