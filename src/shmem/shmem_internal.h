/* The OpenSHMEM front end's shared state and helpers. Everything in
 * src/shmem/ is written against the public aos.h only. */
#ifndef AOS_SHMEM_INTERNAL_H
#define AOS_SHMEM_INTERNAL_H

#define SHMEM_NO_GENERIC 1 /* the library defines the functions the macros name */
#define SHMEM_NO_INLINE 1  /* ... and the functions shmem.h would define inline */
#include <shmem.h>

#include <string.h>

#include "aos.h"
#include "core/tls.h"

_Static_assert(SHMEM_CMP_EQ == AOS_CMP_EQ && SHMEM_CMP_NE == AOS_CMP_NE &&
                   SHMEM_CMP_GT == AOS_CMP_GT && SHMEM_CMP_GE == AOS_CMP_GE &&
                   SHMEM_CMP_LT == AOS_CMP_LT && SHMEM_CMP_LE == AOS_CMP_LE,
               "SHMEM_CMP_* are aos_cmp_t values");

struct shmem__team {
    aos_team_t *team;
    int predefined;   /* world or shared: never destroyed by the user */
    int my_pe, n_pes;
    int *world_pe;    /* rank -> world PE; NULL for the world team */
    shmem_team_config_t config;
    int contexts;     /* live contexts made from this team */
};

struct shmem__ctx {
    struct shmem__team *team;
    long options;
};

/* Library state: set by shmem_init, read everywhere after. */
struct shmem__state {
    int initialized, finalized;
    int thread_level;
    int me, npes;
    int debug; /* SHMEM_DEBUG */
};
extern struct shmem__state shmem__st;

/* Reports a user error (what the call was, why it failed, what to do) and
 * ends the whole job with status 1: the SHMEM routines return nothing a
 * caller could check, and going on would corrupt or hang. */
SHMEM__NORETURN void shmem__fail(const char *fn, int rc);
/* The same text, without ending the job (routines that return a status). */
void shmem__report(const char *fn, int rc);

/* Operations attach to the calling thread's event so that puts need not
 * wake the target at once (aos_quiet completes them and wakes); one per
 * thread, since an aos event belongs to one thread. */
aos_event_t *shmem__thread_event_slow(void);
extern AOS__TLS aos_event_t *shmem__thread_ev;
static inline aos_event_t *shmem__ev(void)
{
    aos_event_t *ev = shmem__thread_ev;
    return ev != NULL ? ev : shmem__thread_event_slow();
}

/* SHMEM_CTX_DEFAULT's object. The routines without a context pass its
 * address, a constant, so that their context checks fold away. */
extern struct shmem__ctx shmem__default_ctx;
#define SHMEM__DEFAULT (&shmem__default_ctx)

/* World PE of `pe` as numbered in ctx's team (contexts made from a team
 * number PEs in that team). */
int shmem__ctx_pe_slow(shmem_ctx_t ctx, int pe, const char *fn);
static inline int shmem__ctx_pe(shmem_ctx_t ctx, int pe, const char *fn)
{
    if (ctx == SHMEM__DEFAULT || (ctx != NULL && ctx->team->world_pe == NULL))
        return pe;
    return shmem__ctx_pe_slow(ctx, pe, fn);
}

/* The common case of an operation: a context on the world team (PE numbers
 * are world PEs) and this thread's event made. Operations test it first and
 * leave everything else to an out-of-line path, so that their fast path
 * saves no registers around the call into aos. */
static inline int shmem__fast(shmem_ctx_t ctx)
{
    return __builtin_expect((ctx == SHMEM__DEFAULT ||
                             (ctx != NULL && ctx->team->world_pe == NULL)) &&
                                shmem__thread_ev != NULL,
                            1);
}

/* Completes this thread's operations on every context. */
void shmem__quiet(const char *fn);

/* Calls f and ends the job with a report when it fails. */
#define SHMEM__TRY(fn, call)                                                               \
    do {                                                                                   \
        int shmem__rc = (call);                                                            \
        if (__builtin_expect(shmem__rc != AOS_OK, 0))                                      \
            shmem__fail(fn, shmem__rc);                                                    \
    } while (0)

/* Bytes of nelems elements of `size` bytes: AOS_ERR_SIZE when that does
 * not fit a size_t. */
static inline int shmem__bytes(size_t nelems, size_t size, size_t *out)
{
    if (__builtin_expect(nelems > SIZE_MAX / size, 0))
        return AOS_ERR_SIZE;
    *out = nelems * size;
    return AOS_OK;
}
/* The same for routines that return nothing: overflow ends the job. */
static inline size_t shmem__bytes_or_fail(size_t nelems, size_t size, const char *fn)
{
    size_t n = 0;
    SHMEM__TRY(fn, shmem__bytes(nelems, size, &n));
    return n;
}

/* (a cmp b) for SHMEM_CMP_* on 64-bit patterns, compared as signed
 * values when is_signed (the operands sign-extended from their width). */
int shmem__compare(uint64_t a, int cmp, uint64_t b, int is_signed);

/* Team handle checks shared by teams and collectives. */
int shmem__team_ok(shmem_team_t team);

#endif
