/* Portals: the receiver allows one sender one write straight into the
 * receiver's buffer (zero-copy: the data moves once, sender to final place).
 *
 * The receiver's portal is a small segment under the key (portal, port):
 * line 0 is the permission it grants, line 1 the sender's answer.
 *   receiver: buf_off, cap; then grant = (g, sender) in one word (release);
 *             ring the sender
 *   sender:   waits for a grant naming it with g past the last claimed
 *             (acquire: buf_off and cap are g's); claims g (below); puts
 *             the data at buf_off; len; then done = g (release + wake)
 *   receiver: done == g (acquire): the data and len are there.
 * The receiver writes the next permission's fields only after done == g,
 * and the sender named in a grant word is the one that word was written
 * for, so a sender never acts on another's permission or mixed fields.
 * The threads of the named sender, through one handle or several, claim
 * the permission by raising `claimed` to g with a compare-and-swap: one
 * of them wins and writes, the others wait for the next grant, so one
 * permission never carries two writes.
 *
 * A sender on another node cannot load the permission line: the receiver
 * sends it a copy (AOS__AM_PORTAL_GRANT) that lands in the sender's mirror
 * of that line, where the same protocol reads it; the sender's len goes by
 * put, ordered before its signal of done. */
#include <stdlib.h>
#include <string.h>

#include <pthread.h>

#include "arch/atomics.h"
#include "core/am.h"
#include "core/handle.h"
#include "core/event.h"
#include "core/runtime.h"
#include "core/wait.h"
#include "ipc/ipc.h"
#include "mem/memory.h"
#include "mem/segment.h"

#define PORTAL_MAGIC 0x706f7274u

/* A grant word: the permission's sequence number and the PE it allows. */
#define SENDER_BITS 24
#define GRANT(seq, sender) ((seq) << SENDER_BITS | (uint64_t)(sender))
_Static_assert(SENDER_BITS >= 24, "PE numbers up to 2^24");

struct portal_ctl {
    uint64_t grant;   /* receiver: GRANT(sequence, sender) of its latest (0: none) */
    uint64_t buf_off; /* where, in the receiver's arena */
    uint64_t cap;     /* at most this many bytes */
    uint64_t pad0[AOS__LINE / 8 - 3];
    uint64_t done;    /* sender: the permission it has answered */
    uint64_t len;     /* sender: the bytes it had (written when <= cap) */
    uint64_t claimed; /* sender: the last permission one of its writes took */
    uint64_t pad1[AOS__LINE / 8 - 3];
};
_Static_assert(sizeof(struct portal_ctl) == 2 * AOS__LINE, "permission and answer lines");
_Static_assert(offsetof(struct portal_ctl, done) == AOS__LINE, "answer on its own line");

struct aos_portal {
    uint32_t magic;
    int is_receiver;
    int receiver;
    aos_seg_t *seg;
    struct portal_ctl *ctl; /* mapped; a sender on another node: its mirror */
    uint64_t ctl_off;       /* arena offset of ctl at the receiver */
    uint64_t seq;           /* receiver: permissions granted (under `reading`) */
    int reading;            /* receiver: a read is outstanding (claimed by exchange) */
    uint64_t order;
    uint32_t pending;
};

static int check_portal(const aos_portal_t *p)
{
    if (p == NULL)
        return AOS_ERR_NULL;
    if (p->magic != PORTAL_MAGIC)
        return AOS_ERR_INVALID;
    AOS__CHECK_INIT();
    uint64_t off; /* the segment's checks: destroyed by the receiver */
    return aos__seg_access(p->seg, 0, 0, 0, &off);
}

/* ---- permission lines of receivers on other nodes --------------------------- */

/* My copy of one remote receiver's permission line (grant, buf_off, cap),
 * kept for the life of the runtime: a grant may arrive before the sender
 * opens the portal. One per portal, not per place: a portal closed and
 * created again at the same offset (its grants counting from 1 again) has a
 * mirror of its own, named by its segment's directory entry and state, so
 * the old one's last permission is never taken for the new one's. */
struct mirror {
    int receiver;
    uint32_t index;   /* the portal's segment: directory entry */
    uint64_t state;   /* and its state */
    uint64_t ctl_off;
    struct mirror *next;
    struct portal_ctl ctl;
};
static struct mirror *mirrors;
static pthread_mutex_t mirrors_lock = PTHREAD_MUTEX_INITIALIZER;

struct grant_msg {
    uint64_t ctl_off, grant, buf_off, cap;
    uint64_t state, index; /* the portal's segment (struct mirror) */
};

/* The mirror of the portal of receiver at ctl_off whose segment is
 * (index, state), made if new; NULL out of memory. */
static struct portal_ctl *mirror_of(int receiver, uint64_t ctl_off, uint32_t index,
                                    uint64_t state)
{
    pthread_mutex_lock(&mirrors_lock);
    struct mirror *m = mirrors;
    while (m != NULL && (m->receiver != receiver || m->ctl_off != ctl_off ||
                         m->index != index || m->state != state))
        m = m->next;
    if (m == NULL && (m = calloc(1, sizeof *m)) != NULL) {
        m->receiver = receiver;
        m->index = index;
        m->state = state;
        m->ctl_off = ctl_off;
        m->next = mirrors;
        mirrors = m;
    }
    pthread_mutex_unlock(&mirrors_lock);
    return m != NULL ? &m->ctl : NULL;
}

/* Stores a permission as the receiver's own stores would land; never an
 * older one over a newer (a get's reply and a grant message may arrive in
 * either order). */
static void mirror_grant(struct portal_ctl *c, uint64_t grant, uint64_t buf_off, uint64_t cap)
{
    pthread_mutex_lock(&mirrors_lock);
    /* Relaxed: writers hold the lock. */
    int older = grant >> SENDER_BITS < aos__load_relaxed(&c->grant) >> SENDER_BITS;
    if (!older) {
        /* Relaxed: published by the release of grant, as at the receiver. */
        aos__store_relaxed(&c->buf_off, buf_off);
        aos__store_relaxed(&c->cap, cap);
        aos__store_release(&c->grant, grant); /* pairs with the acquire in permitted() */
    }
    pthread_mutex_unlock(&mirrors_lock);
}

static void on_grant(int src, const void *payload, size_t len)
{
    struct grant_msg g;
    if (len != sizeof g)
        return;
    memcpy(&g, payload, sizeof g);
    if (g.index > UINT32_MAX)
        return;
    struct portal_ctl *c = mirror_of(src, g.ctl_off, (uint32_t)g.index, g.state);
    if (c == NULL)
        return;
    mirror_grant(c, g.grant, g.buf_off, g.cap);
    aos__fence_seq_cst(); /* the writer's half of the sleep protocol (core/wait.c) */
    aos__bell_ring_mine();
}

void aos__portal_start(void)
{
    aos__am_register(AOS__AM_PORTAL_GRANT, on_grant);
}

void aos__portal_stop(void)
{
    pthread_mutex_lock(&mirrors_lock);
    while (mirrors != NULL) {
        struct mirror *m = mirrors;
        mirrors = m->next;
        free(m);
    }
    pthread_mutex_unlock(&mirrors_lock);
}

/* A sender's view of a receiver on another node: its mirror, brought up
 * to date by one get of the receiver's control block (a grant may have
 * come before the open, or be on its way). */
static int remote_ctl(aos_seg_t *seg, struct portal_ctl **out)
{
    struct portal_ctl *c = mirror_of(seg->owner, seg->arena_off, seg->index, seg->state);
    if (c == NULL)
        return AOS_ERR_NO_MEMORY;
    struct portal_ctl now;
    int rc = aos__tp(seg->owner)->get(&now, seg->owner, seg->arena_off, sizeof now, NULL);
    if (rc != AOS_OK)
        return rc;
    mirror_grant(c, now.grant, now.buf_off, now.cap);
    /* Relaxed: a floor for the claims, which are compare-and-swaps on it;
     * the permissions answered before my handles existed are taken. */
    aos__raise_relaxed(&c->claimed, now.done);
    *out = c;
    return AOS_OK;
}

static int new_handle(aos_seg_t *seg, int is_receiver, aos_portal_t **out)
{
    void *ctl;
    int rc = aos__tp(seg->owner)->local_ptr(seg->owner, seg->arena_off, &ctl);
    if (rc == AOS_ERR_NOT_LOCAL && !is_receiver)
        rc = remote_ctl(seg, (struct portal_ctl **)&ctl);
    if (rc != AOS_OK)
        return rc;
    aos_portal_t *p = aos__handle_alloc(sizeof *p);
    if (p == NULL)
        return AOS_ERR_NO_MEMORY;
    *p = (aos_portal_t){.magic = PORTAL_MAGIC,
                        .is_receiver = is_receiver,
                        .receiver = seg->owner,
                        .seg = seg,
                        .ctl = ctl,
                        .ctl_off = seg->arena_off};
    *out = p;
    return AOS_OK;
}

int aos_portal_create(uint32_t port, aos_portal_t **p)
{
    AOS__CHECK_INIT();
    if (p == NULL)
        return AOS_ERR_NULL;
    aos_seg_t *seg;
    int rc = aos__seg_create_any(aos__ipc_key(AOS__IPC_PORTAL, port), sizeof(struct portal_ctl),
                                 AOS_PROTO_RMA, &seg);
    if (rc != AOS_OK)
        return rc;
    rc = new_handle(seg, 1, p);
    if (rc != AOS_OK)
        aos_seg_destroy(seg);
    return rc;
}

int aos_portal_open(int receiver, uint32_t port, aos_portal_t **p)
{
    AOS__CHECK_INIT();
    AOS__CHECK_PE(receiver);
    if (p == NULL)
        return AOS_ERR_NULL;
    aos_seg_t *seg;
    int rc = aos__seg_attach_any(receiver, aos__ipc_key(AOS__IPC_PORTAL, port), &seg);
    if (rc != AOS_OK)
        return rc;
    rc = new_handle(seg, 0, p);
    if (rc != AOS_OK)
        aos_seg_detach(seg);
    return rc;
}

int aos_portal_close(aos_portal_t *p)
{
    if (p == NULL)
        return AOS_ERR_NULL;
    if (p->magic != PORTAL_MAGIC)
        return AOS_ERR_INVALID;
    AOS__CHECK_INIT();
    /* Acquire: pairs with the release in ipc_progress's count down, and
     * with take_answer's release of reading. */
    if (aos__load_acquire(&p->pending) != 0 || aos__load_acquire(&p->reading))
        return AOS_ERR_AGAIN;
    int rc = p->is_receiver ? aos_seg_destroy(p->seg) : aos_seg_detach(p->seg);
    p->magic = 0;
    aos__handle_free(p);
    return rc;
}

/* ---- receiver ------------------------------------------------------------------ */

struct read_op {
    struct aos__ipc_op op;
    aos_portal_t *p;
    size_t *len;
    aos_event_t *ev;
};

static int answered(const void *ctx)
{
    const aos_portal_t *p = ctx;
    /* Acquire: pairs with the sender's release of done; data and len first. */
    return aos__load_acquire(&p->ctl->done) == p->seq;
}

static void take_answer(aos_portal_t *p, size_t *len)
{
    *len = (size_t)aos__load_relaxed(&p->ctl->len); /* ordered by answered()'s acquire */
    /* Release: pairs with the acquire exchange of the next read's claim
     * (p->seq and the control line are that read's from then on). */
    aos__store_release(&p->reading, 0);
}

static int read_ready(struct aos__ipc_op *op)
{
    struct read_op *r = (struct read_op *)op;
    if (!answered(r->p))
        return 0;
    take_answer(r->p, r->len);
    aos__event_complete_async(r->ev); /* any thread polls: see ops.c */
    return 1;
}

int aos_portal_read(aos_portal_t *p, int sender, void *buf, size_t cap, size_t *len,
                    aos_event_t *ev)
{
    int rc = check_portal(p);
    if (rc != AOS_OK)
        return rc;
    if (!p->is_receiver)
        return AOS_ERR_INVALID;
    AOS__CHECK_PE(sender);
    if (len == NULL || (buf == NULL && cap != 0))
        return AOS_ERR_NULL;
    if (ev != NULL && ev->magic != AOS__EVENT_MAGIC)
        return AOS_ERR_INVALID;
    /* The sender writes the whole range: it must lie in one object of the
     * user's that other PEs reach, never into the next one or aos's own. */
    uint64_t lo = 0;
    rc = cap != 0 ? aos__local_user_range(buf, cap, &lo) : AOS_OK;
    if (rc != AOS_OK)
        return rc;
    struct read_op *r = NULL;
    if (ev != NULL) {
        r = malloc(sizeof *r);
        if (r == NULL)
            return AOS_ERR_NO_MEMORY;
    }
    /* One permission at a time, whichever thread reads. Acquire: pairs with
     * take_answer's release. */
    if (aos__exchange_acquire(&p->reading, 1) != 0) {
        free(r);
        return AOS_ERR_AGAIN;
    }
    /* Relaxed: published by the release of grant. */
    aos__store_relaxed(&p->ctl->buf_off, lo);
    aos__store_relaxed(&p->ctl->cap, (uint64_t)cap);
    /* Release: pairs with the sender's acquire in permitted(). */
    aos__store_release(&p->ctl->grant, GRANT(++p->seq, sender));
    if (aos__on_node(sender)) {
        /* The sender may sleep waiting for this: a full barrier, then its bell. */
        aos__fence_seq_cst();
        aos__bell_ring(&aos__rt.peers[sender].header->bell, 0, UINT64_MAX, 1);
    } else {
        struct grant_msg g = {p->ctl_off, GRANT(p->seq, sender), lo,
                              (uint64_t)cap, p->seg->state, p->seg->index};
        rc = aos__tp(sender)->am_send(sender, AOS__AM_PORTAL_GRANT, &g, sizeof g, 0);
        if (rc != AOS_OK) {
            free(r);
            aos__store_release(&p->reading, 0); /* as take_answer */
            return rc;
        }
    }
    if (ev == NULL) {
        struct aos__watch w = {p->ctl_off + AOS__LINE, p->ctl_off + 2 * AOS__LINE};
        rc = aos__wait(answered, p, AOS__FOREVER, w);
        if (rc != AOS_OK)
            return rc;
        size_t n;
        take_answer(p, &n);
        *len = n;
        return n > cap ? AOS_ERR_SIZE : AOS_OK;
    }
    *r = (struct read_op){.op = {.poll = read_ready, .order = NULL, .pending = &p->pending},
                          .p = p,
                          .len = len,
                          .ev = ev};
    aos__event_post(ev);
    aos__ipc_op_add(&r->op);
    return AOS_OK;
}

/* ---- sender -------------------------------------------------------------------- */

struct permission {
    uint64_t seq, buf_off, cap;
};

/* The current permission if it is mine and nobody has claimed it. */
static int permitted(const aos_portal_t *p, struct permission *out)
{
    struct portal_ctl *c = p->ctl;
    uint64_t word = aos__load_acquire(&c->grant); /* pairs with the receiver's release */
    uint64_t g = word >> SENDER_BITS;
    /* Relaxed: a look; claim decides. */
    if (g <= aos__load_relaxed(&c->claimed) ||
        (word & ((1u << SENDER_BITS) - 1)) != (uint64_t)aos__rt.me)
        return 0;
    /* Relaxed: written before the grant word we acquired, and not again
     * until we answer. */
    *out = (struct permission){g, aos__load_relaxed(&c->buf_off), aos__load_relaxed(&c->cap)};
    return 1;
}

/* Takes permission m for one write: 1 for the one thread that raises
 * `claimed` to it, 0 for any other. Relaxed: the claim orders nothing;
 * m's fields were read under the grant's acquire and stay until the
 * winner answers. */
static int claim(const aos_portal_t *p, const struct permission *m)
{
    uint64_t *claimed = &p->ctl->claimed;
    uint64_t cur = aos__load_relaxed(claimed);
    while (cur < m->seq)
        if (__atomic_compare_exchange_n(claimed, &cur, m->seq, 1, __ATOMIC_RELAXED,
                                        __ATOMIC_RELAXED)) {
            /* Acquire: pairs with the release of done by whichever of my
             * threads answered the permission before (on my node: the
             * receiver granted this one after seeing it), so that its
             * write into the receiver's buffer is before mine here too,
             * not only through the receiver's process. */
            (void)aos__load_acquire(&p->ctl->done);
            return 1;
        }
    return 0;
}

/* This handle's writes with events are all done: a blocking write goes
 * after them. Acquire: as in aos_portal_close. */
static int writes_done(const aos_portal_t *p)
{
    return aos__load_acquire(&p->pending) == 0;
}

/* A blocking write may go (its turn and a permission), or the receiver
 * has closed the portal: the writer then returns AOS_ERR_DESTROYED
 * instead of waiting for ever. */
static int write_turn(const void *ctx)
{
    struct permission m;
    return (writes_done(ctx) && permitted(ctx, &m)) || check_portal(ctx) != AOS_OK;
}

/* Writes under permission m; AOS_ERR_SIZE (nothing written, the receiver
 * told the length) when len is over the permission's capacity. */
static int transfer(aos_portal_t *p, const struct permission *m, const void *src, size_t len)
{
    int rc = AOS_OK;
    if (len > m->cap)
        rc = AOS_ERR_SIZE;
    else if (len != 0)
        rc = aos__tp(p->receiver)->put(p->receiver, m->buf_off, src, len, NULL);
    if (rc != AOS_OK && rc != AOS_ERR_SIZE)
        return rc;
    uint64_t n = len;
    if (aos__on_node(p->receiver)) {
        aos__store_relaxed(&p->ctl->len, n); /* published by done's release */
    } else {
        /* signal_store below is ordered after this put (transport.h) */
        int len_rc = aos__tp(p->receiver)->put(p->receiver,
                                               p->ctl_off + offsetof(struct portal_ctl, len),
                                               &n, sizeof n, NULL);
        if (len_rc != AOS_OK)
            return len_rc;
    }
    int src_rc = aos__tp(p->receiver)->signal_store(p->receiver, p->ctl_off + AOS__LINE, m->seq);
    return src_rc != AOS_OK ? src_rc : rc;
}

struct write_op {
    struct aos__ipc_op op;
    aos_portal_t *p;
    const void *src;
    size_t len;
    aos_event_t *ev;
};

static int write_ready(struct aos__ipc_op *op)
{
    struct write_op *w = (struct write_op *)op;
    struct permission m;
    /* Any thread polls (ops.c): the event carries a failure. */
    if (check_portal(w->p) != AOS_OK) { /* closed by the receiver: nothing written */
        aos__event_fail_async(w->ev, AOS_ERR_DESTROYED);
        return 1;
    }
    if (!permitted(w->p, &m) || !claim(w->p, &m))
        return 0;
    int rc = transfer(w->p, &m, w->src, w->len); /* too long: the receiver sees the length */
    aos__event_done_async(w->ev, rc);
    return 1;
}

int aos_portal_write(aos_portal_t *p, const void *src, size_t len, aos_event_t *ev)
{
    int rc = check_portal(p);
    if (rc != AOS_OK)
        return rc;
    if (p->is_receiver)
        return AOS_ERR_INVALID;
    if (src == NULL && len != 0)
        return AOS_ERR_NULL;
    if (ev != NULL && ev->magic != AOS__EVENT_MAGIC)
        return AOS_ERR_INVALID;
    struct permission m;
    if (ev == NULL) {
        for (;;) { /* until this thread, not another, claims a permission */
            rc = aos__wait(write_turn, p, AOS__FOREVER, AOS__WATCH_ALL);
            if (rc == AOS_OK)
                rc = check_portal(p); /* closed meanwhile */
            if (rc != AOS_OK)
                return rc;
            if (writes_done(p) && permitted(p, &m) && claim(p, &m))
                return transfer(p, &m, src, len);
        }
    }
    if (writes_done(p) && permitted(p, &m) && claim(p, &m)) {
        rc = transfer(p, &m, src, len);
        if (rc == AOS_OK || rc == AOS_ERR_SIZE)
            aos__event_done_at_issue(ev);
        return rc;
    }
    struct write_op *w = malloc(sizeof *w);
    if (w == NULL)
        return AOS_ERR_NO_MEMORY;
    *w = (struct write_op){.op = {.poll = write_ready, .order = &p->order, .pending = &p->pending},
                           .p = p,
                           .src = src,
                           .len = len,
                           .ev = ev};
    aos__event_post(ev);
    aos__ipc_op_add(&w->op);
    return AOS_OK;
}
