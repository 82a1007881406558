#include "core/am.h"

#include "arch/atomics.h"

static aos__am_handler handlers[AOS__AM_COUNT];

void aos__am_register(enum aos__am_id id, aos__am_handler fn)
{
    /* Release: pairs with the acquire in dispatch, which may run on the
     * transport's progress thread. */
    aos__store_release(&handlers[id], fn);
}

void aos__am_dispatch(int src, unsigned id, const void *payload, size_t len)
{
    if (id >= AOS__AM_COUNT)
        return;
    aos__am_handler fn = aos__load_acquire(&handlers[id]); /* pairs with register */
    if (fn != NULL)
        fn(src, payload, len);
}
