/* The network transport of a build without UCX: aos works on one node, and a
 * job whose PEs span nodes stops at aos_init with a message that says why. */
#include <stdio.h>

#include "core/runtime.h"

static int none_start(struct aos__runtime *rt)
{
    fprintf(stderr,
            "aos: PE %d: some PEs are on other nodes, but this aos was built without UCX "
            "(install libucx-dev and rebuild to run across nodes)\n",
            rt->me);
    return AOS_ERR_UNSUPPORTED;
}

static void none_stop(struct aos__runtime *rt)
{
    (void)rt;
}

static int none_thread_start(void)
{
    return AOS_OK;
}

static void none_thread_stop(void)
{
}

static int none_put(int pe, uint64_t off, const void *src, size_t len, aos_event_t *ev)
{
    (void)pe, (void)off, (void)src, (void)len, (void)ev;
    return AOS_ERR_UNSUPPORTED;
}

static int none_get(void *dst, int pe, uint64_t off, size_t len, aos_event_t *ev)
{
    (void)dst, (void)pe, (void)off, (void)len, (void)ev;
    return AOS_ERR_UNSUPPORTED;
}

static int none_put_block(int pe, uint64_t off, const void *src, const aos_block_t *b,
                          aos_event_t *ev)
{
    (void)pe, (void)off, (void)src, (void)b, (void)ev;
    return AOS_ERR_UNSUPPORTED;
}

static int none_get_block(void *dst, int pe, uint64_t off, const aos_block_t *b,
                          aos_event_t *ev)
{
    (void)dst, (void)pe, (void)off, (void)b, (void)ev;
    return AOS_ERR_UNSUPPORTED;
}

static int none_signal_store(int pe, uint64_t off, uint64_t value)
{
    (void)pe, (void)off, (void)value;
    return AOS_ERR_UNSUPPORTED;
}

static int none_put_signal(int pe, uint64_t off, const void *src, size_t len, uint64_t sig_off,
                           uint64_t value)
{
    (void)pe, (void)off, (void)src, (void)len, (void)sig_off, (void)value;
    return AOS_ERR_UNSUPPORTED;
}

static int none_amo(int pe, uint64_t off, aos_amo_op_t op, unsigned width, uint64_t operand,
                    uint64_t compare, void *result, aos_event_t *ev)
{
    (void)pe, (void)off, (void)op, (void)width, (void)operand, (void)compare, (void)result,
        (void)ev;
    return AOS_ERR_UNSUPPORTED;
}

static int none_progress(void)
{
    return 0;
}

static void none_sleep_begin(void)
{
}

static void none_sleep_end(void)
{
}

static int none_fence(int pe)
{
    (void)pe;
    return AOS_OK;
}

static int none_quiet(void)
{
    return AOS_OK;
}

static int none_local_ptr(int pe, uint64_t off, void **ptr)
{
    (void)pe, (void)off, (void)ptr;
    return AOS_ERR_NOT_LOCAL;
}

static int none_expose(uint64_t off, uint64_t len)
{
    (void)off, (void)len;
    return AOS_OK;
}

static int none_am_send(int pe, unsigned id, const void *payload, size_t len, unsigned flags)
{
    (void)pe, (void)id, (void)payload, (void)len, (void)flags;
    return AOS_ERR_UNSUPPORTED;
}

const struct aos__transport aos__transport_net = {
    .name = "none (built without UCX)",
    .start = none_start,
    .stop = none_stop,
    .thread_start = none_thread_start,
    .thread_stop = none_thread_stop,
    .put = none_put,
    .put_held = none_put,
    .get = none_get,
    .put_block = none_put_block,
    .get_block = none_get_block,
    .signal_store = none_signal_store,
    .put_signal = none_put_signal,
    .amo = none_amo,
    .progress = none_progress,
    .sleep_begin = none_sleep_begin,
    .sleep_end = none_sleep_end,
    .fence = none_fence,
    .fence_all = none_quiet, /* no peers: nothing to order */
    .quiet = none_quiet,
    .local_ptr = none_local_ptr,
    .expose = none_expose,
    .am_send = none_am_send,
};
