/* The shared layout of notified access: region [notify_off, +notify_size) of
 * every PE's arena (core/layout.h). A notification travels in a lane that
 * belongs to one (source, target) pair: the source writes slots, the target
 * reads them, and nobody else touches the lane, so no sender reads a line
 * another sender writes and the only line that crosses from sender to target
 * on the way is the slot itself (beside the data).
 *
 *   [0, bitmap_bytes)                 active-source bits: a source sets its
 *                                     bit before its first notification, so
 *                                     the target polls only lanes in use
 *   [acks_off, +npes lines)           ack[t]: how many of my notifications
 *                                     PE t has consumed; written by t only
 *   [lanes_off, +npes lanes)          lane[s]: AOS__NOTE_SLOTS slots that
 *                                     source s fills, in position order
 *
 * Lane protocol. Position p of lane s lives in slot p % AOS__NOTE_SLOTS.
 * The source claims p (a counter of its own), waits until ack >= p + 1 -
 * AOS__NOTE_SLOTS (the slot's previous notification was consumed), writes
 * `body`, then publishes `pub` = (uint32)(p + 1) | state << 32 with release.
 * The target consumes positions in order: slot p holds a notification once
 * its low half reads (uint32)(p + 1) (a slot's previous occupant carries
 * p + 1 - AOS__NOTE_SLOTS, never equal). It publishes its consumed count in
 * the source's ack[target] with release once half a lane has been
 * consumed since the last ack, so a source that waits for space always has
 * unconsumed notifications the target's next progress will ack. */
#ifndef AOS_QUEUE_NOTIFY_LANES_H
#define AOS_QUEUE_NOTIFY_LANES_H

#include <stddef.h>
#include <stdint.h>

#include "core/layout.h"

#define AOS__NOTE_SLOTS 64u /* notifications in flight per (source, target) */

struct aos__note_slot {
    uint64_t body; /* tag | segment directory index << 32 */
    uint64_t pub;  /* (uint32)(position + 1) | segment state << 32: written last */
};
_Static_assert(sizeof(struct aos__note_slot) == 16, "a slot is two words");
_Static_assert(offsetof(struct aos__note_slot, pub) == 8, "pub is the second word");
_Static_assert(AOS__LINE % sizeof(struct aos__note_slot) == 0, "slots do not straddle lines");

#define AOS__NOTE_LANE_BYTES ((uint64_t)AOS__NOTE_SLOTS * sizeof(struct aos__note_slot))
_Static_assert(AOS__NOTE_LANE_BYTES % AOS__LINE == 0, "lanes are whole lines");

static inline uint64_t aos__notify_bitmap_bytes(int npes)
{
    uint64_t words = ((uint64_t)npes + 63) / 64;
    return (words * 8 + AOS__LINE - 1) / AOS__LINE * AOS__LINE;
}

static inline uint64_t aos__notify_ack_off(int npes, int target)
{
    return aos__notify_bitmap_bytes(npes) + (uint64_t)target * AOS__LINE;
}

static inline uint64_t aos__notify_lane_off(int npes, int source)
{
    return aos__notify_bitmap_bytes(npes) + (uint64_t)npes * AOS__LINE +
           (uint64_t)source * AOS__NOTE_LANE_BYTES;
}

static inline uint64_t aos__notify_region_size(int npes)
{
    return aos__notify_lane_off(npes, npes);
}

#endif
