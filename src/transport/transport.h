/* The transport contract. The core names remote memory as (pe, arena offset)
 * and calls these operations; a transport fills the table with designated
 * initialisers. An operation a transport lacks is a real function returning
 * AOS_ERR_UNSUPPORTED, never a NULL pointer. Arguments arrive already checked
 * (PE in range, offset and length inside the target's arena).
 *
 * Completion contract: with ev == NULL an operation is complete on return;
 * otherwise the transport calls aos__event_post(ev) when it accepts the
 * operation and aos__event_complete(ev) when it is done. */
#ifndef AOS_TRANSPORT_H
#define AOS_TRANSPORT_H

#include <stddef.h>
#include <stdint.h>

#include "aos.h"

struct aos__runtime;

struct aos__transport {
    const char *name;
    /* Creates this PE's arena and exchanges it with the other PEs. */
    int (*start)(struct aos__runtime *rt);
    void (*stop)(struct aos__runtime *rt);
    /* Per-thread state for a thread other than the one that called start
     * (the progress thread): set up on it, and torn down on it at its end. */
    int (*thread_start)(void);
    void (*thread_stop)(void);
    int (*put)(int pe, uint64_t off, const void *src, size_t len, aos_event_t *ev);
    int (*get)(void *dst, int pe, uint64_t off, size_t len, aos_event_t *ev);
    int (*put_block)(int pe, uint64_t off, const void *src, const aos_block_t *b,
                     aos_event_t *ev);
    int (*get_block)(void *dst, int pe, uint64_t off, const aos_block_t *b, aos_event_t *ev);
    /* Stores a 64-bit word with release ordering (earlier operations to pe are
     * visible first) and wakes pe's waiters. off is 8-byte aligned. */
    int (*signal_store)(int pe, uint64_t off, uint64_t value);
    /* Atomic op on a width-byte (4 or 8) word at off, aligned and checked.
     * Ordered after this PE's earlier puts to pe. *old receives the previous
     * value when old != NULL; ev as for data operations. */
    int (*amo)(int pe, uint64_t off, aos_amo_op_t op, unsigned width, uint64_t operand,
               uint64_t compare, uint64_t *old, aos_event_t *ev);
    /* Advances deferred work (wakes, network completions); cheap when idle. */
    void (*progress)(void);
    int (*fence)(int pe);
    int (*quiet)(void);
    /* A load/store pointer to pe's arena at off, or AOS_ERR_NOT_LOCAL. */
    int (*local_ptr)(int pe, uint64_t off, void **ptr);
};

extern const struct aos__transport aos__transport_shm;

#endif
