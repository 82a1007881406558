/* Writers stream messages with events into a mailbox whose owner computes
 * without calling aos, then reads them all.
 *
 * PE 0's mailbox holds CAPACITY messages; every other PE writes PER
 * messages {seq, pe, bytes of both} with one event, without waiting, while PE 0
 * computes for COMPUTE_MS. A writer's close must refuse while its writes
 * wait (nothing can have been read: at most CAPACITY are in; PE 0 reads
 * only once every writer has checked that, however late it ran), and
 * succeed once its event completes. PE 0 then reads every message and checks that
 * each writer's arrive once, in the order written, with their bytes. From
 * another node, a handle has at most 64 writes waiting at the owner and
 * keeps the rest itself (include/aos.h): those go out from progress as
 * answers come back, and must keep their order. */
#include <string.h>

#include "../common/check.h"
#include "../common/spin.h"

#define PORT 0x5e01u
#define MSG 64
#define CAPACITY 2
#ifdef AOS_TEST_BIG_MIB /* sanitized builds are several times slower */
#define PER 400
#else
#define PER 2000
#endif
#define COMPUTE_MS 200
#define MAXPES 16
#define FROM_AT 8 /* after the sequence number */

static uint64_t closes_refused; /* at PE 0: writers past their first close */

static unsigned char byte_of(int pe, long seq, int i)
{
    return (unsigned char)(pe * 31 + seq * 7 + i);
}

int main(void)
{
    CHECK_OK(aos_init());
    int me = aos_my_pe(), n = aos_n_pes();
    CHECK(n <= MAXPES);
    aos_mbox_t *mb;
    if (me == 0)
        CHECK_OK(aos_mbox_create(PORT, MSG, CAPACITY, &mb));
    CHECK_OK(aos_barrier_all());
    unsigned char m[MSG];
    if (me != 0) {
        CHECK_OK(aos_mbox_open(0, PORT, &mb));
        aos_event_t *ev;
        CHECK_OK(aos_event_create(&ev));
        for (long seq = 0; seq < PER; seq++) {
            memcpy(m, &seq, sizeof seq);
            m[FROM_AT] = (unsigned char)me;
            for (int i = FROM_AT + 1; i < MSG; i++)
                m[i] = byte_of(me, seq, i);
            CHECK_OK(aos_mbox_write(mb, m, ev));
            memset(m, 0xee, sizeof m); /* copied at the call */
        }
        CHECK_RC(aos_mbox_close(mb), AOS_ERR_AGAIN);
        CHECK_OK(aos_amo_post_sym(0, &closes_refused, AOS_AMO_ADD, AOS_AMO_U64, 1));
        CHECK_OK(aos_event_wait(ev));
        CHECK_OK(aos_event_destroy(ev));
        CHECK_OK(aos_mbox_close(mb));
    } else {
        spin_us(COMPUTE_MS * 1000L); /* the writers fill everything meanwhile */
        CHECK_OK(aos_wait_until_u64(&closes_refused, AOS_CMP_GE, (uint64_t)(n - 1)));
        long next[MAXPES] = {0};
        for (long k = 0; k < (long)PER * (n - 1); k++) {
            CHECK_OK(aos_mbox_read(mb, m, NULL));
            long seq;
            memcpy(&seq, m, sizeof seq);
            int from = m[FROM_AT];
            CHECK(from > 0 && from < n && seq == next[from]);
            for (int i = FROM_AT + 1; i < MSG; i++)
                CHECK(m[i] == byte_of(from, seq, i));
            next[from]++;
        }
        for (int pe = 1; pe < n; pe++)
            CHECK(next[pe] == PER);
        CHECK_RC(aos_mbox_try_read(mb, m), AOS_ERR_AGAIN);
    }
    CHECK_OK(aos_barrier_all());
    if (me == 0)
        CHECK_OK(aos_mbox_close(mb));
    CHECK_OK(aos_finalize());
    return 0;
}
