#include "chan.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static void set_nonblock(int fd)
{
    int fl = fcntl(fd, F_GETFL);
    if (fl >= 0)
        fcntl(fd, F_SETFL, fl | O_NONBLOCK);
}

void aosrun_chan_init(struct aosrun_chan *c, int in_fd, int out_fd)
{
    *c = (struct aosrun_chan){.in_fd = in_fd, .out_fd = out_fd};
    set_nonblock(in_fd);
    if (out_fd != in_fd)
        set_nonblock(out_fd);
}

void aosrun_chan_close(struct aosrun_chan *c)
{
    if (c->out_fd >= 0 && c->out_fd != c->in_fd)
        close(c->out_fd);
    if (c->in_fd >= 0)
        close(c->in_fd);
    free(c->in);
    free(c->out);
    *c = (struct aosrun_chan){.in_fd = -1, .out_fd = -1, .eof = 1, .broken = 1};
}

/* Makes room for want more bytes after *len in *buf (capacity *cap),
 * first dropping the *off bytes already consumed. */
static int reserve(char **buf, size_t *off, size_t *len, size_t *cap, size_t want)
{
    if (*off > 0) {
        memmove(*buf, *buf + *off, *len - *off);
        *len -= *off;
        *off = 0;
    }
    if (*cap - *len >= want)
        return 0;
    size_t ncap = *cap ? *cap : 4096;
    while (ncap - *len < want)
        ncap *= 2;
    char *n = realloc(*buf, ncap);
    if (n == NULL)
        return -1;
    *buf = n;
    *cap = ncap;
    return 0;
}

void aosrun_chan_flush(struct aosrun_chan *c)
{
    while (!c->broken && c->out_off < c->out_len) {
        ssize_t n = write(c->out_fd, c->out + c->out_off, c->out_len - c->out_off);
        if (n > 0) {
            c->out_off += (size_t)n;
        } else if (n < 0 && errno == EINTR) {
            continue;
        } else {
            if (n == 0 || (errno != EAGAIN && errno != EWOULDBLOCK))
                c->broken = 1;
            break;
        }
    }
    if (c->out_off == c->out_len)
        c->out_off = c->out_len = 0;
}

int aosrun_chan_send(struct aosrun_chan *c, unsigned type, const void *a, size_t alen,
                     const void *b, size_t blen)
{
    struct aosrun_frame f = {.type = type, .len = (uint32_t)(alen + blen)};
    if (c->broken || alen + blen > AOSRUN_FRAME_MAX ||
        reserve(&c->out, &c->out_off, &c->out_len, &c->out_cap, sizeof f + alen + blen) != 0) {
        c->broken = 1;
        return -1;
    }
    memcpy(c->out + c->out_len, &f, sizeof f);
    if (alen)
        memcpy(c->out + c->out_len + sizeof f, a, alen);
    if (blen)
        memcpy(c->out + c->out_len + sizeof f + alen, b, blen);
    c->out_len += sizeof f + alen + blen;
    aosrun_chan_flush(c);
    return c->broken ? -1 : 0;
}

size_t aosrun_chan_pending(const struct aosrun_chan *c)
{
    return c->broken ? 0 : c->out_len - c->out_off;
}

static long long ms_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

void aosrun_chan_drain(struct aosrun_chan *c, int ms)
{
    long long end = ms_now() + ms;
    while (aosrun_chan_pending(c) > 0) {
        long long left = end - ms_now();
        if (left <= 0)
            return;
        struct pollfd pf = {.fd = c->out_fd, .events = POLLOUT};
        if (poll(&pf, 1, (int)left) < 0 && errno != EINTR)
            return;
        aosrun_chan_flush(c);
    }
}

void aosrun_chan_read(struct aosrun_chan *c)
{
    for (;;) {
        if (reserve(&c->in, &c->in_off, &c->in_len, &c->in_cap, 65536) != 0) {
            c->eof = 1;
            return;
        }
        ssize_t n = read(c->in_fd, c->in + c->in_len, c->in_cap - c->in_len);
        if (n > 0) {
            c->in_len += (size_t)n;
            continue;
        }
        if (n < 0 && errno == EINTR)
            continue;
        if (n == 0 || (errno != EAGAIN && errno != EWOULDBLOCK))
            c->eof = 1;
        return;
    }
}

int aosrun_chan_next(struct aosrun_chan *c, struct aosrun_frame *f, const char **payload)
{
    size_t have = c->in_len - c->in_off;
    if (have < sizeof *f)
        return 0;
    memcpy(f, c->in + c->in_off, sizeof *f);
    if (f->len > AOSRUN_FRAME_MAX)
        return -1;
    if (have < sizeof *f + f->len)
        return 0;
    *payload = c->in + c->in_off + sizeof *f;
    c->in_off += sizeof *f + f->len;
    return 1;
}
