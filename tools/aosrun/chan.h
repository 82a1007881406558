/* A framed channel (hosts_proto.h) over non-blocking descriptors: sending
 * queues and writes what the descriptor takes, so that neither end of the
 * root-daemon link ever blocks on the other (both may write at once: PE
 * output one way, blobs the other). */
#ifndef AOSRUN_CHAN_H
#define AOSRUN_CHAN_H

#include <stddef.h>

#include "hosts_proto.h"

struct aosrun_chan {
    int in_fd;   /* -1 once closed */
    int out_fd;  /* may equal in_fd (a socket) */
    char *in;    /* received bytes in [in_off, in_len) */
    size_t in_off, in_len, in_cap;
    char *out;   /* bytes to write in [out_off, out_len) */
    size_t out_off, out_len, out_cap;
    int eof;     /* the read side ended (EOF or an error) */
    int broken;  /* the write side failed: the other end is gone */
};

/* Makes both descriptors non-blocking; the channel owns them. */
void aosrun_chan_init(struct aosrun_chan *c, int in_fd, int out_fd);
void aosrun_chan_close(struct aosrun_chan *c);

/* Queues one frame whose payload is a then b (either may be empty) and
 * writes what it can. Returns 0, or -1 when the channel is broken or out
 * of memory (c->broken set). */
int aosrun_chan_send(struct aosrun_chan *c, unsigned type, const void *a, size_t alen,
                     const void *b, size_t blen);
/* Writes what is queued as far as the descriptor takes it. */
void aosrun_chan_flush(struct aosrun_chan *c);
/* Queued bytes not yet written. */
size_t aosrun_chan_pending(const struct aosrun_chan *c);
/* Waits up to ms for the queue to drain (at the end of a daemon). */
void aosrun_chan_drain(struct aosrun_chan *c, int ms);

/* Reads what has arrived; at EOF or an error sets c->eof. */
void aosrun_chan_read(struct aosrun_chan *c);
/* The next complete frame received: 1 with *f and *payload (valid until
 * the next read), 0 when none is complete, -1 when the frame is malformed
 * (larger than AOSRUN_FRAME_MAX). */
int aosrun_chan_next(struct aosrun_chan *c, struct aosrun_frame *f, const char **payload);

#endif
