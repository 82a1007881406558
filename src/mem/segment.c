/* Segments: named regions of a PE's arena that any PE attaches to by
 * (owner, key) by reading the owner's directory, with no help from the owner
 * (a load on its node, a get from another).
 *
 * Every access checks that the segment still lives by comparing the
 * handle's state with the owner's directory entry. Across nodes that entry
 * is not mapped: the handle reads a local mirror of the owner's states
 * instead, which the owner's destroy updates with a message (AOS__AM_SEG_
 * STATE). A directory entry's state only grows (odd while a segment lives
 * there), so a mirror keeps the highest state it has learnt, from attaches
 * and messages in whatever order they land. The owner's destroy returns
 * only once every PE of another node has answered that its mirror has the
 * new state (AOS__AM_SEG_STATE_SEEN), so anything that follows the destroy,
 * by whatever path it reaches a PE, finds the handle dead there; and the
 * answer comes after that PE's earlier puts, so none of them lands in the
 * segment that takes the memory next. Either way the check is best
 * effort: an access racing with the destroy is a program error. */
#include "mem/segment.h"
#include "core/handle.h"

#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "arch/atomics.h"
#include "core/am.h"
#include "core/wait.h"
#include "mem/memory.h"

/* Any thread may create and destroy segments: this lock keeps apart the
 * owner's side of them, its directory slots (a slot is taken again only
 * once its destroy has finished: owned[] says so), its keys, its segment
 * space (aos__rt.segspace) and the list of buffers published in place
 * (aos__rt.remaps). Nothing that waits on other PEs runs under it. */
static pthread_mutex_t seg_lock = PTHREAD_MUTEX_INITIALIZER;

/* The owner's handles by directory index, to release them at finalize;
 * seg_lock. */
static aos_seg_t *owned[AOS__MAX_SEGMENTS];

/* Per off-node owner, my mirror of its directory's states (allocated at the
 * first attach to it, freed at finalize). */
static uint64_t **mirror;

static uint64_t *mirror_of(int owner)
{
    if (aos__load_acquire(&mirror) == NULL) { /* pairs with the exchange below */
        uint64_t **fresh = calloc((size_t)aos__rt.npes, sizeof *fresh);
        uint64_t **none = NULL;
        /* Acq_rel: the winner publishes its zeroed array; losers see it. */
        if (fresh != NULL && !__atomic_compare_exchange_n(&mirror, &none, fresh, 0,
                                                          __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
            free(fresh);
        if (aos__load_acquire(&mirror) == NULL) /* pairs with the exchange above */
            return NULL;
    }
    uint64_t *m = aos__load_acquire(&mirror[owner]); /* pairs with the exchange below */
    if (m != NULL)
        return m;
    uint64_t *fresh = calloc(AOS__MAX_SEGMENTS, sizeof *fresh);
    uint64_t *none = NULL;
    if (fresh == NULL)
        return NULL;
    if (!__atomic_compare_exchange_n(&mirror[owner], &none, fresh, 0, __ATOMIC_ACQ_REL,
                                     __ATOMIC_ACQUIRE)) {
        free(fresh);
        return none; /* another thread's, seen by the failed exchange */
    }
    return fresh;
}

struct seg_state_msg {
    uint32_t index;
    uint32_t reserved;
    uint64_t state;
};

/* An owner on another node changed a directory entry (destroy): the
 * mirror learns it, and the owner that it has. */
static void on_seg_state(int src, const void *payload, size_t len)
{
    struct seg_state_msg m;
    if (len != sizeof m || src < 0 || src >= aos__rt.npes)
        return;
    memcpy(&m, payload, sizeof m);
    uint64_t **all = aos__load_acquire(&mirror); /* pairs with mirror_of's exchange */
    uint64_t *states = all != NULL ? aos__load_acquire(&all[src]) : NULL;
    if (states != NULL && m.index < AOS__MAX_SEGMENTS)
        aos__raise_relaxed(&states[m.index], m.state); /* relaxed: a best-effort check */
    (void)aos__tp(src)->am_send(src, AOS__AM_SEG_STATE_SEEN, &m, sizeof m, 0);
}

/* Per directory entry of mine: the state its destroy told the other
 * nodes, and how many PEs have answered that they have it. Written by the
 * destroying thread (the entry is its own until the destroy ends) and by
 * the answers' handler. */
static struct {
    uint64_t state;
    uint32_t seen;
} told[AOS__MAX_SEGMENTS];

static void on_seg_state_seen(int src, const void *payload, size_t len)
{
    (void)src;
    struct seg_state_msg m;
    if (len != sizeof m)
        return;
    memcpy(&m, payload, sizeof m);
    /* Relaxed: the state is stored before the messages go out (and the
     * transport's handoff orders it before their answers). */
    if (m.index >= AOS__MAX_SEGMENTS || aos__load_relaxed(&told[m.index].state) != m.state)
        return; /* an answer to a destroy that gave up waiting (the job ends) */
    aos__fetch_add_release(&told[m.index].seen, 1); /* pairs with all_seen's acquire */
    aos__fence_seq_cst(); /* the writer's half of the sleep protocol (core/wait.c) */
    aos__bell_ring_mine();
}

struct told_wait {
    uint32_t index, peers;
};

/* Every PE told has answered, or one of them is gone (then the job ends:
 * nobody is left to be wrong about the segment). */
static int all_seen(const void *ctx)
{
    const struct told_wait *w = ctx;
    if (aos__load_acquire(&told[w->index].seen) >= w->peers) /* pairs with the handler */
        return 1;
    for (int pe = 0; pe < aos__rt.npes; pe++)
        if (!aos__on_node(pe) && aos__load_relaxed(&aos__rt.peers[pe].lost)) /* relaxed: a flag */
            return 1;
    return 0;
}

/* Tells the PEs of other nodes that my entry `index` is now `state`, and
 * waits until each has it (see the top). */
static void tell_other_nodes(uint32_t index, uint64_t state)
{
    if (aos__rt.net == NULL || aos__rt.finalizing)
        return; /* at finalize every handle goes anyway */
    aos__store_relaxed(&told[index].seen, 0);
    aos__store_relaxed(&told[index].state, state);
    struct seg_state_msg m = {.index = index, .state = state};
    struct told_wait w = {.index = index, .peers = 0};
    for (int pe = 0; pe < aos__rt.npes; pe++)
        if (!aos__on_node(pe) &&
            aos__tp(pe)->am_send(pe, AOS__AM_SEG_STATE, &m, sizeof m, 0) == AOS_OK)
            w.peers++;
    (void)aos__wait(all_seen, &w, AOS__FOREVER, AOS__WATCH_ALL); /* fails only as the job ends */
}

static struct aos__seg_entry *directory(int pe)
{
    return aos__rt.peers[pe].header->segments;
}

/* seg_lock held. Relaxed loads of the states: a destroy makes its entry's
 * even outside the lock; a segment found live while its destroy runs is
 * live still for this check (the key is not free yet). Keys are written
 * under the lock. */
static int key_is_live(uint64_t key)
{
    struct aos__seg_entry *dir = directory(aos__rt.me);
    for (int i = 0; i < AOS__MAX_SEGMENTS; i++)
        if ((aos__load_relaxed(&dir[i].state) & 1u) && dir[i].key == key)
            return 1;
    return 0;
}

/* A slot with no segment, whose last destroy (if any) has finished. */
static int free_slot(void)
{
    struct aos__seg_entry *dir = directory(aos__rt.me);
    for (int i = 0; i < AOS__MAX_SEGMENTS; i++)
        if ((aos__load_relaxed(&dir[i].state) & 1u) == 0 && owned[i] == NULL) /* see key_is_live */
            return i;
    return -1;
}

/* Fills a directory slot and publishes it; returns the owner's handle.
 * seg_lock held. */
static int publish(uint64_t key, uint64_t arena_off, uint64_t size, unsigned protocols,
                   struct aos__remap *remap, aos_seg_t **out)
{
    int slot = free_slot();
    if (slot < 0)
        return AOS_ERR_TOO_MANY;
    aos_seg_t *s = aos__handle_alloc(sizeof *s);
    if (s == NULL)
        return AOS_ERR_NO_MEMORY;
    struct aos__seg_entry *e = &directory(aos__rt.me)[slot];
    e->key = key;
    e->offset = arena_off;
    e->size = size;
    e->protocols = protocols;
    uint64_t state = e->state + 1;
    /* Release: pairs with the acquire in attach; the fields above are seen
     * by any PE that sees the odd state. */
    aos__store_release(&e->state, state);
    *s = (aos_seg_t){.magic = AOS__SEG_MAGIC,
                     .owner = aos__rt.me,
                     .created = 1,
                     .index = (uint32_t)slot,
                     .state = state,
                     .key = key,
                     .arena_off = arena_off,
                     .size = size,
                     .protocols = protocols,
                     .entry_state = &e->state,
                     .entry_writers = &e->writers,
                     .remap = remap};
    owned[slot] = s;
    *out = s;
    return AOS_OK;
}

static int check_create(size_t size, unsigned protocols, aos_seg_t **seg)
{
    AOS__CHECK_INIT();
    if (seg == NULL)
        return AOS_ERR_NULL;
    if (protocols == 0 || (protocols & ~AOS_PROTO_ALL) != 0)
        return AOS_ERR_INVALID;
    if (size == 0)
        return AOS_ERR_SIZE;
    return AOS_OK;
}

int aos__seg_create_any(uint64_t key, size_t size, unsigned protocols, aos_seg_t **seg)
{
    return aos__seg_create_init(key, size, protocols, NULL, NULL, seg);
}

int aos__seg_create_init(uint64_t key, size_t size, unsigned protocols, aos__seg_init_fn init,
                         const void *ctx, aos_seg_t **seg)
{
    int rc = check_create(size, protocols, seg);
    if (rc != AOS_OK)
        return rc;
    if (size > aos__rt.segspace_size)
        return AOS_ERR_SIZE;
    uint64_t len = (size + aos__rt.page_size - 1) & ~(uint64_t)(aos__rt.page_size - 1);
    uint64_t off;
    pthread_mutex_lock(&seg_lock);
    rc = key_is_live(key) ? AOS_ERR_EXISTS
                          : aos__range_alloc(&aos__rt.segspace, len, aos__rt.page_size, &off);
    if (rc != AOS_OK)
        goto out;
    /* Fresh ranges are zero: destroy punches its pages out of the memfd.
     * Registered for the network before peers can find it. */
    rc = aos__expose(off, len);
    if (rc == AOS_OK && init != NULL)
        init(aos__rt.my_base + off, ctx); /* published by publish's release */
    if (rc == AOS_OK)
        rc = publish(key, off, size, protocols, NULL, seg);
    if (rc == AOS_OK)
        (*seg)->holds_aos_object = init != NULL;
    if (rc != AOS_OK && init != NULL) /* the next range taken from here must be zero */
        madvise(aos__rt.my_base + off, len, MADV_REMOVE);
    if (rc != AOS_OK)
        aos__range_free(&aos__rt.segspace, off);
out:
    pthread_mutex_unlock(&seg_lock);
    return rc;
}

/* The calling thread's stack cannot be moved: the page copy would miss what
 * the very calls that move it push onto it. */
static int on_my_stack(uintptr_t lo, uintptr_t hi)
{
    pthread_attr_t attr;
    void *base = NULL;
    size_t size = 0;
    if (pthread_getattr_np(pthread_self(), &attr) != 0)
        return 0;
    int ok = pthread_attr_getstack(&attr, &base, &size) == 0;
    pthread_attr_destroy(&attr);
    uintptr_t s = (uintptr_t)base;
    return ok && lo < s + size && s < hi;
}

/* Any PE's arena mapped here (mine outside the heap and static data, or an
 * on-node peer's): moving those pages would cut this process off from that
 * memory, and later accesses to it would land in a private copy. */
static int overlaps_arena(uintptr_t lo, uintptr_t hi)
{
    for (int pe = 0; pe < aos__rt.npes; pe++) {
        uintptr_t base = (uintptr_t)aos__rt.peers[pe].base;
        if (base != 0 && lo < base + aos__rt.arena_size && base < hi)
            return 1;
    }
    return 0;
}

/* seg_lock held. */
static int overlaps_remap(uintptr_t lo, uintptr_t hi)
{
    for (struct aos__remap *r = aos__rt.remaps; r != NULL; r = r->next)
        if (lo < r->hi && r->lo < hi)
            return 1;
    return 0;
}

int aos_seg_create(uint64_t key, size_t size, unsigned protocols, aos_seg_t **seg)
{
    if (aos__key_reserved(key))
        return AOS_ERR_INVALID;
    return aos__seg_create_any(key, size, protocols, seg);
}

/* Moves the pages of private memory [buf, buf + size) into my arena and
 * publishes them there. seg_lock held. */
static int create_in_place(uint64_t key, void *buf, size_t size, unsigned protocols,
                           aos_seg_t **seg)
{
    uintptr_t a = (uintptr_t)buf, page = aos__rt.page_size;
    if (a + size > UINTPTR_MAX - page)
        return AOS_ERR_SIZE; /* the page-rounded end would wrap */
    uintptr_t lo = a & ~(page - 1);
    uintptr_t hi = (a + size + page - 1) & ~(page - 1);
    if (overlaps_remap(lo, hi))
        return AOS_ERR_OVERLAP;
    if (on_my_stack(lo, hi))
        return AOS_ERR_INVALID;
    const char *why = "memory of a PE's arena (a peer's or my own outside the heap)";
    int rc = overlaps_arena(lo, hi) ? AOS_ERR_INVALID : aos__check_own_memory(lo, hi, &why);
    if (rc != AOS_OK) {
        aos__debug("aos_seg_create_from(key %#llx, %p, %zu): refused: %s", (unsigned long long)key,
                   buf, size, why);
        return rc;
    }
    if (hi - lo > aos__rt.segspace_size)
        return AOS_ERR_SIZE;
    struct aos__remap *r = malloc(sizeof *r);
    if (r == NULL)
        return AOS_ERR_NO_MEMORY;
    uint64_t off;
    rc = aos__range_alloc(&aos__rt.segspace, hi - lo, page, &off);
    if (rc != AOS_OK)
        goto fail_remap;
    rc = aos__remap_into_arena(&aos__rt, lo, hi, off);
    if (rc != AOS_OK)
        goto fail_range;
    rc = aos__expose(off, hi - lo);
    if (rc != AOS_OK)
        goto fail_mapped;
    *r = (struct aos__remap){.lo = lo, .hi = hi, .arena_off = off, .next = aos__rt.remaps};
    rc = publish(key, off + (a - lo), size, protocols, r, seg);
    if (rc != AOS_OK)
        goto fail_mapped;
    /* Relaxed: readers walk the list under seg_lock; aos__remap_find's
     * unlocked look only asks whether it is empty. */
    aos__store_relaxed(&aos__rt.remaps, r);
    return AOS_OK;

fail_mapped:
    aos__remap_out_of_arena(&aos__rt, lo, hi, off);
fail_range:
    aos__range_free(&aos__rt.segspace, off);
fail_remap:
    free(r);
    return rc;
}

int aos_seg_create_from(uint64_t key, void *buf, size_t size, unsigned protocols,
                        aos_seg_t **seg)
{
    if (aos__key_reserved(key))
        return AOS_ERR_INVALID;
    int rc = check_create(size, protocols, seg);
    if (rc != AOS_OK)
        return rc;
    if (buf == NULL)
        return AOS_ERR_NULL;
    uintptr_t a = (uintptr_t)buf;
    if (a + size < a)
        return AOS_ERR_SIZE;
    uint64_t off;
    pthread_mutex_lock(&seg_lock);
    if (key_is_live(key)) {
        rc = AOS_ERR_EXISTS;
        goto out;
    }
    if (aos__sym_locate(buf, size, &off) == AOS_OK) { /* already shared memory */
        rc = publish(key, off, size, protocols, NULL, seg);
        goto out;
    }
    rc = create_in_place(key, buf, size, protocols, seg);
out:
    pthread_mutex_unlock(&seg_lock);
    return rc;
}

/* Attach to an owner on another node: its directory comes by get, and the
 * entry is read again to be sure it did not change meanwhile. */
static int attach_remote(int owner, uint64_t key, aos_seg_t **seg)
{
    uint64_t *states = mirror_of(owner);
    struct aos__seg_entry *dir = malloc(AOS__MAX_SEGMENTS * sizeof *dir);
    if (states == NULL || dir == NULL) {
        free(dir);
        return AOS_ERR_NO_MEMORY;
    }
    uint64_t dir_off = offsetof(struct aos__arena_header, segments);
    int rc = aos__tp(owner)->get(dir, owner, dir_off, AOS__MAX_SEGMENTS * sizeof *dir, NULL);
    for (int i = 0; rc == AOS_OK && i < AOS__MAX_SEGMENTS; i++) {
        if ((dir[i].state & 1u) == 0 || dir[i].key != key)
            continue;
        struct aos__seg_entry again;
        rc = aos__tp(owner)->get(&again, owner, dir_off + (uint64_t)i * sizeof again,
                                 sizeof again, NULL);
        if (rc != AOS_OK)
            break;
        if (again.state != dir[i].state)
            continue; /* changed under us: destroyed, or another segment now */
        /* Raised, not stored: the destroy's message may have come in
         * during the gets, and must not be undone. Relaxed: a best-effort
         * check (the message of a destroy that synchronized with us is
         * applied by then). */
        aos__raise_relaxed(&states[i], again.state);
        if (aos__load_relaxed(&states[i]) != again.state)
            continue; /* destroyed meanwhile */
        aos_seg_t *s = aos__handle_alloc(sizeof *s);
        if (s == NULL) {
            rc = AOS_ERR_NO_MEMORY;
            break;
        }
        *s = (aos_seg_t){.magic = AOS__SEG_MAGIC,
                         .owner = owner,
                         .index = (uint32_t)i,
                         .state = again.state,
                         .key = key,
                         .arena_off = again.offset,
                         .size = again.size,
                         .protocols = again.protocols,
                         .entry_state = &states[i]};
        free(dir);
        *seg = s;
        return AOS_OK;
    }
    free(dir);
    return rc != AOS_OK ? rc : AOS_ERR_NO_KEY;
}

int aos__seg_gone(const aos_seg_t *seg)
{
    if (seg->entry_writers != NULL) /* on-node: the entry itself */
        return aos__load_acquire(seg->entry_state) != seg->state; /* pairs with unpublish */
    uint64_t state;
    uint64_t at = offsetof(struct aos__arena_header, segments) +
                  (uint64_t)seg->index * sizeof(struct aos__seg_entry) +
                  offsetof(struct aos__seg_entry, state);
    if (aos__tp(seg->owner)->get(&state, seg->owner, at, sizeof state, NULL) != AOS_OK)
        return 1; /* the owner is unreachable: gone to us */
    return state != seg->state;
}

int aos__seg_mine_published(uint32_t index, uint64_t state)
{
    if (index >= AOS__MAX_SEGMENTS || (state & 1u) == 0)
        return 0;
    /* Acquire: pairs with publish's release; states only grow, so an equal
     * one is that publication still. */
    return aos__load_acquire(&directory(aos__rt.me)[index].state) == state;
}

int aos__seg_attach_any(int owner, uint64_t key, aos_seg_t **seg)
{
    AOS__CHECK_INIT();
    AOS__CHECK_PE(owner);
    if (seg == NULL)
        return AOS_ERR_NULL;
    if (!aos__on_node(owner))
        return attach_remote(owner, key, seg);
    void *p;
    int rc = aos__tp(owner)->local_ptr(owner, 0, &p);
    if (rc != AOS_OK)
        return rc == AOS_ERR_NOT_LOCAL ? AOS_ERR_UNSUPPORTED : rc;
    struct aos__seg_entry *dir = ((struct aos__arena_header *)p)->segments;
    for (int i = 0; i < AOS__MAX_SEGMENTS; i++) {
        /* Acquire: pairs with the release in publish(), so the fields read
         * below are those published with this state. */
        uint64_t state = aos__load_acquire(&dir[i].state);
        if ((state & 1u) == 0 || aos__load_relaxed(&dir[i].key) != key)
            continue;
        aos_seg_t tmp = {.magic = AOS__SEG_MAGIC,
                         .owner = owner,
                         .index = (uint32_t)i,
                         .state = state,
                         .key = key,
                         .arena_off = aos__load_relaxed(&dir[i].offset),
                         .size = aos__load_relaxed(&dir[i].size),
                         .protocols = aos__load_relaxed(&dir[i].protocols),
                         .entry_state = &dir[i].state,
                         .entry_writers = &dir[i].writers};
        /* Seqlock check: fields are rewritten only after the state changes. */
        aos__fence_acquire();
        if (aos__load_relaxed(&dir[i].state) != state)
            continue;
        aos_seg_t *s = aos__handle_alloc(sizeof *s);
        if (s == NULL)
            return AOS_ERR_NO_MEMORY;
        *s = tmp;
        *seg = s;
        return AOS_OK;
    }
    return AOS_ERR_NO_KEY;
}

int aos_seg_attach(int owner, uint64_t key, aos_seg_t **seg)
{
    if (aos__key_reserved(key))
        return AOS_ERR_INVALID;
    return aos__seg_attach_any(owner, key, seg);
}

int aos_seg_detach(aos_seg_t *seg)
{
    if (seg == NULL)
        return AOS_ERR_NULL;
    if (seg->magic != AOS__SEG_MAGIC)
        return AOS_ERR_INVALID;
    if (seg->created)
        return AOS_ERR_INVALID; /* the owner destroys instead */
    seg->magic = 0;
    aos__handle_free(seg);
    return AOS_OK;
}

int aos__seg_enter(const aos_seg_t *seg)
{
    /* Off-node: the mirror, which the destroy's message updated before any
     * later message of the owner was applied here. Relaxed: a best-effort
     * check, as in aos__seg_access. */
    if (seg->entry_writers == NULL)
        return aos__load_relaxed(seg->entry_state) == seg->state ? AOS_OK : AOS_ERR_DESTROYED;
    /* Seq_cst, with the load below, against destroy's store of the state
     * and load of writers (a Dekker pair): either destroy sees us inside and
     * waits, or we see its state and stay out. */
    aos__fetch_add_seq_cst(seg->entry_writers, 1);
    if (aos__load_seq_cst(seg->entry_state) == seg->state)
        return AOS_OK;
    aos__fetch_sub_seq_cst(seg->entry_writers, 1);
    return AOS_ERR_DESTROYED;
}

void aos__seg_leave(const aos_seg_t *seg)
{
    /* Release: our writes into the segment come before destroy's acquire
     * load of writers, hence before the memory is reclaimed. */
    if (seg->entry_writers != NULL)
        __atomic_fetch_sub(seg->entry_writers, 1, __ATOMIC_RELEASE);
}

static void unpublish(aos_seg_t *s, struct aos__bell *bell)
{
    struct aos__seg_entry *e = &directory(aos__rt.me)[s->index];
    /* Seq_cst: an attacher that sees the even state finds no segment (it
     * is a release), and it pairs with aos__seg_enter (see there). */
    aos__store_seq_cst(&e->state, s->state + 1);
    if (bell != NULL) {
        aos__fence_seq_cst(); /* the writer's half of the sleep protocol */
        aos__bell_ring(bell, 0, UINT64_MAX, 1);
    }
    /* Guarded writers still inside finish first; they may wait on my
     * progress (a full notification lane), so drive it meanwhile. Acquire:
     * pairs with the release in aos__seg_leave. */
    while (!aos__rt.finalizing && aos__load_acquire(&e->writers) != 0) {
        aos__progress();
        sched_yield();
    }
    tell_other_nodes(s->index, s->state + 1);
    pthread_mutex_lock(&seg_lock);
    if (s->remap != NULL) {
        struct aos__remap **pp = &aos__rt.remaps;
        while (*pp != s->remap)
            pp = &(*pp)->next;
        aos__store_relaxed(pp, s->remap->next); /* relaxed: as in create_in_place */
        aos__remap_out_of_arena(&aos__rt, s->remap->lo, s->remap->hi, s->remap->arena_off);
        madvise(aos__rt.my_base + s->remap->arena_off, s->remap->hi - s->remap->lo,
                MADV_REMOVE);
        aos__range_free(&aos__rt.segspace, s->remap->arena_off);
        free(s->remap);
    } else if (s->arena_off >= aos__rt.segspace_off) {
        uint64_t len = aos__range_length(&aos__rt.segspace, s->arena_off);
        madvise(aos__rt.my_base + s->arena_off, len, MADV_REMOVE);
        aos__range_free(&aos__rt.segspace, s->arena_off);
    }
    owned[s->index] = NULL; /* last: the slot may be taken again */
    pthread_mutex_unlock(&seg_lock);
    s->magic = 0;
    aos__handle_free(s);
}

int aos__remap_meets(uintptr_t a, size_t len, uint64_t off, uint64_t olen)
{
    if (aos__load_relaxed(&aos__rt.remaps) == NULL) /* relaxed: see create_in_place */
        return 0;
    int meets = 0;
    pthread_mutex_lock(&seg_lock);
    for (const struct aos__remap *r = aos__rt.remaps; r != NULL && !meets; r = r->next)
        meets = aos__region_meets(a, len, r->lo, r->hi - r->lo, r->arena_off, off, olen);
    pthread_mutex_unlock(&seg_lock);
    return meets;
}

int aos__own_segment_range(uint64_t off, uint64_t len)
{
    int rc = AOS_ERR_NOT_SYMMETRIC;
    pthread_mutex_lock(&seg_lock);
    for (int i = 0; i < AOS__MAX_SEGMENTS && rc == AOS_ERR_NOT_SYMMETRIC; i++) {
        const aos_seg_t *s = owned[i];
        if (s == NULL || aos__key_reserved(s->key) || s->holds_aos_object ||
            off < s->arena_off || off - s->arena_off >= s->size)
            continue;
        rc = len <= s->size - (off - s->arena_off) ? AOS_OK : AOS_ERR_BOUNDS;
    }
    pthread_mutex_unlock(&seg_lock);
    return rc;
}

int aos__remap_find(uintptr_t a, uint64_t *off)
{
    if (aos__load_relaxed(&aos__rt.remaps) == NULL) /* relaxed: see create_in_place */
        return 0;
    int found = 0;
    pthread_mutex_lock(&seg_lock);
    for (const struct aos__remap *r = aos__rt.remaps; r != NULL && !found; r = r->next) {
        if (a >= r->lo && a < r->hi) {
            *off = r->arena_off + (a - r->lo);
            found = 1;
        }
    }
    pthread_mutex_unlock(&seg_lock);
    return found;
}

int aos_seg_destroy(aos_seg_t *seg)
{
    if (seg == NULL)
        return AOS_ERR_NULL;
    if (seg->magic != AOS__SEG_MAGIC)
        return AOS_ERR_INVALID;
    AOS__CHECK_INIT();
    if (!seg->created || seg->owner != aos__rt.me)
        return AOS_ERR_INVALID;
    unpublish(seg, NULL);
    return AOS_OK;
}

void aos__seg_destroy_waking(aos_seg_t *seg, struct aos__bell *bell)
{
    unpublish(seg, bell);
}

void aos__segments_start(void)
{
    aos__am_register(AOS__AM_SEG_STATE, on_seg_state);
    aos__am_register(AOS__AM_SEG_STATE_SEEN, on_seg_state_seen);
}

void aos__segments_stop(struct aos__runtime *rt)
{
    for (int i = 0; i < AOS__MAX_SEGMENTS; i++)
        if (owned[i] != NULL) /* no other thread is in aos now: no lock */
            unpublish(owned[i], NULL);
    if (mirror != NULL) {
        for (int pe = 0; pe < rt->npes; pe++)
            free(mirror[pe]);
        free(mirror);
        mirror = NULL;
    }
}

int aos_seg_size(const aos_seg_t *seg, size_t *size)
{
    if (seg == NULL || size == NULL)
        return AOS_ERR_NULL;
    if (seg->magic != AOS__SEG_MAGIC)
        return AOS_ERR_INVALID;
    *size = seg->size;
    return AOS_OK;
}

int aos_seg_owner(const aos_seg_t *seg, int *owner)
{
    if (seg == NULL || owner == NULL)
        return AOS_ERR_NULL;
    if (seg->magic != AOS__SEG_MAGIC)
        return AOS_ERR_INVALID;
    *owner = seg->owner;
    return AOS_OK;
}

int aos_seg_ptr(const aos_seg_t *seg, size_t offset, void **ptr)
{
    if (ptr == NULL)
        return AOS_ERR_NULL;
    uint64_t off;
    int rc = aos__seg_access(seg, offset, 0, AOS_PROTO_LOADSTORE, &off);
    if (rc != AOS_OK)
        return rc;
    return aos__tp(seg->owner)->local_ptr(seg->owner, off, ptr);
}
