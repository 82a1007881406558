/* wait_until / test on local 32- and 64-bit words. */
#include "arch/atomics.h"
#include "core/runtime.h"
#include "core/wait.h"
#include "mem/memory.h"

struct word_wait {
    const void *addr;
    int width;     /* 32 or 64 */
    int is_signed;
    aos_cmp_t cmp;
    uint64_t value;
};

#define AOS__COMPARE(a, cmp, b)                                                            \
    ((cmp) == AOS_CMP_EQ   ? (a) == (b)                                                    \
     : (cmp) == AOS_CMP_NE ? (a) != (b)                                                    \
     : (cmp) == AOS_CMP_GT ? (a) > (b)                                                     \
     : (cmp) == AOS_CMP_GE ? (a) >= (b)                                                    \
     : (cmp) == AOS_CMP_LT ? (a) < (b)                                                     \
                           : (a) <= (b))

static int word_met(const void *ctx)
{
    const struct word_wait *w = ctx;
    /* Acquire: pairs with the writer's release (signal_store) or with the
     * fence that ends a blocking put, so data written before the word is
     * visible to the caller once the condition holds. */
    if (w->width == 32) {
        uint32_t v = aos__load_acquire((const uint32_t *)w->addr);
        if (w->is_signed)
            return AOS__COMPARE((int32_t)v, w->cmp, (int32_t)(uint32_t)w->value);
        return AOS__COMPARE(v, w->cmp, (uint32_t)w->value);
    }
    uint64_t v = aos__load_acquire((const uint64_t *)w->addr);
    if (w->is_signed)
        return AOS__COMPARE((int64_t)v, w->cmp, (int64_t)w->value);
    return AOS__COMPARE(v, w->cmp, w->value);
}

static int check_word(const void *addr, int width, aos_cmp_t cmp)
{
    if (addr == NULL)
        return AOS_ERR_NULL;
    if (((uintptr_t)addr & (uintptr_t)(width / 8 - 1)) != 0)
        return AOS_ERR_ALIGN;
    if ((int)cmp < AOS_CMP_EQ || (int)cmp > AOS_CMP_LE)
        return AOS_ERR_INVALID;
    return AOS_OK;
}

static int wait_word(struct word_wait w, uint64_t timeout_ns)
{
    AOS__CHECK_INIT();
    int rc = check_word(w.addr, w.width, w.cmp);
    if (rc != AOS_OK)
        return rc;
    /* Only writes to the word itself can satisfy us; memory outside my
     * arena is written by this process alone, so nobody needs to wake us. */
    uint64_t off;
    struct aos__watch watch = AOS__WATCH_ALL;
    if (aos__local_arena_off(w.addr, &off))
        watch = (struct aos__watch){off, off + (uint64_t)w.width / 8};
    return aos__wait(word_met, &w, timeout_ns, watch);
}

static int test_word(struct word_wait w, int *met)
{
    AOS__CHECK_INIT();
    int rc = check_word(w.addr, w.width, w.cmp);
    if (rc != AOS_OK)
        return rc;
    if (met == NULL)
        return AOS_ERR_NULL;
    aos__progress();
    *met = word_met(&w);
    return AOS_OK;
}

/* The typed forms of aos.h: W is the width, S whether T is signed. */
#define AOS__WAIT_DEFINE(T, t, W, S)                                                       \
    int aos_wait_until_##t(const T *addr, aos_cmp_t cmp, T value)                          \
    {                                                                                      \
        return wait_word((struct word_wait){addr, W, S, cmp, (uint##W##_t)value},          \
                         AOS__FOREVER);                                                    \
    }                                                                                      \
    int aos_wait_until_timed_##t(const T *addr, aos_cmp_t cmp, T value,                    \
                                 uint64_t timeout_ns)                                      \
    {                                                                                      \
        return wait_word((struct word_wait){addr, W, S, cmp, (uint##W##_t)value},          \
                         timeout_ns);                                                      \
    }                                                                                      \
    int aos_test_##t(const T *addr, aos_cmp_t cmp, T value, int *met)                      \
    {                                                                                      \
        return test_word((struct word_wait){addr, W, S, cmp, (uint##W##_t)value}, met);    \
    }
AOS__WAIT_DEFINE(uint32_t, u32, 32, 0)
AOS__WAIT_DEFINE(uint64_t, u64, 64, 0)
AOS__WAIT_DEFINE(int32_t, i32, 32, 1)
AOS__WAIT_DEFINE(int64_t, i64, 64, 1)
#undef AOS__WAIT_DEFINE

/* ---- any condition ---------------------------------------------------------- */

struct ready_call {
    aos_ready_fn fn;
    void *arg;
};

static int call_ready(const void *ctx)
{
    const struct ready_call *c = ctx;
    return c->fn(c->arg) != 0;
}

int aos_wait_ready(aos_ready_fn ready, void *arg, uint64_t timeout_ns)
{
    AOS__CHECK_INIT();
    if (ready == NULL)
        return AOS_ERR_NULL;
    struct ready_call c = {ready, arg};
    /* The condition may read any of my memory: every write into it wakes. */
    return aos__wait(call_ready, &c, timeout_ns, AOS__WATCH_ALL);
}
