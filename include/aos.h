/* aos: asynchronous one-sided communication and synchronization.
 *
 * A PE (one process, numbered 0..aos_n_pes()-1) publishes parts of its memory;
 * other PEs put, get and wait on that memory without the owner taking part.
 *
 * Conventions of every call in this header
 *  - Returns 0 (AOS_OK) or a negative AOS_ERR_* code (include/aos/status.h);
 *    aos_strerror() turns it into text.
 *  - Arguments are checked on every call: PE numbers, bounds against the
 *    segment, NULL buffers with a non-zero length, protocols, alignment.
 *  - Output parameters are written only when the call succeeds.
 *  - A length of 0 (or a block with no bytes) is a valid no-op transfer; its
 *    buffers may be NULL, and with an event it counts as one completed
 *    operation on it.
 *
 * Completion
 *  - Data operations take an optional event. With ev == NULL the call returns
 *    when the operation is complete: a put's data is visible at the target, a
 *    get's data is in the local buffer. With an event the call may return
 *    before completion; the event counts completions, so several operations
 *    may share one, and aos_event_wait() returns when all of them are done.
 *    Either way a put's source buffer may be reused as soon as the call
 *    returns: the data has left it (aos_put_nbi's only once its event
 *    completes). aos_quiet() completes every operation,
 *    with or without an event.
 *
 * Ordering guarantees (each is tested in tests/mp/)
 *  - A blocking operation is complete before the next operation starts.
 *  - aos_fence(pe): operations to pe issued before the fence are visible at
 *    pe before any issued after it.
 *  - aos_quiet(): every operation this PE issued before the call is complete.
 *  - Two gets from one segment are performed in program order.
 *  - Without a fence, quiet or event wait, non-blocking puts to one target
 *    may become visible in any order.
 *
 * Waiting: every blocking call spins briefly, then yields the CPU, then sleeps
 * in the kernel until a writer wakes it, so jobs with more PEs than cores
 * finish. The thresholds are AOS_SPIN_COUNT, AOS_YIELD_COUNT, AOS_SLEEP_US. */
#ifndef AOS_H
#define AOS_H

#include <stddef.h>
#include <stdint.h>

#include "aos/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The library is built with hidden visibility; what this header declares is
 * its public ABI. */
#if defined(__GNUC__)
#pragma GCC visibility push(default)
#endif

#define AOS_VERSION_MAJOR 0
#define AOS_VERSION_MINOR 1
#define AOS_VERSION_PATCH 0

/* ---- runtime ----------------------------------------------------------- */

/* Starts aos. Under `aosrun -n N` the program becomes one of N PEs; started
 * directly it runs as the only PE. Collective: every PE calls it. */
int aos_init(void);
/* Waits for every PE (a barrier), then releases everything aos holds.
 * Before any PE returns, every RPC made anywhere in the job has run: posted
 * ones, and those their handlers make in turn (the PEs serve meanwhile).
 * Segment handles this PE created are freed; attached handles must be
 * detached before. Global variables stay usable. A single PE started without
 * aosrun may call aos_init again; a launched PE gets AOS_ERR_FINALIZED. */
int aos_finalize(void);
/* 1 between a successful aos_init and aos_finalize, else 0. */
int aos_initialized(void);
/* Ends the whole job: this process exits with `status` at once (stdio
 * flushed, no finalize) and aosrun stops every other PE, wherever it waits,
 * and exits with that status (under mpirun or srun every other PE leaves
 * with it by itself, and the launcher exits with it). Callable from any PE
 * at any time; before aos_init it only exits, and a launcher counts a PE
 * that ends before starting up as a failure: status 0 then ends the job
 * with status 1. */
#if defined(__GNUC__)
__attribute__((noreturn))
#endif
void aos_global_exit(int status);

const char *aos_strerror(int status);
const char *aos_version_string(void);

/* My PE number and the number of PEs; -1 before aos_init. */
int aos_my_pe(void);
int aos_n_pes(void);

/* The PEs that share my node (same machine, reachable by load/store) and my
 * cluster (same last-level cache), in increasing order. Writes at most `max`
 * entries into pes and the full count into *count. */
int aos_node_pes(int *pes, int max, int *count);
int aos_cluster_pes(int *pes, int max, int *count);

/* ---- events ------------------------------------------------------------- */

/* A counting completion event. One thread at a time issues operations on an
 * event and waits on it (events are cheap: give each thread its own). */
typedef struct aos_event aos_event_t;

/* A put, get or atomic on another node that fails after its call returned
 * (its target PE died: AOS_ERR_PE_DIED; the network failed:
 * AOS_ERR_NETWORK) still completes its event. The event keeps the first
 * such status, and the next wait or test that finds it complete returns it,
 * once (aos_event_wait_any does not: it leaves it to a wait or test of the
 * event it names). Operations that need the target's answer (enqueues,
 * mailbox and portal writes, RPCs) stay incomplete: the launcher ends a job
 * whose PE died (docs/launch.md). Mailbox and portal writes with events
 * that the owner's close ends complete holding AOS_ERR_DESTROYED. */
int aos_event_create(aos_event_t **ev);
int aos_event_destroy(aos_event_t *ev);
/* Blocks until every operation attached to ev has completed. */
int aos_event_wait(aos_event_t *ev);
/* As aos_event_wait, but gives up with AOS_ERR_TIMEOUT after timeout_ns
 * nanoseconds; the operations stay attached and may complete later. */
int aos_event_wait_timed(aos_event_t *ev, uint64_t timeout_ns);
/* *done = 1 when every attached operation has completed, else 0; a
 * failure found complete is returned instead (*done is not set). */
int aos_event_test(aos_event_t *ev, int *done);
/* Completed operations since creation (monotonic), failed ones included. */
int aos_event_count(aos_event_t *ev, uint64_t *completed);
/* Blocks until every event of evs is complete; returns the failure of the
 * first that holds one (and clears them all). */
int aos_event_wait_all(aos_event_t *const *evs, size_t n);
/* Waits until one of evs is complete and writes its index into *index. */
int aos_event_wait_any(aos_event_t *const *evs, size_t n, size_t *index);

/* ---- segments ---------------------------------------------------------- */

typedef struct aos_seg aos_seg_t;

/* Protocols a segment admits; accesses of another kind get AOS_ERR_PROTOCOL. */
#define AOS_PROTO_RMA       0x1u  /* put / get */
#define AOS_PROTO_ATOMIC    0x2u  /* remote atomics */
#define AOS_PROTO_QUEUE     0x4u  /* remote queue: made by aos_queue_create */
#define AOS_PROTO_NOTIFY    0x8u  /* notified access: put_notify/get_notify */
#define AOS_PROTO_LOADSTORE 0x10u /* direct pointers from on-node peers */
#define AOS_PROTO_ALL       0x1fu

/* Creates a zero-filled segment of `size` bytes owned by me under `key`
 * (unique among my live segments). Keys from AOS_KEY_RESERVED_FROM up are
 * aos's own (AOS_ERR_INVALID). */
#define AOS_KEY_RESERVED_FROM 0xffff000000000000ull
int aos_seg_create(uint64_t key, size_t size, unsigned protocols, aos_seg_t **seg);
/* Publishes `size` bytes of my existing memory at `buf`. The buffer keeps its
 * address and contents; it must stay allocated until aos_seg_destroy. The
 * pages holding it become shared memory, so two such segments may not share a
 * page (AOS_ERR_OVERLAP); buffers in symmetric memory may overlap freely.
 * Outside symmetric memory every page of the range must be ordinary writable
 * private memory of this process (malloc'd, a writable global, a private
 * read-write mmap); anything else is refused with AOS_ERR_INVALID and left
 * as it was: code, read-only data (string literals, const globals, a
 * PROT_READ mapping), unmapped addresses or a range that runs off the end of
 * its mapping, shared mappings, any PE's arena (a pointer from aos_sym_ptr
 * or aos_seg_ptr), and the calling thread's stack. AOS_DEBUG=1 prints the
 * reason. A size of 0 or a range that wraps the address space gives
 * AOS_ERR_SIZE. */
int aos_seg_create_from(uint64_t key, void *buf, size_t size, unsigned protocols,
                        aos_seg_t **seg);
/* Any PE obtains a handle to owner's segment `key`; the owner does nothing.
 * AOS_ERR_NO_KEY when the owner has no live segment with that key. */
int aos_seg_attach(int owner, uint64_t key, aos_seg_t **seg);
/* Releases an attached handle (the segment lives on). */
int aos_seg_detach(aos_seg_t *seg);
/* Owner only: removes the segment; other PEs' handles then fail with
 * AOS_ERR_DESTROYED, however they learn that the destroy has happened
 * (across nodes the call waits until every PE of another node has taken
 * note: one round trip). A segment made from a buffer leaves the buffer
 * private again with its current contents. */
int aos_seg_destroy(aos_seg_t *seg);

int aos_seg_size(const aos_seg_t *seg, size_t *size);
int aos_seg_owner(const aos_seg_t *seg, int *owner);
/* Load/store protocol: a pointer through which this PE reads and writes the
 * segment's memory at `offset` directly. AOS_ERR_NOT_LOCAL for a peer off
 * the node. Plain stores wake nobody: a peer asleep in aos_wait_until on
 * that memory notices within AOS_SLEEP_US; write the final flag with a put
 * to wake it at once. */
int aos_seg_ptr(const aos_seg_t *seg, size_t offset, void **ptr);

/* ---- symmetric memory ---------------------------------------------------- */

/* Collective: every PE calls them in the same order with the same arguments
 * (AOS_CHECK=1 compares them: a mismatch gives NULL on every PE, see
 * aos/coll.h); the result has the same offset in every PE's symmetric heap.
 * The heap is a sparse reservation of AOS_HEAP_SIZE bytes; only touched
 * pages cost memory.
 * On failure they return NULL on every PE and set errno: ENOMEM when the
 * heap cannot fit the block, EINVAL when arguments are refused (on any PE:
 * see aos_free) or the call is not allowed here (before aos_init, inside an
 * RPC handler), EIO when a PE died. size 0 gives NULL, which is no
 * failure (errno means nothing then). Memory from aos_malloc is not
 * initialised; aos_calloc zero-fills. aos_align's address itself is a
 * multiple of alignment (a power of two up to AOS_ALIGN_MAX; larger ones
 * give NULL) on every PE. */
#define AOS_ALIGN_MAX ((size_t)4 << 20)
void *aos_malloc(size_t size);
void *aos_calloc(size_t count, size_t size);
void *aos_align(size_t alignment, size_t size);
void *aos_realloc(void *ptr, size_t size);
/* Collective too; 0, also for NULL. A pointer that is not a live block of
 * the heap (never allocated, or freed already) on any PE frees nothing on
 * every PE, so that the heaps stay the same: that PE gets AOS_ERR_INVALID
 * and a line on stderr saying so, the others AOS_ERR_INVALID and a line
 * naming it. aos_realloc refuses such a pointer the same way (NULL, EINVAL
 * on every PE, its block left where it was). */
int aos_free(void *ptr);

/* Symmetric addresses are aos_malloc'd memory and the program's global and
 * static variables. Heap addresses past the end of the highest block the
 * heap ever gave are none: transfers there give AOS_ERR_BOUNDS, on the
 * PE's node as on others. Below that end the heap is checked as one range,
 * not block by block (that would cost every transfer a search): a transfer
 * that runs from one block into the next, or into a freed block, is not
 * refused. *remote = the address `addr` names on `pe`, as a pointer
 * usable by load/store on this PE; AOS_ERR_NOT_LOCAL when pe is off-node. */
int aos_sym_ptr(const void *addr, int pe, void **remote);
/* 1 when addr is symmetric, else 0. */
int aos_sym_accessible(const void *addr);

/* ---- put and get ---------------------------------------------------------- */

/* Contiguous transfers into and out of a segment at `offset`. */
int aos_put(aos_seg_t *seg, size_t offset, const void *src, size_t len, aos_event_t *ev);
int aos_get(void *dst, aos_seg_t *seg, size_t offset, size_t len, aos_event_t *ev);

/* The same on symmetric addresses: dest/src name memory on `pe`. */
int aos_putmem(int pe, void *dest, const void *src, size_t len, aos_event_t *ev);
int aos_getmem(int pe, void *dst, const void *src, size_t len, aos_event_t *ev);

/* Puts that go on reading src after they return (OpenSHMEM's put_nbi): as
 * aos_put and aos_putmem with an event, except that src must stay
 * unchanged, and allocated, until ev completes (aos_event_wait, a test
 * that reports it done, or aos_quiet). A put to another node then need
 * not wait for its data to leave src, so several are on the wire at once;
 * on the caller's node the data is copied before return, as by aos_put.
 * With ev == NULL they are aos_put and aos_putmem's blocking form. A call
 * that fails has stopped reading src when it returns. */
int aos_put_nbi(aos_seg_t *seg, size_t offset, const void *src, size_t len, aos_event_t *ev);
int aos_putmem_nbi(int pe, void *dest, const void *src, size_t len, aos_event_t *ev);

/* Geometry transfers, zero-copy: a block of count[1] planes of count[0] rows
 * of `run` contiguous bytes. Row r of plane p starts at
 *     base + p * stride[1] + r * stride[0]
 * with independent strides on the local and the remote side. A 1D strided
 * transfer is count = {n, 1}; a 2D block count = {rows, 1}; 3D {rows, planes}.
 * Strides may be smaller than run only when rows do not overlap on the
 * destination side (AOS_ERR_OVERLAP). */
typedef struct aos_block {
    size_t run;              /* contiguous bytes per row */
    size_t count[2];         /* rows per plane, planes */
    size_t local_stride[2];  /* bytes between rows, between planes (local) */
    size_t remote_stride[2]; /* bytes between rows, between planes (remote) */
} aos_block_t;

int aos_put_block(aos_seg_t *seg, size_t offset, const void *src, const aos_block_t *b,
                  aos_event_t *ev);
int aos_get_block(void *dst, aos_seg_t *seg, size_t offset, const aos_block_t *b,
                  aos_event_t *ev);
int aos_putmem_block(int pe, void *dest, const void *src, const aos_block_t *b,
                     aos_event_t *ev);
int aos_getmem_block(int pe, void *dst, const void *src, const aos_block_t *b,
                     aos_event_t *ev);

/* Orders my earlier operations to pe before my later ones. */
int aos_fence(int pe);
/* aos_fence for every PE at once: to each PE, my earlier operations before
 * my later ones (nothing is ordered across PEs). Cheaper than aos_quiet
 * where the network orders by itself: it waits for nothing there. */
int aos_fence_all(void);
/* Completes every operation I have issued. */
int aos_quiet(void);
/* Collective over all PEs: nobody leaves before everybody has arrived, and
 * every PE's operations issued before the barrier are complete after it. */
int aos_barrier_all(void);

/* ---- remote atomics --------------------------------------------------------- */

/* Atomic operations on 32- and 64-bit integers in a segment created with
 * AOS_PROTO_ATOMIC, or at a symmetric address. On a node they are CPU atomics
 * on the mapped memory: no message, no help from the target.
 *
 * Ordering (the "outstanding ordering" rule): an atomic to a segment takes
 * effect only after every put this PE issued earlier to that segment is
 * complete and visible, with no fence in between. A PE's symmetric memory
 * (heap and static data) counts as one segment for this rule. So "put the data, then
 * postadd a counter" lets a target that sees the counter read the data.
 * Fetching atomics complete before they return unless given an event; then
 * *result is valid once the event completes.
 *
 * The address must be aligned to the width (AOS_ERR_ALIGN); a segment without
 * AOS_PROTO_ATOMIC gives AOS_ERR_PROTOCOL; an unknown type or an operation
 * that has no posted form gives AOS_ERR_INVALID. */
typedef enum aos_amo_op {
    AOS_AMO_ADD = 0, /* v += operand */
    AOS_AMO_AND,     /* v &= operand */
    AOS_AMO_OR,      /* v |= operand */
    AOS_AMO_XOR,     /* v ^= operand */
    AOS_AMO_SET,     /* v = operand: poke (posted), swap (fetching) */
    AOS_AMO_CLEAR,   /* v = 0: fetch-clear */
    AOS_AMO_READ,    /* peek: fetching only */
    AOS_AMO_CAS      /* if v == compare: v = operand; fetching only */
} aos_amo_op_t;

typedef enum aos_amo_type { AOS_AMO_I32 = 0, AOS_AMO_U32, AOS_AMO_I64, AOS_AMO_U64 } aos_amo_type_t;

/* Posted form: returns when issued, no result. Operands are passed as 64-bit
 * values and truncated to the type's width. */
int aos_amo_post(aos_seg_t *seg, size_t offset, aos_amo_op_t op, aos_amo_type_t type,
                 uint64_t operand);
/* Fetching form: the old value is written to *result (an int32_t, uint32_t,
 * int64_t or uint64_t by type). */
int aos_amo_fetch(aos_seg_t *seg, size_t offset, aos_amo_op_t op, aos_amo_type_t type,
                  uint64_t operand, uint64_t compare, void *result, aos_event_t *ev);
/* The same on a symmetric address of PE pe. */
int aos_amo_post_sym(int pe, void *addr, aos_amo_op_t op, aos_amo_type_t type,
                     uint64_t operand);
int aos_amo_fetch_sym(int pe, void *addr, aos_amo_op_t op, aos_amo_type_t type,
                      uint64_t operand, uint64_t compare, void *result, aos_event_t *ev);

/* Typed shorthands, for T in {int32_t i32, uint32_t u32, int64_t i64,
 * uint64_t u64}, on segments and (the _sym_ forms) on symmetric addresses:
 *   aos_postadd_t(seg, off, v)            aos_postadd_sym_t(pe, addr, v)
 *   aos_poke_t(seg, off, v)               posted store
 *   aos_post_and_t / _or_t / _xor_t       posted bitwise
 *   aos_fetch_add_t(seg, off, v, &old, ev)
 *   aos_fetch_clear_t(seg, off, &old, ev)
 *   aos_peek_t(seg, off, &value, ev)
 *   aos_swap_t(seg, off, v, &old, ev)
 *   aos_cas_t(seg, off, compare, v, &old, ev)
 *   aos_fetch_and_t / _or_t / _xor_t(seg, off, v, &old, ev)
 * where a _sym_ form takes (int pe, T *addr) in place of (seg, off), e.g.
 * aos_fetch_add_sym_u64(pe, &counter, 1, &old, NULL). */
#define AOS__UNPAREN(...) __VA_ARGS__
/* SFX: empty or _sym; TP: the target's parameters, in parentheses. */
#define AOS__AMO_DECLARE(T, t, SFX, TP)                                                    \
    int aos_postadd##SFX##_##t(AOS__UNPAREN TP, T v);                                      \
    int aos_poke##SFX##_##t(AOS__UNPAREN TP, T v);                                         \
    int aos_post_and##SFX##_##t(AOS__UNPAREN TP, T v);                                     \
    int aos_post_or##SFX##_##t(AOS__UNPAREN TP, T v);                                      \
    int aos_post_xor##SFX##_##t(AOS__UNPAREN TP, T v);                                     \
    int aos_fetch_add##SFX##_##t(AOS__UNPAREN TP, T v, T *old, aos_event_t *ev);           \
    int aos_fetch_clear##SFX##_##t(AOS__UNPAREN TP, T *old, aos_event_t *ev);              \
    int aos_peek##SFX##_##t(AOS__UNPAREN TP, T *value, aos_event_t *ev);                   \
    int aos_swap##SFX##_##t(AOS__UNPAREN TP, T v, T *old, aos_event_t *ev);                \
    int aos_cas##SFX##_##t(AOS__UNPAREN TP, T compare, T v, T *old, aos_event_t *ev);      \
    int aos_fetch_and##SFX##_##t(AOS__UNPAREN TP, T v, T *old, aos_event_t *ev);           \
    int aos_fetch_or##SFX##_##t(AOS__UNPAREN TP, T v, T *old, aos_event_t *ev);            \
    int aos_fetch_xor##SFX##_##t(AOS__UNPAREN TP, T v, T *old, aos_event_t *ev);
#define AOS__AMO_DECLARE_BOTH(T, t)                                                        \
    AOS__AMO_DECLARE(T, t, , (aos_seg_t * seg, size_t off))                               \
    AOS__AMO_DECLARE(T, t, _sym, (int pe, T *addr))
AOS__AMO_DECLARE_BOTH(int32_t, i32)
AOS__AMO_DECLARE_BOTH(uint32_t, u32)
AOS__AMO_DECLARE_BOTH(int64_t, i64)
AOS__AMO_DECLARE_BOTH(uint64_t, u64)
#undef AOS__AMO_DECLARE_BOTH
#undef AOS__AMO_DECLARE

/* ---- remote queues ------------------------------------------------------------ */

/* A queue of fixed-size items (1-256 bytes) owned by one PE and found by key
 * like a segment. Any number of PEs enqueue (N to 1, atomically); only the
 * owner dequeues. A full queue pushes back: aos_enqueue waits (sleeping when
 * the machine is oversubscribed), aos_try_enqueue returns AOS_ERR_AGAIN.
 * No item is lost, duplicated or torn, and the items of one producer come
 * out in the order it enqueued them, whatever the capacity (1 included).
 * A producer on another node sends its items to the owner: aos_try_enqueue
 * waits for the owner's answer; aos_enqueue does not, and waits only when
 * 64 of its handle's items are still unanswered (the owner holds items
 * that found the queue full until a dequeue makes room). While earlier
 * items are unanswered an item may wait in this PE for the network's next
 * turn of progress (the next aos call that waits, or else the network
 * progress thread, typically within a millisecond or two), so that a burst
 * of items travels in one message. An item that reaches a queue destroyed
 * meanwhile is dropped, and the producer's next call on the handle returns
 * AOS_ERR_DESTROYED.
 * aos_queue_detach of such a handle waits until the owner has every item
 * sent through it (dequeued, or held for a full queue and then dequeued),
 * as aos_enqueue on a node waits while the queue is full. */
typedef struct aos_queue aos_queue_t;

int aos_queue_create(uint64_t key, size_t item_size, size_t capacity, aos_queue_t **q);
/* AOS_ERR_NO_KEY when the owner has no live queue with that key, also when
 * the one found is destroyed during the attach (destroyed after it, the
 * handle's calls give AOS_ERR_DESTROYED); AOS_ERR_PROTOCOL when the key
 * names a segment that is not a queue. */
int aos_queue_attach(int owner, uint64_t key, aos_queue_t **q);
int aos_queue_detach(aos_queue_t *q);
/* Owner only; pending asynchronous dequeues must have completed. */
int aos_queue_destroy(aos_queue_t *q);
int aos_queue_item_size(const aos_queue_t *q, size_t *item_size);

/* Producers (any PE, the owner too). */
int aos_enqueue(aos_queue_t *q, const void *item);
int aos_try_enqueue(aos_queue_t *q, const void *item);
/* Owner only: AOS_ERR_INVALID from another PE. aos_dequeue_async stores the
 * next item into *item and completes ev once one has arrived (progressed by
 * any wait or test); asynchronous dequeues complete in the order issued. */
int aos_dequeue(aos_queue_t *q, void *item);
int aos_try_dequeue(aos_queue_t *q, void *item);
int aos_dequeue_async(aos_queue_t *q, void *item, aos_event_t *ev);

/* ---- notified access ---------------------------------------------------------- */

/* A put or get that also delivers a notification (my PE, tag) to the owner of
 * the segment, which must have AOS_PROTO_NOTIFY. The owner never sees the
 * notification before the data: a put's data is visible, a get's data has
 * been read, when the notification arrives. Notifications travel in a
 * lane per (sender, owner) pair, 64 in flight; when it is full the sender
 * waits until the owner progresses (push-back), nothing is dropped. Both
 * calls complete before they return, except a put with an event to an
 * owner on another node: it returns once src may be reused, and ev
 * completes when the data is visible (as for aos_put). The owner may be on
 * any node. */
int aos_put_notify(aos_seg_t *seg, size_t offset, const void *src, size_t len, uint32_t tag,
                   aos_event_t *ev);
int aos_get_notify(void *dst, aos_seg_t *seg, size_t offset, size_t len, uint32_t tag,
                   aos_event_t *ev);

/* The owner matches notifications with persistent requests: a request for
 * `expected` notifications on seg from `source` (or AOS_ANY_SOURCE) with `tag`
 * (or AOS_ANY_TAG). Started requests take notifications first-come in the
 * order they were started; a notification no started request matches waits
 * in an unexpected queue, and aos_notify_start takes from it first, oldest
 * first. Matching is FIFO per (source, tag). A request may be started again
 * once complete. */
#define AOS_ANY_SOURCE (-1)
/* Tags are uint32_t; the largest is the wildcard, which a notification
 * cannot carry (aos_put_notify/aos_get_notify refuse it: AOS_ERR_INVALID). */
#define AOS_ANY_TAG UINT32_MAX
typedef struct aos_notify_req aos_notify_req_t;

int aos_notify_init(aos_seg_t *seg, int source, uint32_t tag, uint64_t expected,
                    aos_notify_req_t **req);
int aos_notify_start(aos_notify_req_t *req);
int aos_notify_test(aos_notify_req_t *req, int *done);
int aos_notify_wait(aos_notify_req_t *req);
/* Source and tag of the last notification the request matched. */
int aos_notify_last(const aos_notify_req_t *req, int *source, uint32_t *tag);
/* AOS_ERR_AGAIN while the request is started and incomplete. */
int aos_notify_free(aos_notify_req_t *req);

/* ---- remote procedure calls ------------------------------------------------- */

/* Every PE registers the same handlers in the same order (and under the same
 * names); a handler is named by the id registration returns. A call to a PE
 * whose table differs at that id fails with AOS_ERR_RPC_MISMATCH, so call
 * after a barrier that follows registration. At most AOS_RPC_MAX_HANDLERS. */
#define AOS_RPC_MAX_HANDLERS 256
/* Arguments and reply each travel inline up to this size; larger data goes
 * through memory the handler can reach: a segment of the caller whose key
 * and offset the arguments carry (aos_seg_attach(info->caller, key)), or a
 * symmetric variable the handler names itself (aos_getmem(info->caller,
 * buf, &var, ...)). Never send a raw pointer: PEs may load the program, and
 * map their heaps, at different addresses. */
#define AOS_RPC_MAX_INLINE 4096

typedef struct aos_rpc_info {
    int caller;    /* the PE that made the call */
    int home;      /* the PE whose memory the call is about: its target */
    int at_caller; /* 1 when the caller runs it (AOS_RPC_ANYWHERE fallback) */
} aos_rpc_info_t;

/* Runs with the arguments; writes at most reply_cap bytes of reply and
 * returns their number (0 for posted calls, whose reply_cap is 0).
 * Inside a handler, calls that every PE of a team must make refuse to run,
 * since the PEs they would wait for may be waiting on this handler: barriers
 * and every collective and team split give AOS_ERR_INVALID, as does
 * aos_finalize; aos_malloc, aos_calloc, aos_align and aos_realloc give
 * NULL; aos_free frees nothing (it says so on stderr). Handlers nest: a
 * chain of calls, each made by the handler of the one before, may be
 * AOS_RPC_MAX_DEPTH calls deep, whatever PEs and threads it passes; the
 * handler of the last gets AOS_ERR_INVALID from aos_rpc and aos_rpc_post.
 * A thread that waits inside a handler serves other calls on its stack, so
 * chains that run at once add up there, up to 4 * AOS_RPC_MAX_DEPTH
 * handlers; that deep it serves no more, and a handler there gets
 * AOS_ERR_INVALID too (its call could need this thread, and retrying before
 * it returns cannot help: the handlers below it are its own callers). */
#define AOS_RPC_MAX_DEPTH 16
typedef size_t (*aos_rpc_handler_t)(const aos_rpc_info_t *info, const void *args,
                                    size_t args_len, void *reply, size_t reply_cap);

/* The handler may run on the calling PE over the target's mapped memory when
 * the target's RPC queue is full, instead of the caller waiting. It must then
 * reach the home PE's data through aos_rpc_localize and atomics, since the
 * home PE may be running other handlers at the same time. */
#define AOS_RPC_ANYWHERE 1u

typedef uint32_t aos_rpc_id_t;
int aos_rpc_register(const char *name, aos_rpc_handler_t fn, unsigned flags, aos_rpc_id_t *id);

/* Runs handler `id` on `pe` with args and waits for its reply (ev NULL), or
 * returns at once and completes ev when the reply is in `reply` and its
 * length in *reply_len (both must stay valid until then; args are copied).
 * Handlers run on the target when it calls aos_progress, any aos call that
 * waits or tests (this one included: a caller serves its own RPCs while it
 * waits, so handlers may call aos themselves, nested RPCs too), a blocking
 * put, an atomic or an enqueue (one load when nothing is queued; puts with
 * events and gets do not look, to keep streaming paths lean), and, with
 * AOS_PROGRESS_THREAD=1, on the target's progress thread at any time: such
 * handlers run concurrently with the target's program and must synchronise
 * with it (atomics, locks) over shared data.
 * A full target queue: an AOS_RPC_ANYWHERE handler on a node peer is run by
 * the caller itself; otherwise a blocking or posted call waits for space,
 * serving its own RPCs, and a call with an event never waits: it is kept
 * here and sent by later progress (waits, tests, aos_progress), in order per
 * target. So a caller facing a target that never progresses can always
 * test its event or wait with aos_event_wait_timed. At most
 * AOS_RPC_PENDING_MAX calls (4096 unless set) are kept so; beyond, the call
 * gives AOS_ERR_AGAIN without posting ev: progress, then try again.
 * aos_rpc_post from inside a handler never waits either: a call that cannot
 * go at once is kept and sent the same way (while fewer than
 * AOS_RPC_PENDING_MAX are kept; beyond, it waits as outside handlers).
 * A reply_cap above AOS_RPC_MAX_INLINE is clamped to it (no reply is
 * longer); *reply_len, when given, receives the reply's length also when
 * reply is NULL (reply_cap 0: the length is 0). */
int aos_rpc(int pe, aos_rpc_id_t id, const void *args, size_t args_len, void *reply,
            size_t reply_cap, size_t *reply_len, aos_event_t *ev);
/* A call without reply: returns once queued (or run by the fallback). */
int aos_rpc_post(int pe, aos_rpc_id_t id, const void *args, size_t args_len);

/* Inside a handler: a pointer, valid here, to symmetric address `addr` of
 * info->home (the address itself when the handler runs at home). */
int aos_rpc_localize(const aos_rpc_info_t *info, const void *addr, void **local);

/* Runs the RPC handlers queued at this PE and completes what can complete. */
int aos_progress(void);

typedef struct aos_rpc_stats {
    uint64_t sent;      /* calls this PE queued at a target */
    uint64_t fallback;  /* calls this PE ran itself because the target was full */
    uint64_t served;    /* handlers this PE ran for callers */
} aos_rpc_stats_t;
int aos_rpc_stats(aos_rpc_stats_t *stats);

/* ---- IPC objects: mailboxes, portals, syncs ------------------------------------ */

/* For code written in message-passing style, built on queues, one-sided puts
 * with completion words and atomics. Each object lives at its owner and is
 * named by (owner PE, port); each kind has its own ports (any uint32_t).
 * Opening before the owner has created the object gives AOS_ERR_NO_KEY:
 * create, then synchronise (a barrier), then open. */

/* Mailbox: messages of a fixed size (1-256 bytes) from any PE to the owner,
 * in order per writer; `capacity` messages may wait, then writers are pushed
 * back. */
typedef struct aos_mbox aos_mbox_t;
int aos_mbox_create(uint32_t port, size_t msg_size, size_t capacity, aos_mbox_t **mb);
int aos_mbox_open(int owner, uint32_t port, aos_mbox_t **mb);
/* The owner's close destroys the mailbox; a writer's closes its handle.
 * AOS_ERR_AGAIN while an operation with an event on the handle is pending. */
int aos_mbox_close(aos_mbox_t *mb);
int aos_mbox_msg_size(const aos_mbox_t *mb, size_t *msg_size);
/* Without an event: returns once the message is in the mailbox, waiting
 * while it is full. With one: returns at once (the message is copied) and
 * completes ev when the message is in; writes with events on one handle
 * arrive in the order made. Those that find the mailbox full wait for
 * space: in the writer's process, or, to another node's mailbox, at most
 * 64 per handle at the owner and the rest in the writer's process. Those
 * in the writer's process go in (or to the owner) at the progress of the
 * writer's later aos calls, any thread's. A write the owner's close finds
 * pending is lost: its event completes holding AOS_ERR_DESTROYED. */
int aos_mbox_write(aos_mbox_t *mb, const void *msg, aos_event_t *ev);
/* AOS_ERR_AGAIN when full (or when earlier writes with events still wait). */
int aos_mbox_try_write(aos_mbox_t *mb, const void *msg);
/* Owner only: the oldest message; with an event, msg is filled and ev
 * completed when one arrives (reads with events complete in order). */
int aos_mbox_read(aos_mbox_t *mb, void *msg, aos_event_t *ev);
int aos_mbox_try_read(aos_mbox_t *mb, void *msg);

/* Portal: the receiver allows one sender one write of up to `cap` bytes,
 * which goes straight from the sender's buffer into the receiver's (one
 * copy, no intermediate buffer). The receiver's buffer must be memory other
 * PEs reach: symmetric memory, a segment of its own (aos_seg_ptr) or a
 * buffer published with aos_seg_create_from (else AOS_ERR_NOT_SYMMETRIC),
 * and [buf, buf + cap) must lie within that one object (else
 * AOS_ERR_BOUNDS). */
typedef struct aos_portal aos_portal_t;
int aos_portal_create(uint32_t port, aos_portal_t **p);
int aos_portal_open(int receiver, uint32_t port, aos_portal_t **p);
/* AOS_ERR_AGAIN while a read or a write with an event is outstanding on it.
 * A writer waiting on a portal its receiver closes gets AOS_ERR_DESTROYED. */
int aos_portal_close(aos_portal_t *p);
/* Receiver: grants `sender` the write and, without an event, waits for it;
 * *len = the sender's length. A sender with more than cap bytes writes
 * nothing: the read then returns AOS_ERR_SIZE with *len set to that length,
 * so the receiver can grant again with room. With an event, returns at once
 * and *len is set when ev completes (> cap: nothing was written). One read
 * at a time per portal (AOS_ERR_AGAIN). */
int aos_portal_read(aos_portal_t *p, int sender, void *buf, size_t cap, size_t *len,
                    aos_event_t *ev);
/* Sender: waits for the receiver's permission, then writes. AOS_ERR_SIZE
 * when len exceeds what it allows (nothing written; the receiver learns the
 * length). With an event: returns at once, src must stay unchanged until ev
 * completes. Writes on one handle happen in the order made, with or without
 * events. Each permission carries one write, whichever of the sender's
 * threads (on one handle or on several) takes it. A write with an event
 * that fails after the call returned (the receiver closed the portal, or
 * the length exceeded what it allowed) completes ev holding the status. */
int aos_portal_write(aos_portal_t *p, const void *src, size_t len, aos_event_t *ev);

/* Sync: signals over a set of PEs with a root. A member's signal is
 * all-to-one (it arrives at the root, posted, without waiting); the root's
 * is one-to-all (it releases every member). The root's k-th wait returns
 * once every other member has signalled k times; a member's k-th wait once
 * the root has signalled k times. A barrier over the set is: members signal
 * then wait, the root waits then signals. Creation is collective over the
 * set: the members call it with the same port, list and root (the root and
 * the caller in the list); a first signal waits until its peers have
 * created theirs. Destroy once nobody will signal it again. */
typedef struct aos_sync aos_sync_t;
int aos_sync_create(uint32_t port, const int *pes, int n, int root, aos_sync_t **s);
int aos_sync_signal(aos_sync_t *s);
int aos_sync_wait(aos_sync_t *s);
/* *done = 1 and the wait counted when the next wait would return now. */
int aos_sync_test(aos_sync_t *s, int *done);
int aos_sync_destroy(aos_sync_t *s);

/* ---- waiting on local memory ------------------------------------------------ */

typedef enum aos_cmp {
    AOS_CMP_EQ = 0,
    AOS_CMP_NE,
    AOS_CMP_GT,
    AOS_CMP_GE,
    AOS_CMP_LT,
    AOS_CMP_LE
} aos_cmp_t;

/* For T in {uint32_t u32, uint64_t u64, int32_t i32, int64_t i64}:
 *   aos_wait_until_t(addr, cmp, value)   waits until (*addr cmp value) holds
 *   aos_wait_until_timed_t(addr, cmp, value, timeout_ns)
 *                                        the same, or AOS_ERR_TIMEOUT after
 *                                        timeout_ns nanoseconds
 *   aos_test_t(addr, cmp, value, &met)   *met = 1 when it holds now, else 0
 * addr must be naturally aligned. The word is read with acquire ordering,
 * so data put before the write that satisfied the condition is visible
 * when the call returns. */
#define AOS__WAIT_DECLARE(T, t)                                                            \
    int aos_wait_until_##t(const T *addr, aos_cmp_t cmp, T value);                         \
    int aos_wait_until_timed_##t(const T *addr, aos_cmp_t cmp, T value,                    \
                                 uint64_t timeout_ns);                                     \
    int aos_test_##t(const T *addr, aos_cmp_t cmp, T value, int *met);
AOS__WAIT_DECLARE(uint32_t, u32)
AOS__WAIT_DECLARE(uint64_t, u64)
AOS__WAIT_DECLARE(int32_t, i32)
AOS__WAIT_DECLARE(int64_t, i64)
#undef AOS__WAIT_DECLARE
/* Waits until ready(arg) returns non-zero, or gives up with AOS_ERR_TIMEOUT
 * after timeout_ns (AOS_FOREVER: never). For conditions the calls above do
 * not express: several words, other widths, a vector of values. ready is
 * called again whenever another PE writes my memory through aos, and at
 * least every AOS_SLEEP_US; it must read the words it checks with acquire
 * loads (or __atomic_load_n(p, __ATOMIC_ACQUIRE)) so that data written
 * before them is visible once it returns non-zero. */
#define AOS_FOREVER UINT64_MAX
typedef int (*aos_ready_fn)(void *arg);
int aos_wait_ready(aos_ready_fn ready, void *arg, uint64_t timeout_ns);

/* ---- configuration -------------------------------------------------------- */

/* Walks the table of AOS_* environment variables: for each, its name, the
 * value in effect (as text), its default and what it means. Callable before
 * aos_init (values are then parsed from the environment on the spot).
 * Returns the first error a value has, after visiting every variable. */
typedef void (*aos_config_visit_fn)(const char *name, const char *value,
                                    const char *default_value, const char *meaning,
                                    void *arg);
int aos_config_visit(aos_config_visit_fn fn, void *arg);

/* Teams and collectives (AOS_CHECK=1 compares their arguments across the
 * team: see there). */
#include "aos/coll.h"

#if defined(__GNUC__)
#pragma GCC visibility pop
#endif

#ifdef __cplusplus
}
#endif

#endif
