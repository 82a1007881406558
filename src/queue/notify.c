/* Notified access. A notification {source, tag, segment, state} travels in
 * the lane of its (source, target) pair (protocol in queue/notify_lanes.h):
 * the sender completes the transfer, then publishes a slot of the lane; the
 * target drains its lanes in aos__progress and matches each notification
 * against its started requests, or keeps it in the unexpected list. */
#include <sched.h>
#include <stdlib.h>
#include <string.h>

#include "arch/atomics.h"
#include "core/handle.h"
#include "arch/copy.h"
#include "core/am.h"
#include "core/event.h"
#include "core/runtime.h"
#include "core/wait.h"
#include "mem/segment.h"
#include "queue/notify_lanes.h"
#include "queue/queue.h"
#include "rma/rma.h"
#include "core/progress.h"

#define REQ_MAGIC 0x616e7271u

struct note {
    uint32_t source;
    uint32_t tag;
    uint32_t segment; /* directory index of the target segment */
    uint32_t state;   /* its directory state, so a reused slot does not match */
};

struct aos_notify_req {
    uint32_t magic;
    uint32_t segment;
    uint32_t seg_state;
    int source;        /* or AOS_ANY_SOURCE */
    uint32_t tag;      /* or AOS_ANY_TAG */
    uint64_t expected;
    uint64_t matched;
    int active;        /* started and not complete; cleared with release */
    int last_source;
    uint32_t last_tag;
    struct aos_notify_req *next_active;
};

/* Unexpected notifications, oldest first. */
struct unexpected {
    struct note n;
    struct unexpected *next;
};

/* My side of the lane to each target: positions are claimed with an atomic
 * add, since several threads may notify one target. A line each, so that
 * threads notifying different targets do not share one. */
struct lane_out {
    uint64_t next;                /* next position to claim */
    struct aos__note_slot *slots; /* the lane, in the target's arena (mapped) */
    uint64_t slots_off;           /* its arena offset there, for waking */
    uint64_t ack_off;             /* the target's ack: its offset in my arena */
    uint64_t *bits;               /* the word with my active-source bit there */
    uint32_t announced;           /* that bit is set */
    uint8_t pad[AOS__LINE - 44];
};
_Static_assert(sizeof(struct lane_out) == AOS__LINE, "one line per target");

/* My side of the lane from each source; changed under notify_lock only. */
struct lane_in {
    uint64_t consumed;            /* positions taken; read unlocked as a hint */
    uint64_t acked;               /* the count last written to the source's ack */
    struct aos__note_slot *slots; /* the lane, in my arena */
};

/* The body of a slot whose transfer failed after its position was claimed:
 * the target consumes it and delivers nothing (no segment has this index). */
#define VOID_SEGMENT UINT32_MAX

static struct lane_out *lanes_out;
static struct lane_in *lanes_in;
static const uint64_t *active_bits; /* my active-source bits; NULL when stopped */
static void on_note(int src, const void *payload, size_t len);
static int active_words;
/* 1 while a thread drains lanes or changes the unexpected list or the
 * started requests: every thread's progress may drain, and programs may
 * start requests on any thread. Held for a few loads and stores, so a
 * waiter yields rather than sleeps; unlocking is one store. */
static uint32_t notify_lock;
static struct unexpected *unx_head, **unx_tail = &unx_head;
static struct aos_notify_req *active_head, **active_tail = &active_head;

static void notify_progress(void);

int aos__notify_start(void)
{
    size_t n = (size_t)aos__rt.npes;
    lanes_out = aligned_alloc(AOS__LINE, n * sizeof *lanes_out);
    lanes_in = calloc(n, sizeof *lanes_in);
    if (lanes_out == NULL || lanes_in == NULL) {
        free(lanes_out);
        free(lanes_in);
        lanes_out = NULL;
        lanes_in = NULL;
        return AOS_ERR_NO_MEMORY;
    }
    memset(lanes_out, 0, n * sizeof *lanes_out);
    int me = aos__rt.me, npes = aos__rt.npes;
    char *mine = aos__rt.my_base + aos__rt.notify_off;
    for (int pe = 0; pe < npes; pe++) {
        lanes_in[pe].slots = (struct aos__note_slot *)(void *)(mine +
                                                               aos__notify_lane_off(npes, pe));
        struct lane_out *o = &lanes_out[pe];
        o->ack_off = aos__rt.notify_off + aos__notify_ack_off(npes, pe);
        if (aos__rt.peers[pe].base == NULL)
            continue; /* off the node: no lane (AOS_ERR_NOT_LOCAL) */
        char *theirs = aos__rt.peers[pe].base + aos__rt.notify_off;
        o->slots = (struct aos__note_slot *)(void *)(theirs + aos__notify_lane_off(npes, me));
        o->slots_off = aos__rt.notify_off + aos__notify_lane_off(npes, me);
        o->bits = (uint64_t *)(void *)theirs + me / 64;
    }
    active_words = (npes + 63) / 64;
    active_bits = (const uint64_t *)(void *)mine;
    aos__am_register(AOS__AM_NOTE, on_note); /* after the lanes: it writes them */
    return aos__progress_hook_add(notify_progress);
}

void aos__notify_stop(void)
{
    free(lanes_out);
    free(lanes_in);
    lanes_out = NULL;
    lanes_in = NULL;
    active_bits = NULL;
    while (unx_head != NULL) {
        struct unexpected *u = unx_head;
        unx_head = u->next;
        free(u);
    }
    unx_tail = &unx_head;
    active_head = NULL;
    active_tail = &active_head;
}

static int matches(const struct aos_notify_req *r, const struct note *n)
{
    return r->segment == n->segment && r->seg_state == n->state &&
           (r->source == AOS_ANY_SOURCE || (uint32_t)r->source == n->source) &&
           (r->tag == AOS_ANY_TAG || r->tag == n->tag);
}

static void take(struct aos_notify_req *r, const struct note *n)
{
    r->matched++;
    r->last_source = (int)n->source;
    r->last_tag = n->tag;
}

static void remove_active(struct aos_notify_req *r)
{
    struct aos_notify_req **pp = &active_head;
    while (*pp != r)
        pp = &(*pp)->next_active;
    *pp = r->next_active;
    if (active_tail == &r->next_active)
        active_tail = pp;
    r->next_active = NULL;
    /* Release: pairs with the acquire in req_done and aos_notify_test, so a
     * thread that sees the request complete sees its counts and last match. */
    aos__store_release(&r->active, 0);
}

/* The first started request that matches gets the notification, else it
 * joins the unexpected list. 0 when it could not be kept (no memory): it
 * stays in its lane and is taken again at the next progress. */
static int deliver(const struct note *n)
{
    for (struct aos_notify_req *r = active_head; r != NULL; r = r->next_active) {
        if (!matches(r, n))
            continue;
        take(r, n);
        if (r->matched == r->expected)
            remove_active(r);
        return 1;
    }
    struct unexpected *u = malloc(sizeof *u);
    if (u == NULL)
        return 0;
    u->n = *n;
    u->next = NULL;
    *unx_tail = u;
    unx_tail = &u->next;
    return 1;
}

static int lock_try(void)
{
    /* Acquire: pairs with lock_release, so the last holder's changes to the
     * lists and lanes_in are visible. */
    return aos__exchange_acquire(&notify_lock, 1) == 0;
}

static void lock_take(void)
{
    while (!lock_try())
        sched_yield();
}

static void lock_release(void)
{
    aos__store_release(&notify_lock, 0); /* pairs with lock_try's acquire */
}

/* Takes what source has published in its lane to me; under notify_lock. */
static void drain_lane(int source)
{
    struct lane_in *in = &lanes_in[source];
    for (;;) {
        uint64_t pos = in->consumed;
        struct aos__note_slot *slot = &in->slots[pos % AOS__NOTE_SLOTS];
        /* Acquire: pairs with the sender's release of pub, after its body
         * and its transfer. */
        uint64_t pub = aos__load_acquire(&slot->pub);
        if ((uint32_t)pub != (uint32_t)(pos + 1))
            break;
        /* Relaxed: ordered after pub's acquire; the sender rewrites the slot
         * only after our ack, which comes after this read. */
        uint64_t body = aos__load_relaxed(&slot->body);
        struct note n = {.source = (uint32_t)source,
                         .tag = (uint32_t)body,
                         .segment = (uint32_t)(body >> 32),
                         .state = (uint32_t)(pub >> 32)};
        if (n.segment != VOID_SEGMENT && !deliver(&n))
            break;
        /* Relaxed: other threads read it as a hint of work only (lane_ready). */
        aos__store_relaxed(&in->consumed, pos + 1);
    }
    if (in->consumed - in->acked >= AOS__NOTE_SLOTS / 2) {
        in->acked = in->consumed;
        /* Release + wake (signal_store): the sender reuses the slots only
         * after our reads of them; wakes a sender waiting for space. */
        (void)aos__tp(source)->signal_store(
            source, aos__rt.notify_off + aos__notify_ack_off(aos__rt.npes, aos__rt.me),
            in->consumed);
    }
}

static int lane_ready(int source)
{
    /* Relaxed, both: a hint that draining has work; drain_lane decides. */
    const struct lane_in *in = &lanes_in[source];
    uint64_t pos = aos__load_relaxed(&in->consumed);
    uint64_t pub = aos__load_relaxed(&in->slots[pos % AOS__NOTE_SLOTS].pub);
    return (uint32_t)pub == (uint32_t)(pos + 1);
}

/* Whether some lane in use holds a notification not yet taken. */
static int any_lane_ready(void)
{
    for (int w = 0; w < active_words; w++) {
        /* Relaxed: a source sets its bit before publishing its first slot;
         * a bit seen late only delays that lane to the next progress. */
        for (uint64_t b = aos__load_relaxed(&active_bits[w]); b != 0; b &= b - 1)
            if (lane_ready(w * 64 + __builtin_ctzll(b)))
                return 1;
    }
    return 0;
}

/* Drains every lane in use; under notify_lock. */
static void drain_lanes(void)
{
    for (int w = 0; w < active_words; w++)
        for (uint64_t b = aos__load_relaxed(&active_bits[w]); b != 0; b &= b - 1) /* as above */
            drain_lane(w * 64 + __builtin_ctzll(b));
}

/* The progress hook: drains my lanes; a load per lane in use when nothing
 * waits. */
static void notify_progress(void)
{
    if (active_bits == NULL || !any_lane_ready())
        return;
    if (!lock_try())
        return; /* another thread is draining, this lane too */
    drain_lanes();
    lock_release();
}

/* ---- senders -------------------------------------------------------------- */

/* Claims a slot in my lane to `target`, waiting while the lane is full. */
static int claim(int target, uint64_t *pos)
{
    /* Relaxed: the add only hands out distinct positions; the slot is
     * guarded by the ack, read with acquire by aos__wait_arena_word, which
     * pairs with the target's release in drain_lane (its reads of the slot
     * we reuse are done). */
    uint64_t p = aos__fetch_add_relaxed(&lanes_out[target].next, 1);
    if (p >= AOS__NOTE_SLOTS) {
        int rc = aos__wait_arena_word(lanes_out[target].ack_off, p + 1 - AOS__NOTE_SLOTS);
        if (rc != AOS_OK)
            return rc; /* the position stays claimed: the lane is unusable */
    }
    *pos = p;
    return AOS_OK;
}

/* Sets my bit in target's active-source bits, once. */
static void announce(int target)
{
    struct lane_out *o = &lanes_out[target];
    /* Relaxed: threads racing here both set the same bit, which is harmless. */
    if (aos__load_relaxed(&o->announced))
        return;
    /* Seq_cst: the bit is set before the slot the caller publishes next. */
    (void)aos__fetch_or_seq_cst(o->bits, 1ull << (aos__rt.me % 64));
    aos__store_relaxed(&o->announced, 1);
}

/* Publishes {me, tag, segment, state} at position pos of my lane to target
 * and wakes target's waiters on the slot and on [lo, hi) (the put's data;
 * lo == hi: none). */
static void publish(int target, uint64_t pos, uint32_t tag, uint32_t segment, uint32_t state,
                    uint64_t lo, uint64_t hi)
{
    const struct lane_out *o = &lanes_out[target];
    struct aos__note_slot *slot = &o->slots[pos % AOS__NOTE_SLOTS];
    /* Relaxed: published by the release in the exchange below. */
    aos__store_relaxed(&slot->body, (uint64_t)tag | (uint64_t)segment << 32);
    /* Release (a seq_cst exchange): the transfer and the body are visible
     * before pub, pairing with drain_lane's acquire; and, being a full
     * barrier, it orders the sleeper check below after every write, as the
     * writer's half of the sleep protocol (core/wait.c) requires. */
    (void)aos__exchange_seq_cst(&slot->pub, (uint32_t)(pos + 1) | (uint64_t)state << 32);
    aos__fence_after_rmw();
    uint64_t slot_off = o->slots_off + (pos % AOS__NOTE_SLOTS) * sizeof *slot +
                        offsetof(struct aos__note_slot, pub);
    if (lo == hi || slot_off < lo)
        lo = slot_off;
    if (slot_off + sizeof(uint64_t) > hi)
        hi = slot_off + sizeof(uint64_t);
    aos__bell_ring(&aos__rt.peers[target].header->bell, lo, hi, 1);
}

/* ---- across nodes ----------------------------------------------------------- */

/* A notification from a source on another node: what its publish would
 * have stored into my lane from it, which the handler stores instead. */
struct note_msg {
    uint64_t pos;
    uint64_t body;
    uint64_t pub;
};

static void on_note(int src, const void *payload, size_t len)
{
    struct note_msg m;
    if (len != sizeof m || src < 0 || src >= aos__rt.npes || lanes_in == NULL)
        return;
    memcpy(&m, payload, sizeof m);
    /* The source's bit, as its announce would set it; seq_cst: set before
     * the slot is published below. */
    (void)aos__fetch_or_seq_cst((uint64_t *)(uintptr_t)active_bits + src / 64,
                                1ull << (src % 64));
    struct aos__note_slot *slot = &lanes_in[src].slots[m.pos % AOS__NOTE_SLOTS];
    /* Relaxed: published by the exchange below (as in publish). */
    aos__store_relaxed(&slot->body, m.body);
    /* Release (seq_cst exchange): pairs with drain_lane's acquire; as a full
     * barrier it orders the sleeper check after the slot's stores. */
    (void)aos__exchange_seq_cst(&slot->pub, m.pub);
    aos__fence_after_rmw();
    aos__bell_ring_mine();
}

/* notified() for a target on another node: the data by the transport, then
 * the slot's contents in a message, which the transport delivers after the
 * data (transport.h); flow control is the lane's own: claim waits for the
 * target's acks, which come as signals into my arena. A put without an
 * event is still issued with one, of its own, waited for after the message
 * is sent: where the network applies them in issue order the notification
 * leaves at once behind the data and the put's completion round trip
 * overlaps it, instead of holding it back. */
static int notified_remote(int is_put, void *local, aos_seg_t *seg, uint64_t off, size_t len,
                           uint32_t tag, aos_event_t *ev)
{
    int target = seg->owner;
    uint64_t pos;
    int rc = claim(target, &pos);
    if (rc != AOS_OK)
        return rc;
    uint32_t segment = seg->index;
    struct aos_event own = {.magic = AOS__EVENT_MAGIC};
    aos_event_t *put_ev = ev != NULL ? ev : &own;
    int data_rc = AOS_OK, put_attached = 0;
    /* The claim may have waited for the owner, who may have destroyed the
     * segment meanwhile: then no data goes, and the slot goes void. */
    if (aos__seg_enter(seg) != AOS_OK) {
        data_rc = AOS_ERR_DESTROYED;
    } else if (len != 0 && is_put) {
        data_rc = aos__tp(target)->put(target, off, local, len, put_ev);
        put_attached = data_rc == AOS_OK;
    } else if (len != 0) {
        data_rc = aos__get_at(local, target, off, len, NULL);
    }
    if (data_rc != AOS_OK)
        segment = VOID_SEGMENT; /* the slot is filled all the same: the lane goes on */
    struct note_msg m = {.pos = pos,
                         .body = (uint64_t)tag | (uint64_t)segment << 32,
                         .pub = (uint32_t)(pos + 1) | (uint64_t)(uint32_t)seg->state << 32};
    rc = aos__tp(target)->am_send(target, AOS__AM_NOTE, &m, sizeof m, 0);
    if (put_attached && put_ev == &own) {
        /* Even when the message failed: the transport holds `own` until then. */
        int wait_rc = aos__event_wait(&own);
        rc = rc != AOS_OK ? rc : wait_rc;
    }
    if (data_rc != AOS_OK)
        return data_rc;
    if (rc == AOS_OK && !put_attached)
        aos__event_done_at_issue(ev);
    return rc;
}

/* The slot is claimed first, while this thread has no stores in flight
 * (the claim is a locked add, which would wait for them). A put's data is
 * copied straight into the target's mapping, with no wake of its own:
 * publish's one barrier then waits for the data's and the slot's lines
 * together, and its one wake covers both. */
static int notified(int is_put, void *local, aos_seg_t *seg, size_t offset, size_t len,
                    uint32_t tag, aos_event_t *ev)
{
    uint64_t off;
    int rc = aos__seg_access(seg, offset, len, AOS_PROTO_RMA | AOS_PROTO_NOTIFY, &off);
    if (rc != AOS_OK)
        return rc;
    if (tag == AOS_ANY_TAG)
        return AOS_ERR_INVALID; /* the wildcard: no request could match it alone */
    if (aos__event_bad(ev))
        return AOS_ERR_INVALID;
    int target = seg->owner;
    char *base = aos__rt.peers[target].base;
    if (len != 0 && local == NULL)
        return AOS_ERR_NULL;
    if (base == NULL) {
        if (ev == NULL)
            aos__serve_poll();
        return notified_remote(is_put, local, seg, off, len, tag, ev);
    }
    if (target == aos__rt.me) {
        rc = aos__check_self_overlap(target, off, local, len);
        if (rc != AOS_OK)
            return rc;
    }
    if (ev == NULL)
        aos__serve_poll();
    announce(target);
    uint64_t pos;
    rc = claim(target, &pos);
    if (rc != AOS_OK)
        return rc;
    /* The claim may have waited: the owner may have destroyed the segment
     * meanwhile, and must not find our data in memory it reclaimed. */
    if (aos__seg_enter(seg) != AOS_OK) {
        publish(target, pos, tag, VOID_SEGMENT, (uint32_t)seg->state, off, off);
        return AOS_ERR_DESTROYED;
    }
    if (len != 0 && is_put) {
        aos__copy(base + off, local, len);
        aos__seg_leave(seg);
        publish(target, pos, tag, seg->index, (uint32_t)seg->state, off, off + len);
    } else {
        aos__seg_leave(seg); /* a get writes nothing there */
        if (len != 0)
            rc = aos__get_at(local, target, off, len, NULL);
        /* A failed get still fills its slot, with a void body, so that the
         * lane goes on. */
        publish(target, pos, tag, rc == AOS_OK ? seg->index : VOID_SEGMENT,
                (uint32_t)seg->state, off, off);
        if (rc != AOS_OK)
            return rc;
    }
    aos__event_done_at_issue(ev);
    return AOS_OK;
}

int aos_put_notify(aos_seg_t *seg, size_t offset, const void *src, size_t len, uint32_t tag,
                   aos_event_t *ev)
{
    return notified(1, (void *)src, seg, offset, len, tag, ev);
}

int aos_get_notify(void *dst, aos_seg_t *seg, size_t offset, size_t len, uint32_t tag,
                   aos_event_t *ev)
{
    return notified(0, dst, seg, offset, len, tag, ev);
}

/* ---- requests at the owner ------------------------------------------------------ */

static int check_req(const aos_notify_req_t *r)
{
    if (r == NULL)
        return AOS_ERR_NULL;
    if (r->magic != REQ_MAGIC)
        return AOS_ERR_INVALID;
    AOS__CHECK_INIT();
    return AOS_OK;
}

int aos_notify_init(aos_seg_t *seg, int source, uint32_t tag, uint64_t expected,
                    aos_notify_req_t **req)
{
    uint64_t off;
    int rc = aos__seg_access(seg, 0, 0, AOS_PROTO_NOTIFY, &off);
    if (rc != AOS_OK)
        return rc;
    if (req == NULL)
        return AOS_ERR_NULL;
    if (!seg->created || seg->owner != aos__rt.me)
        return AOS_ERR_INVALID; /* notifications arrive at the owner only */
    if (source != AOS_ANY_SOURCE && (source < 0 || source >= aos__rt.npes))
        return AOS_ERR_PE;
    if (expected == 0)
        return AOS_ERR_SIZE;
    aos_notify_req_t *r = aos__handle_alloc(sizeof *r);
    if (r == NULL)
        return AOS_ERR_NO_MEMORY;
    *r = (aos_notify_req_t){.magic = REQ_MAGIC,
                            .segment = seg->index,
                            .seg_state = (uint32_t)seg->state,
                            .source = source,
                            .tag = tag,
                            .expected = expected,
                            .last_source = -1};
    *req = r;
    return AOS_OK;
}

int aos_notify_start(aos_notify_req_t *r)
{
    int rc = check_req(r);
    if (rc != AOS_OK)
        return rc;
    /* Acquire: pairs with remove_active's release (the last round's counts). */
    if (aos__load_acquire(&r->active))
        return AOS_ERR_AGAIN; /* still collecting its previous round */
    lock_take();
    if (any_lane_ready())
        drain_lanes(); /* what has arrived is unexpected until now */
    r->matched = 0;
    struct unexpected **pp = &unx_head;
    while (*pp != NULL && r->matched < r->expected) {
        struct unexpected *u = *pp;
        if (!matches(r, &u->n)) {
            pp = &u->next;
            continue;
        }
        take(r, &u->n);
        *pp = u->next;
        if (unx_tail == &u->next)
            unx_tail = pp;
        free(u);
    }
    if (r->matched < r->expected) {
        /* Relaxed: under the lock, as every later change is. */
        aos__store_relaxed(&r->active, 1);
        r->next_active = NULL;
        *active_tail = r;
        active_tail = &r->next_active;
    }
    lock_release();
    return AOS_OK;
}

static int req_done(const void *ctx)
{
    /* Acquire: pairs with remove_active's release. */
    return !aos__load_acquire(&((const aos_notify_req_t *)ctx)->active);
}

int aos_notify_test(aos_notify_req_t *r, int *done)
{
    int rc = check_req(r);
    if (rc != AOS_OK)
        return rc;
    if (done == NULL)
        return AOS_ERR_NULL;
    aos__progress();
    *done = req_done(r);
    return AOS_OK;
}

int aos_notify_wait(aos_notify_req_t *r)
{
    int rc = check_req(r);
    if (rc != AOS_OK)
        return rc;
    /* Senders ring with the slot's range; all of my arena is watched so
     * that RPCs to me are served while I sleep, as in every wait. */
    return aos__wait(req_done, r, AOS__FOREVER, AOS__WATCH_ALL);
}

int aos_notify_last(const aos_notify_req_t *r, int *source, uint32_t *tag)
{
    int rc = check_req(r);
    if (rc != AOS_OK)
        return rc;
    if (source == NULL || tag == NULL)
        return AOS_ERR_NULL;
    if (r->last_source < 0)
        return AOS_ERR_AGAIN; /* nothing matched yet */
    *source = r->last_source;
    *tag = r->last_tag;
    return AOS_OK;
}

int aos_notify_free(aos_notify_req_t *r)
{
    if (r == NULL)
        return AOS_OK;
    if (r->magic != REQ_MAGIC)
        return AOS_ERR_INVALID;
    if (aos__load_acquire(&r->active)) /* pairs with remove_active's release */
        return AOS_ERR_AGAIN;
    r->magic = 0;
    aos__handle_free(r);
    return AOS_OK;
}
