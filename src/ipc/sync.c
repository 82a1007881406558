/* Syncs: all-to-one and one-to-all signals over a set of PEs with a root.
 *
 * Every member owns a small segment under the key (sync, port): the root's
 * `arrivals` counts members' signals (posted atomic adds, no help from the
 * root); a member's `release` holds the root's signal count (a release store
 * that wakes it). Peers' segments are attached at first use, waiting for
 * their owners to create them (creation is collective over the set). */
#include <stdlib.h>
#include <string.h>

#include "arch/atomics.h"
#include "core/handle.h"
#include "core/runtime.h"
#include "core/wait.h"
#include "ipc/ipc.h"
#include "mem/segment.h"

#define SYNC_MAGIC 0x73796e63u

struct sync_words {
    uint64_t arrivals; /* at the root: members' signals */
    uint64_t pad0[AOS__LINE / 8 - 1];
    uint64_t release;  /* at a member: the root's signals */
    uint64_t pad1[AOS__LINE / 8 - 1];
};
_Static_assert(sizeof(struct sync_words) == 2 * AOS__LINE, "two lines");
_Static_assert(offsetof(struct sync_words, release) == AOS__LINE, "release on its own line");

struct aos_sync {
    uint32_t magic;
    uint32_t port;
    int root, is_root;
    int n;                   /* members, root included */
    int *pes;                /* the members */
    aos_seg_t *mine;
    struct sync_words *words; /* mine, mapped */
    aos_seg_t **peer;        /* root: every member's; member: [0] = root's */
    uint64_t signals, waits; /* mine so far */
};

static int check_sync(const aos_sync_t *s)
{
    if (s == NULL)
        return AOS_ERR_NULL;
    if (s->magic != SYNC_MAGIC)
        return AOS_ERR_INVALID;
    AOS__CHECK_INIT();
    return AOS_OK;
}

static void free_sync(aos_sync_t *s)
{
    int peers = s->is_root ? s->n : 1;
    for (int i = 0; s->peer != NULL && i < peers; i++)
        if (s->peer[i] != NULL)
            aos_seg_detach(s->peer[i]);
    if (s->mine != NULL)
        aos_seg_destroy(s->mine);
    free(s->peer);
    free(s->pes);
    s->magic = 0;
    aos__handle_free(s);
}

int aos_sync_create(uint32_t port, const int *pes, int n, int root, aos_sync_t **out)
{
    AOS__CHECK_INIT();
    if (pes == NULL || out == NULL)
        return AOS_ERR_NULL;
    if (n <= 0 || n > aos__rt.npes)
        return AOS_ERR_SIZE;
    int me_in = 0, root_in = 0;
    for (int i = 0; i < n; i++) {
        AOS__CHECK_PE(pes[i]);
        for (int j = 0; j < i; j++)
            if (pes[j] == pes[i])
                return AOS_ERR_INVALID; /* a member twice */
        me_in |= pes[i] == aos__rt.me;
        root_in |= pes[i] == root;
    }
    if (!me_in || !root_in)
        return AOS_ERR_INVALID;
    aos_sync_t *s = aos__handle_alloc(sizeof *s);
    if (s == NULL)
        return AOS_ERR_NO_MEMORY;
    *s = (aos_sync_t){.magic = SYNC_MAGIC,
                      .port = port,
                      .root = root,
                      .is_root = root == aos__rt.me,
                      .n = n};
    s->pes = malloc((size_t)n * sizeof *s->pes);
    s->peer = calloc(s->is_root ? (size_t)n : 1, sizeof *s->peer);
    int rc = AOS_ERR_NO_MEMORY;
    if (s->pes == NULL || s->peer == NULL)
        goto fail;
    memcpy(s->pes, pes, (size_t)n * sizeof *pes);
    rc = aos__seg_create_any(aos__ipc_key(AOS__IPC_SYNC, port), sizeof(struct sync_words),
                             AOS_PROTO_RMA | AOS_PROTO_ATOMIC, &s->mine);
    if (rc != AOS_OK)
        goto fail;
    void *w;
    rc = aos__transport_shm.local_ptr(aos__rt.me, s->mine->arena_off, &w);
    if (rc != AOS_OK)
        goto fail;
    s->words = w;
    *out = s;
    return AOS_OK;

fail:
    free_sync(s);
    return rc;
}

int aos_sync_destroy(aos_sync_t *s)
{
    int rc = check_sync(s);
    if (rc != AOS_OK)
        return rc;
    free_sync(s);
    return AOS_OK;
}

/* The segment of member i (root: index into pes; member: the root's). */
static int peer_seg(aos_sync_t *s, int i, aos_seg_t **out)
{
    if (s->peer[i] == NULL) {
        int owner = s->is_root ? s->pes[i] : s->root;
        int rc = aos__ipc_attach_wait(owner, aos__ipc_key(AOS__IPC_SYNC, s->port), &s->peer[i]);
        if (rc != AOS_OK)
            return rc;
    }
    *out = s->peer[i];
    return AOS_OK;
}

int aos_sync_signal(aos_sync_t *s)
{
    int rc = check_sync(s);
    if (rc != AOS_OK)
        return rc;
    aos_seg_t *seg;
    if (!s->is_root) { /* all-to-one: count my arrival at the root */
        rc = peer_seg(s, 0, &seg);
        if (rc == AOS_OK)
            rc = aos_amo_post(seg, offsetof(struct sync_words, arrivals), AOS_AMO_ADD,
                              AOS_AMO_U64, 1);
        return rc;
    }
    /* one-to-all: every member's release word = my signal count */
    s->signals++;
    for (int i = 0; i < s->n; i++) {
        if (s->pes[i] == aos__rt.me)
            continue;
        rc = peer_seg(s, i, &seg);
        uint64_t off;
        if (rc == AOS_OK)
            rc = aos__seg_access(seg, offsetof(struct sync_words, release), sizeof(uint64_t),
                                 AOS_PROTO_RMA, &off);
        if (rc == AOS_OK)
            rc = aos__tp(s->pes[i])->signal_store(s->pes[i], off, s->signals);
        if (rc != AOS_OK)
            return rc;
    }
    return AOS_OK;
}

struct goal {
    const uint64_t *word;
    uint64_t value;
};

static int reached(const void *ctx)
{
    const struct goal *g = ctx;
    return aos__load_acquire(g->word) >= g->value; /* pairs with the signaller's release */
}

/* What my next wait waits for. */
static struct goal next_goal(const aos_sync_t *s)
{
    if (s->is_root) /* all-to-one: every other member once more */
        return (struct goal){&s->words->arrivals, (s->waits + 1) * (uint64_t)(s->n - 1)};
    return (struct goal){&s->words->release, s->waits + 1}; /* the root's next signal */
}

int aos_sync_wait(aos_sync_t *s)
{
    int rc = check_sync(s);
    if (rc != AOS_OK)
        return rc;
    struct goal g = next_goal(s);
    uint64_t at = s->mine->arena_off + (uint64_t)((const char *)g.word - (const char *)s->words);
    rc = aos__wait_arena_word(at, g.value);
    if (rc == AOS_OK)
        s->waits++;
    return rc;
}

int aos_sync_test(aos_sync_t *s, int *done)
{
    int rc = check_sync(s);
    if (rc != AOS_OK)
        return rc;
    if (done == NULL)
        return AOS_ERR_NULL;
    aos__progress();
    struct goal g = next_goal(s);
    int ok = reached(&g);
    if (ok)
        s->waits++;
    *done = ok;
    return AOS_OK;
}
