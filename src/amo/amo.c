/* Remote atomics: argument checks, then one transport operation. */
#include "core/event.h"
#include "core/runtime.h"
#include "mem/memory.h"
#include "mem/segment.h"
#include "core/progress.h"

static unsigned type_width(aos_amo_type_t type)
{
    switch (type) {
    case AOS_AMO_I32:
    case AOS_AMO_U32: return 4;
    case AOS_AMO_I64:
    case AOS_AMO_U64: return 8;
    }
    return 0;
}

static int op_valid(aos_amo_op_t op, int fetching)
{
    if ((int)op < AOS_AMO_ADD || (int)op > AOS_AMO_CAS)
        return 0;
    /* a posted read or compare-and-swap would have no observable effect */
    return fetching || (op != AOS_AMO_READ && op != AOS_AMO_CAS);
}

/* Checks op, type and alignment; on success *width is the word size. */
static int check_amo(aos_amo_op_t op, aos_amo_type_t type, int fetching, uint64_t arena_off,
                     unsigned *width)
{
    unsigned w = type_width(type);
    if (w == 0 || !op_valid(op, fetching))
        return AOS_ERR_INVALID;
    /* Arenas are mapped page aligned: offset alignment is address alignment. */
    if (arena_off % w != 0)
        return AOS_ERR_ALIGN;
    *width = w;
    return AOS_OK;
}

/* pe/off resolved and bounds-checked by the callers below. */
static int issue(int pe, uint64_t off, aos_amo_op_t op, aos_amo_type_t type, uint64_t operand,
                 uint64_t compare, void *result, aos_event_t *ev, int fetching)
{
    unsigned width;
    int rc = check_amo(op, type, fetching, off, &width);
    if (rc != AOS_OK)
        return rc;
    aos__serve_poll();
    if (!fetching)
        return aos__tp(pe)->amo(pe, off, op, width, operand, 0, NULL, NULL);
    if (result == NULL)
        return AOS_ERR_NULL;
    if (aos__event_bad(ev))
        return AOS_ERR_INVALID;
    return aos__tp(pe)->amo(pe, off, op, width, operand, compare, result, ev);
}

int aos_amo_post(aos_seg_t *seg, size_t offset, aos_amo_op_t op, aos_amo_type_t type,
                 uint64_t operand)
{
    uint64_t off;
    int rc = aos__seg_access(seg, offset, type_width(type), AOS_PROTO_ATOMIC, &off);
    if (rc != AOS_OK)
        return rc;
    return issue(seg->owner, off, op, type, operand, 0, NULL, NULL, 0);
}

int aos_amo_fetch(aos_seg_t *seg, size_t offset, aos_amo_op_t op, aos_amo_type_t type,
                  uint64_t operand, uint64_t compare, void *result, aos_event_t *ev)
{
    uint64_t off;
    int rc = aos__seg_access(seg, offset, type_width(type), AOS_PROTO_ATOMIC, &off);
    if (rc != AOS_OK)
        return rc;
    return issue(seg->owner, off, op, type, operand, compare, result, ev, 1);
}

static int sym_word(int pe, void *addr, aos_amo_type_t type, uint64_t *off)
{
    AOS__CHECK_INIT();
    AOS__CHECK_PE(pe);
    if (addr == NULL)
        return AOS_ERR_NULL;
    return aos__sym_locate(addr, type_width(type), off);
}

int aos_amo_post_sym(int pe, void *addr, aos_amo_op_t op, aos_amo_type_t type,
                     uint64_t operand)
{
    uint64_t off;
    int rc = sym_word(pe, addr, type, &off);
    if (rc != AOS_OK)
        return rc;
    return issue(pe, off, op, type, operand, 0, NULL, NULL, 0);
}

int aos_amo_fetch_sym(int pe, void *addr, aos_amo_op_t op, aos_amo_type_t type,
                      uint64_t operand, uint64_t compare, void *result, aos_event_t *ev)
{
    uint64_t off;
    int rc = sym_word(pe, addr, type, &off);
    if (rc != AOS_OK)
        return rc;
    return issue(pe, off, op, type, operand, compare, result, ev, 1);
}

/* The typed shorthands declared in aos.h, on segments and on symmetric
 * addresses. Values travel as their 64-bit two's-complement image; the
 * transport truncates to the width. SFX is empty or _sym; TP the target's
 * parameters and TA its arguments (both in parentheses); POST and FETCH
 * the generic calls they go to. */
#define AOS__AMO_DEFINE(T, t, TYPE, SFX, TP, TA, POST, FETCH)                              \
    int aos_postadd##SFX##_##t(AOS__UNPAREN TP, T v)                                       \
    {                                                                                      \
        return POST(AOS__UNPAREN TA, AOS_AMO_ADD, TYPE, (uint64_t)v);                      \
    }                                                                                      \
    int aos_poke##SFX##_##t(AOS__UNPAREN TP, T v)                                          \
    {                                                                                      \
        return POST(AOS__UNPAREN TA, AOS_AMO_SET, TYPE, (uint64_t)v);                      \
    }                                                                                      \
    int aos_post_and##SFX##_##t(AOS__UNPAREN TP, T v)                                      \
    {                                                                                      \
        return POST(AOS__UNPAREN TA, AOS_AMO_AND, TYPE, (uint64_t)v);                      \
    }                                                                                      \
    int aos_post_or##SFX##_##t(AOS__UNPAREN TP, T v)                                       \
    {                                                                                      \
        return POST(AOS__UNPAREN TA, AOS_AMO_OR, TYPE, (uint64_t)v);                       \
    }                                                                                      \
    int aos_post_xor##SFX##_##t(AOS__UNPAREN TP, T v)                                      \
    {                                                                                      \
        return POST(AOS__UNPAREN TA, AOS_AMO_XOR, TYPE, (uint64_t)v);                      \
    }                                                                                      \
    int aos_fetch_add##SFX##_##t(AOS__UNPAREN TP, T v, T *old, aos_event_t *ev)            \
    {                                                                                      \
        return FETCH(AOS__UNPAREN TA, AOS_AMO_ADD, TYPE, (uint64_t)v, 0, old, ev);         \
    }                                                                                      \
    int aos_fetch_clear##SFX##_##t(AOS__UNPAREN TP, T *old, aos_event_t *ev)               \
    {                                                                                      \
        return FETCH(AOS__UNPAREN TA, AOS_AMO_CLEAR, TYPE, 0, 0, old, ev);                 \
    }                                                                                      \
    int aos_peek##SFX##_##t(AOS__UNPAREN TP, T *value, aos_event_t *ev)                    \
    {                                                                                      \
        return FETCH(AOS__UNPAREN TA, AOS_AMO_READ, TYPE, 0, 0, value, ev);                \
    }                                                                                      \
    int aos_swap##SFX##_##t(AOS__UNPAREN TP, T v, T *old, aos_event_t *ev)                 \
    {                                                                                      \
        return FETCH(AOS__UNPAREN TA, AOS_AMO_SET, TYPE, (uint64_t)v, 0, old, ev);         \
    }                                                                                      \
    int aos_cas##SFX##_##t(AOS__UNPAREN TP, T compare, T v, T *old, aos_event_t *ev)       \
    {                                                                                      \
        return FETCH(AOS__UNPAREN TA, AOS_AMO_CAS, TYPE, (uint64_t)v, (uint64_t)compare,   \
                     old, ev);                                                             \
    }                                                                                      \
    int aos_fetch_and##SFX##_##t(AOS__UNPAREN TP, T v, T *old, aos_event_t *ev)            \
    {                                                                                      \
        return FETCH(AOS__UNPAREN TA, AOS_AMO_AND, TYPE, (uint64_t)v, 0, old, ev);         \
    }                                                                                      \
    int aos_fetch_or##SFX##_##t(AOS__UNPAREN TP, T v, T *old, aos_event_t *ev)             \
    {                                                                                      \
        return FETCH(AOS__UNPAREN TA, AOS_AMO_OR, TYPE, (uint64_t)v, 0, old, ev);          \
    }                                                                                      \
    int aos_fetch_xor##SFX##_##t(AOS__UNPAREN TP, T v, T *old, aos_event_t *ev)            \
    {                                                                                      \
        return FETCH(AOS__UNPAREN TA, AOS_AMO_XOR, TYPE, (uint64_t)v, 0, old, ev);         \
    }
#define AOS__AMO_DEFINE_BOTH(T, t, TYPE)                                                   \
    AOS__AMO_DEFINE(T, t, TYPE, , (aos_seg_t * seg, size_t off), (seg, off), aos_amo_post, \
                    aos_amo_fetch)                                                         \
    AOS__AMO_DEFINE(T, t, TYPE, _sym, (int pe, T *addr), (pe, addr), aos_amo_post_sym,     \
                    aos_amo_fetch_sym)

AOS__AMO_DEFINE_BOTH(int32_t, i32, AOS_AMO_I32)
AOS__AMO_DEFINE_BOTH(uint32_t, u32, AOS_AMO_U32)
AOS__AMO_DEFINE_BOTH(int64_t, i64, AOS_AMO_I64)
AOS__AMO_DEFINE_BOTH(uint64_t, u64, AOS_AMO_U64)
