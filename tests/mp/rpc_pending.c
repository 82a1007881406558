/* The pending list of RPCs with events is bounded (issue 25, item 22): with
 * AOS_RPC_QUEUE_DEPTH=1 and AOS_RPC_PENDING_MAX=4, PE 0 calls PE 1, which
 * computes without calling aos, until a call gives AOS_ERR_AGAIN; that
 * happens after the queue's and the list's worth of calls, not after
 * thousands. Once PE 1 serves, every accepted call completes exactly, the
 * refused one's event was never posted, and calling works again.
 * PE 0 starts calling only once PE 1 has said it left aos: a PE still in
 * aos_barrier_all serves RPCs while it waits, and could drain every call. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../common/check.h"

enum { PENDING_MAX = 4, TRIES = 2000 };

static aos_rpc_id_t id_twice;
static volatile uint64_t go;      /* symmetric: PE 0 puts 1 here to let PE 1 go on */
static uint64_t spinning;         /* symmetric: PE 1 puts 1 here on its way out of aos */

/* reply = 2 * args (8 bytes) */
static size_t twice(const aos_rpc_info_t *info, const void *args, size_t len, void *reply,
                    size_t cap)
{
    (void)info;
    uint64_t v;
    CHECK(len == sizeof v && cap >= sizeof v);
    memcpy(&v, args, sizeof v);
    v *= 2;
    memcpy(reply, &v, sizeof v);
    return sizeof v;
}

static uint64_t args[TRIES], replies[TRIES];
static size_t lens[TRIES];

int main(void)
{
    alarm(60);
    setenv("AOS_RPC_QUEUE_DEPTH", "1", 1);
    setenv("AOS_RPC_PENDING_MAX", "4", 1);
    CHECK_OK(aos_init());
    int me = aos_my_pe();
    CHECK_OK(aos_rpc_register("twice", twice, 0, &id_twice));
    CHECK_OK(aos_barrier_all());

    if (me == 0) {
        aos_event_t *ev;
        CHECK_OK(aos_event_create(&ev));
        CHECK_OK(aos_wait_until_u64(&spinning, AOS_CMP_EQ, 1));
        int accepted = 0, rc = AOS_OK;
        while (accepted < TRIES) {
            args[accepted] = (uint64_t)accepted + 1;
            rc = aos_rpc(1, id_twice, &args[accepted], sizeof args[accepted],
                         &replies[accepted], sizeof replies[accepted], &lens[accepted], ev);
            if (rc != AOS_OK)
                break;
            accepted++;
        }
        CHECK_RC(rc, AOS_ERR_AGAIN);
        /* The queue holds a few requests (its depth, rounded), the list 4. */
        CHECK(accepted > PENDING_MAX && accepted <= PENDING_MAX + 64);
        int done = 0;
        CHECK_OK(aos_event_test(ev, &done));
        CHECK(!done);
        uint64_t one = 1;
        CHECK_OK(aos_putmem(1, (void *)&go, &one, sizeof one, NULL));
        CHECK_OK(aos_event_wait(ev)); /* the refused call was never posted */
        for (int i = 0; i < accepted; i++)
            CHECK(lens[i] == sizeof(uint64_t) && replies[i] == 2 * args[i]);
        /* The list has drained: calls with events are taken again. */
        uint64_t a = 21, r = 0;
        size_t l = 0;
        CHECK_OK(aos_rpc(1, id_twice, &a, sizeof a, &r, sizeof r, &l, ev));
        CHECK_OK(aos_event_wait(ev));
        CHECK(l == sizeof r && r == 42);
        CHECK_OK(aos_event_destroy(ev));
    } else if (me == 1) {
        uint64_t one = 1;
        CHECK_OK(aos_putmem(0, &spinning, &one, sizeof one, NULL)); /* last aos call */
        while (go == 0) /* plain loads: no aos call, so no RPC is served */
            ;
    }
    CHECK_OK(aos_barrier_all());
    CHECK_OK(aos_finalize());
    return 0;
}
