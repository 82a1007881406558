/* Gathers and all-to-all. Small fixed-size gathers (every contribution up
 * to AOS__XCHG_BYTES) are one exchange. Otherwise members read each
 * other's sources directly: a sync says every source is ready, each member
 * copies what it needs into its own dest, and a closing sync keeps the
 * sources unchanged until everyone is done. */
#include <stdint.h>
#include <string.h>

#include "arch/copy.h"
#include "coll/team.h"
#include "core/runtime.h"

static int gather_start(aos_team_t *team, void *dest, size_t dest_len, const void *source,
                        size_t src_len, uint64_t *src_off)
{
    uint64_t dest_off;
    int rc = aos__team_check(team);
    if (rc == AOS_OK)
        rc = aos__coll_locate(dest, dest_len, &dest_off);
    if (rc == AOS_OK)
        rc = aos__coll_locate(source, src_len, src_off);
    if (rc == AOS_OK && aos__overlap(dest, dest_len, source, src_len))
        rc = AOS_ERR_OVERLAP;
    return rc;
}

int aos_fcollect(aos_team_t *team, void *dest, const void *source, size_t nbytes)
{
    int rc = aos__coll_check(team);
    if (rc != AOS_OK)
        return rc;
    uint64_t src_off;
    rc = nbytes > SIZE_MAX / (size_t)team->size ? AOS_ERR_SIZE : AOS_OK;
    if (rc == AOS_OK)
        rc = gather_start(team, dest, nbytes * (size_t)team->size, source, nbytes, &src_off);
    rc = aos__coll_agree(team, AOS__AGREE_FCOLLECT, rc, (const uint64_t[]){nbytes});
    if (rc != AOS_OK || nbytes == 0)
        return rc;
    if (nbytes <= AOS__XCHG_BYTES) {
        const struct aos__xchg_entry *all;
        rc = aos__team_exchange(team, source, nbytes, &all);
        for (int r = 0; rc == AOS_OK && r < team->size; r++)
            aos__copy((char *)dest + (size_t)r * nbytes, all[r].data, nbytes);
        return rc;
    }
    rc = aos__team_sync(team);
    if (rc != AOS_OK)
        return rc;
    int crc = AOS_OK;
    for (int i = 0; crc == AOS_OK && i < team->size; i++) {
        int r = (team->me + i) % team->size;
        crc = aos__team_read(team, r, src_off, (char *)dest + (size_t)r * nbytes, nbytes);
    }
    rc = aos__team_sync(team); /* the sources stay unchanged until everyone has read */
    return crc != AOS_OK ? crc : rc;
}

int aos_collect(aos_team_t *team, void *dest, const void *source, size_t nbytes)
{
    int rc = aos__coll_check(team);
    if (rc == AOS_OK) /* sizes may differ: only the collective is compared */
        rc = aos__coll_agree(team, AOS__AGREE_COLLECT, AOS_OK, NULL);
    if (rc != AOS_OK)
        return rc;
    /* Everyone's size, where its source is, and whether it is good: sizes
     * differ between members, so a source may be bad on one member only,
     * and the others must not wait for it. */
    uint64_t src_off;
    int src_rc = aos__coll_locate(source, nbytes, &src_off);
    uint64_t mine[3] = {nbytes, src_rc == AOS_OK, src_off};
    const struct aos__xchg_entry *all;
    rc = aos__team_exchange(team, mine, sizeof mine, &all);
    if (rc != AOS_OK)
        return rc;
    uint64_t lens[3];
    size_t total = 0;
    int overflow = 0, bad = 0;
    for (int r = 0; r < team->size; r++) {
        memcpy(lens, all[r].data, sizeof lens);
        overflow |= lens[0] > SIZE_MAX - total;
        total += overflow ? 0 : (size_t)lens[0];
        bad |= lens[1] == 0;
    }
    if (src_rc != AOS_OK)
        return src_rc;
    if (bad)
        return AOS_ERR_INVALID; /* another member's source is bad */
    if (overflow)
        return AOS_ERR_SIZE;
    rc = gather_start(team, dest, total, source, nbytes, &src_off);
    if (total == 0) /* every member's verdict: only the team can be bad */
        return rc;
    /* dest could be judged only now that the total is known, and may be bad
     * on one member alone: the members agree on their verdicts, an exchange
     * which also says every source is ready. */
    rc = aos__coll_agree_status(team, AOS__AGREE_COLLECT, rc, NULL);
    if (rc != AOS_OK)
        return rc;
    size_t off = 0;
    int crc = AOS_OK;
    for (int r = 0; crc == AOS_OK && r < team->size; r++) {
        memcpy(lens, all[r].data, sizeof lens);
        crc = aos__team_read(team, r, lens[2], (char *)dest + off, (size_t)lens[0]);
        off += (size_t)lens[0];
    }
    rc = aos__team_sync(team); /* the sources stay unchanged until everyone has read */
    return crc != AOS_OK ? crc : rc;
}
