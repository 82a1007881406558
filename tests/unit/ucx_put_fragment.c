/* The size of the messages large puts become over UCX's TCP (am.c), from
 * the segment sizes in the environment, in UCX's own notation. */
#include <stdlib.h>

#include "../common/check.h"
#include "transport/ucx/ucx.h"

static size_t fragment_for(const char *tx, const char *rx)
{
    CHECK(tx == NULL ? unsetenv("UCX_TCP_TX_SEG_SIZE") == 0
                     : setenv("UCX_TCP_TX_SEG_SIZE", tx, 1) == 0);
    CHECK(rx == NULL ? unsetenv("UCX_TCP_RX_SEG_SIZE") == 0
                     : setenv("UCX_TCP_RX_SEG_SIZE", rx, 1) == 0);
    return aos__ucx_put_fragment();
}

int main(void)
{
    /* aos's own setting: half a segment */
    CHECK(fragment_for("256k", "256k") == 128u << 10);
    CHECK(fragment_for("256K", "256KB") == 128u << 10);
    /* the smaller of the two, halved; at most 128 KiB */
    CHECK(fragment_for("64k", "256k") == 32u << 10);
    CHECK(fragment_for("1m", "4M") == 128u << 10);
    CHECK(fragment_for("1g", "1g") == 128u << 10);
    CHECK(fragment_for("40960", "40960") == 20480);
    CHECK(fragment_for("40960b", "40960B") == 20480);
    /* segments too small for messages to pay: UCP's puts */
    CHECK(fragment_for("8k", "64k") == 0);
    CHECK(fragment_for("32767", "1m") == 0);
    /* unset, or not a size: UCP's puts */
    CHECK(fragment_for(NULL, "256k") == 0);
    CHECK(fragment_for("256k", NULL) == 0);
    CHECK(fragment_for("", "256k") == 0);
    CHECK(fragment_for("auto", "256k") == 0);
    CHECK(fragment_for("256x", "256k") == 0);
    CHECK(fragment_for("256kx", "256k") == 0);
    CHECK(fragment_for("99999999999999999999999g", "256k") == 0);
    CHECK(fragment_for("17179869184g", "256k") == 0); /* 2^34 GiB overflows */
    CHECK(fragment_for("99999999999999999999999", "256k") == 0); /* beyond 64 bits */
    CHECK(fragment_for("-1", "256k") == 0);
    CHECK(fragment_for("+256k", "256k") == 0);
    CHECK(fragment_for(" 256k", "256k") == 0);
    CHECK(fragment_for("256bb", "256k") == 0);
    CHECK(fragment_for("256kbb", "256k") == 0);
    CHECK(fragment_for("256kbx", "256k") == 0);
    CHECK(fragment_for("262144", "256k") == 128u << 10);
    return 0;
}
