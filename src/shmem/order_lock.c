/* Ordering (fence, quiet), distributed locks, the deprecated cache calls. */
#include <stdio.h>

#include "shmem/shmem_internal.h"

/* Fence orders each PE's operations (aos_fence_all), which waits for
 * nothing where the transport orders them itself: on a node (a put is
 * complete when it returns) and on one TCP stream. Operations attach to
 * the thread whatever their context, as for quiet. */
void shmem_fence(void)
{
    SHMEM__TRY(__func__, aos_fence_all());
}

void shmem_ctx_fence(shmem_ctx_t ctx)
{
    if (ctx == SHMEM_CTX_INVALID)
        return; /* OpenSHMEM 1.5: no operation on SHMEM_CTX_INVALID */
    SHMEM__TRY(__func__, aos_fence_all());
}

void shmem_quiet(void)
{
    shmem__quiet(__func__);
}

/* Operations attach to the calling thread's event whatever their context,
 * so quiet on any context completes the thread's operations on all of
 * them: more than the specification asks, never less. */
void shmem_ctx_quiet(shmem_ctx_t ctx)
{
    if (ctx == SHMEM_CTX_INVALID)
        return; /* OpenSHMEM 1.5: no operation on SHMEM_CTX_INVALID */
    shmem__quiet(__func__);
}

/* ---- locks -------------------------------------------------------------------- *
 *
 * An MCS queue lock in the symmetric long the program gives (zero = free).
 * Its first 32-bit half on PE 0 is the queue's tail: 0, or 1 + the PE that
 * queued last. Its second half on every PE is that PE's queue node: bits
 * 0-30 hold 1 + the PE queued behind it (0: none yet), bit 31 is set when
 * the lock has been handed to it. Each waiter waits on its own node, so a
 * release wakes exactly one PE and a contended lock costs no remote
 * polling; the lock is granted in arrival order. */

#define GRANTED 0x80000000u

static uint32_t *tail_of(long *lock)
{
    return (uint32_t *)(void *)lock;
}

static uint32_t *node_of(long *lock)
{
    return (uint32_t *)(void *)lock + 1;
}

static void check_lock(const char *fn, long *lock)
{
    if (!shmem__st.initialized)
        shmem__fail(fn, AOS_ERR_NOT_INITIALIZED);
    if (lock == NULL)
        shmem__fail(fn, AOS_ERR_NULL);
    if (((uintptr_t)lock & 7u) != 0)
        shmem__fail(fn, AOS_ERR_ALIGN);
    if (!aos_sym_accessible(lock))
        shmem__fail(fn, AOS_ERR_NOT_SYMMETRIC);
}

/* Resets my node before I can be seen in the queue. Release: ordered
 * before the atomic that queues me (a seq_cst RMW), which a successor must
 * see before it links itself into my node. */
static void reset_node(long *lock, uint32_t value)
{
    __atomic_store_n(node_of(lock), value, __ATOMIC_RELEASE);
}

void shmem_set_lock(long *lock)
{
    const char *fn = __func__;
    check_lock(fn, lock);
    uint32_t me1 = (uint32_t)shmem__st.me + 1, prev = 0;
    reset_node(lock, 0);
    SHMEM__TRY(fn, aos_amo_fetch_sym(0, tail_of(lock), AOS_AMO_SET, AOS_AMO_U32, me1, 0, &prev,
                                     NULL));
    if (prev == 0) {
        /* Mine at once; mark it granted (atomically: a successor may be
         * linking itself into my node at this moment). */
        SHMEM__TRY(fn, aos_amo_post_sym(shmem__st.me, node_of(lock), AOS_AMO_OR, AOS_AMO_U32,
                                        GRANTED));
        return;
    }
    /* Link behind the previous tail, then wait for it to hand over. */
    SHMEM__TRY(fn, aos_amo_post_sym((int)prev - 1, node_of(lock), AOS_AMO_OR, AOS_AMO_U32,
                                    me1));
    SHMEM__TRY(fn, aos_wait_until_u32(node_of(lock), AOS_CMP_GE, GRANTED));
}

int shmem_test_lock(long *lock)
{
    const char *fn = __func__;
    check_lock(fn, lock);
    uint32_t me1 = (uint32_t)shmem__st.me + 1, prev = 0;
    /* Granted in advance: if the swap below fails nobody links to me. */
    reset_node(lock, GRANTED);
    SHMEM__TRY(fn, aos_amo_fetch_sym(0, tail_of(lock), AOS_AMO_CAS, AOS_AMO_U32, me1, 0, &prev,
                                     NULL));
    if (prev != 0)
        reset_node(lock, 0); /* not queued: nobody links to me; not held */
    return prev == 0 ? 0 : 1;
}

void shmem_clear_lock(long *lock)
{
    const char *fn = __func__;
    check_lock(fn, lock);
    /* What the holder wrote under the lock is complete before the next
     * holder gets it. */
    shmem__quiet(fn);
    uint32_t me1 = (uint32_t)shmem__st.me + 1;
    uint32_t node = __atomic_load_n(node_of(lock), __ATOMIC_ACQUIRE);
    if ((node & GRANTED) == 0) {
        fprintf(stderr, "shmem: PE %d: shmem_clear_lock: this PE does not hold the lock (never "
                        "set, or cleared already); clear only a lock set by shmem_set_lock or "
                        "shmem_test_lock\n", shmem__st.me);
        aos_global_exit(1);
    }
    if ((node & ~GRANTED) == 0) {
        uint32_t prev = 0;
        SHMEM__TRY(fn, aos_amo_fetch_sym(0, tail_of(lock), AOS_AMO_CAS, AOS_AMO_U32, 0, me1,
                                         &prev, NULL));
        if (prev == me1) {
            reset_node(lock, 0); /* not held any more; nobody can link to me */
            return; /* nobody queued behind me: the lock is free */
        }
        /* Someone swapped itself in as tail and is about to link to me. */
        SHMEM__TRY(fn, aos_wait_until_u32(node_of(lock), AOS_CMP_GT, GRANTED));
        node = __atomic_load_n(node_of(lock), __ATOMIC_ACQUIRE);
    }
    /* My successor has linked in already: nobody writes my node again
     * until I queue anew, so it can say "not held" now. */
    reset_node(lock, 0);
    SHMEM__TRY(fn, aos_amo_post_sym((int)(node & ~GRANTED) - 1, node_of(lock), AOS_AMO_OR,
                                    AOS_AMO_U32, GRANTED));
}

/* ---- deprecated cache management: the node is cache coherent ----------------- */

void shmem_clear_cache_inv(void)
{
}

void shmem_set_cache_inv(void)
{
}

void shmem_clear_cache_line_inv(void *dest)
{
    (void)dest;
}

void shmem_set_cache_line_inv(void *dest)
{
    (void)dest;
}

void shmem_udcflush(void)
{
}

void shmem_udcflush_line(void *dest)
{
    (void)dest;
}
