/* OpenSHMEM 1.5 on aos.
 *
 * The complete C API of the OpenSHMEM 1.5 specification, with its deprecated
 * forms, implemented in src/shmem/ on the public aos API. Build a program
 * with `oshcc prog.c` and run it with `oshrun -n 4 ./a.out`.
 *
 * What this implementation adds to the specification
 *  - Errors a program makes (a non-symmetric address, a PE out of range, a
 *    misaligned atomic, ...) print one line naming the call, the cause and
 *    what to do, then stop the whole job with status 1: never a crash or a
 *    hang. An exhausted symmetric heap makes shmem_malloc return NULL after
 *    saying how to enlarge it (SHMEM_SYMMETRIC_SIZE).
 *  - Every thread level is provided as requested; contexts are lightweight
 *    (no resources beyond a small handle), so shmem_ctx_create does not fail
 *    for lack of them.
 *  - pSync and pWrk arrays of the deprecated active-set collectives are
 *    accepted and never written: any values, any reuse.
 *  - Symmetric data objects: shmem_malloc'd memory and the program's global
 *    and static variables.
 *  - The default-context contiguous RMA and AMO routines are inline (one
 *    call into aos each; aos/shmem_inline.h). Define SHMEM_NO_INLINE to call
 *    the library's functions instead.
 *
 * Type tables: the typed routines are declared through the SHMEM__*_TYPES
 * tables below, one X(type, TYPENAME) entry per type of the specification's
 * tables. */
#ifndef AOS_SHMEM_H
#define AOS_SHMEM_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
#include <complex>
extern "C" {
typedef std::complex<float> shmem__complexf;
typedef std::complex<double> shmem__complexd;
#else
typedef float _Complex shmem__complexf;
typedef double _Complex shmem__complexd;
#endif

/* The default-context RMA and AMO routines are defined inline (in
 * aos/shmem_inline.h) unless SHMEM_NO_INLINE is defined; SHMEM__OUTLINE
 * keeps their library declarations for that case. */
#if !defined(SHMEM_NO_INLINE) && defined(__GNUC__) &&                                     \
    (defined(__cplusplus) || (defined(__STDC_VERSION__) && __STDC_VERSION__ >= 199901L))
#define SHMEM__INLINE 1
#define SHMEM__OUTLINE(decl)
#else
#define SHMEM__INLINE 0
#define SHMEM__OUTLINE(decl) decl
#endif

#if defined(__GNUC__)
#pragma GCC visibility push(default)
#define SHMEM__DEPRECATED __attribute__((deprecated))
#define SHMEM__NORETURN __attribute__((noreturn))
#else
#define SHMEM__DEPRECATED
#define SHMEM__NORETURN
#endif

/* ---- constants ------------------------------------------------------------ */

#define SHMEM_MAJOR_VERSION 1
#define SHMEM_MINOR_VERSION 5
#define _SHMEM_MAJOR_VERSION SHMEM_MAJOR_VERSION
#define _SHMEM_MINOR_VERSION SHMEM_MINOR_VERSION
#define SHMEM_MAX_NAME_LEN 256
#define _SHMEM_MAX_NAME_LEN SHMEM_MAX_NAME_LEN
#define SHMEM_VENDOR_STRING "aos OpenSHMEM"
#define _SHMEM_VENDOR_STRING SHMEM_VENDOR_STRING

#define SHMEM_THREAD_SINGLE 0
#define SHMEM_THREAD_FUNNELED 1
#define SHMEM_THREAD_SERIALIZED 2
#define SHMEM_THREAD_MULTIPLE 3

/* Comparison operators: the same order as aos_cmp_t. */
#define SHMEM_CMP_EQ 0
#define SHMEM_CMP_NE 1
#define SHMEM_CMP_GT 2
#define SHMEM_CMP_GE 3
#define SHMEM_CMP_LT 4
#define SHMEM_CMP_LE 5
#define _SHMEM_CMP_EQ SHMEM_CMP_EQ
#define _SHMEM_CMP_NE SHMEM_CMP_NE
#define _SHMEM_CMP_GT SHMEM_CMP_GT
#define _SHMEM_CMP_GE SHMEM_CMP_GE
#define _SHMEM_CMP_LT SHMEM_CMP_LT
#define _SHMEM_CMP_LE SHMEM_CMP_LE

#define SHMEM_SIGNAL_SET 0
#define SHMEM_SIGNAL_ADD 1

/* Context options. */
#define SHMEM_CTX_SERIALIZED (1L << 0)
#define SHMEM_CTX_PRIVATE (1L << 1)
#define SHMEM_CTX_NOSTORE (1L << 2)

/* Team configuration. */
#define SHMEM_TEAM_NUM_CONTEXTS (1L << 0)

/* Allocation hints (accepted; every symmetric object supports both). */
#define SHMEM_MALLOC_ATOMICS_REMOTE (1L << 0)
#define SHMEM_MALLOC_SIGNAL_REMOTE (1L << 1)

/* Work arrays of the deprecated active-set collectives. */
#define SHMEM_SYNC_VALUE (-1L)
#define SHMEM_SYNC_SIZE 64
#define SHMEM_BARRIER_SYNC_SIZE SHMEM_SYNC_SIZE
#define SHMEM_BCAST_SYNC_SIZE SHMEM_SYNC_SIZE
#define SHMEM_REDUCE_SYNC_SIZE SHMEM_SYNC_SIZE
#define SHMEM_COLLECT_SYNC_SIZE SHMEM_SYNC_SIZE
#define SHMEM_ALLTOALL_SYNC_SIZE SHMEM_SYNC_SIZE
#define SHMEM_ALLTOALLS_SYNC_SIZE SHMEM_SYNC_SIZE
#define SHMEM_REDUCE_MIN_WRKDATA_SIZE 1
#define _SHMEM_SYNC_VALUE SHMEM_SYNC_VALUE
#define _SHMEM_BARRIER_SYNC_SIZE SHMEM_BARRIER_SYNC_SIZE
#define _SHMEM_BCAST_SYNC_SIZE SHMEM_BCAST_SYNC_SIZE
#define _SHMEM_REDUCE_SYNC_SIZE SHMEM_REDUCE_SYNC_SIZE
#define _SHMEM_COLLECT_SYNC_SIZE SHMEM_COLLECT_SYNC_SIZE
#define _SHMEM_REDUCE_MIN_WRKDATA_SIZE SHMEM_REDUCE_MIN_WRKDATA_SIZE

/* ---- handles ---------------------------------------------------------------- */

typedef struct shmem__team *shmem_team_t;
typedef struct shmem__ctx *shmem_ctx_t;

typedef struct {
    int num_contexts;
} shmem_team_config_t;

/* The predefined teams and the default context: handles valid between
 * shmem_init and shmem_finalize. */
extern shmem_team_t SHMEM_TEAM_WORLD;
extern shmem_team_t SHMEM_TEAM_SHARED;
extern shmem_ctx_t SHMEM_CTX_DEFAULT;
#define SHMEM_TEAM_INVALID ((shmem_team_t)0)
#define SHMEM_CTX_INVALID ((shmem_ctx_t)0)

/* ---- type tables ------------------------------------------------------------ */

/* Standard RMA types (put, get, p, g, iput, iget, nbi, put_signal,
 * broadcast, collect, fcollect, alltoall, alltoalls). */
#define SHMEM__RMA_TYPES(X)                                                                \
    X(float, float) X(double, double) X(long double, longdouble) X(char, char)             \
    X(signed char, schar) X(short, short) X(int, int) X(long, long)                        \
    X(long long, longlong) X(unsigned char, uchar) X(unsigned short, ushort)               \
    X(unsigned int, uint) X(unsigned long, ulong) X(unsigned long long, ulonglong)         \
    X(int8_t, int8) X(int16_t, int16) X(int32_t, int32) X(int64_t, int64)                  \
    X(uint8_t, uint8) X(uint16_t, uint16) X(uint32_t, uint32) X(uint64_t, uint64)          \
    X(size_t, size) X(ptrdiff_t, ptrdiff)

/* Standard AMO types (compare_swap, fetch_inc, inc, fetch_add, add). */
#define SHMEM__AMO_STD_TYPES(X)                                                            \
    X(int, int) X(long, long) X(long long, longlong) X(unsigned int, uint)                 \
    X(unsigned long, ulong) X(unsigned long long, ulonglong) X(int32_t, int32)             \
    X(int64_t, int64) X(uint32_t, uint32) X(uint64_t, uint64) X(size_t, size)              \
    X(ptrdiff_t, ptrdiff)
/* Extended AMO types (fetch, set, swap): the standard ones and these. */
#define SHMEM__AMO_EXT_ONLY_TYPES(X) X(float, float) X(double, double)
/* Bitwise AMO types (and, or, xor). */
#define SHMEM__AMO_BIT_TYPES(X)                                                            \
    X(unsigned int, uint) X(unsigned long, ulong) X(unsigned long long, ulonglong)         \
    X(int32_t, int32) X(int64_t, int64) X(uint32_t, uint32) X(uint64_t, uint64)

/* Point-to-point synchronization types (wait_until, test and their forms). */
#define SHMEM__SYNC_TYPES(X)                                                               \
    X(short, short) X(int, int) X(long, long) X(long long, longlong)                       \
    X(unsigned short, ushort) X(unsigned int, uint) X(unsigned long, ulong)                \
    X(unsigned long long, ulonglong) X(int32_t, int32) X(int64_t, int64)                   \
    X(uint32_t, uint32) X(uint64_t, uint64) X(size_t, size) X(ptrdiff_t, ptrdiff)

/* Reduction types, by operation class. */
#define SHMEM__REDUCE_BIT_TYPES(X)                                                         \
    X(unsigned char, uchar) X(unsigned short, ushort) X(unsigned int, uint)                \
    X(unsigned long, ulong) X(unsigned long long, ulonglong) X(int8_t, int8)               \
    X(int16_t, int16) X(int32_t, int32) X(int64_t, int64) X(uint8_t, uint8)                \
    X(uint16_t, uint16) X(uint32_t, uint32) X(uint64_t, uint64) X(size_t, size)
#define SHMEM__REDUCE_MINMAX_TYPES(X)                                                      \
    X(char, char) X(signed char, schar) X(short, short) X(int, int) X(long, long)          \
    X(long long, longlong) X(ptrdiff_t, ptrdiff) X(unsigned char, uchar)                   \
    X(unsigned short, ushort) X(unsigned int, uint) X(unsigned long, ulong)                \
    X(unsigned long long, ulonglong) X(int8_t, int8) X(int16_t, int16) X(int32_t, int32)   \
    X(int64_t, int64) X(uint8_t, uint8) X(uint16_t, uint16) X(uint32_t, uint32)            \
    X(uint64_t, uint64) X(size_t, size) X(float, float) X(double, double)                  \
    X(long double, longdouble)
#define SHMEM__REDUCE_ARITH_TYPES(X)                                                       \
    SHMEM__REDUCE_MINMAX_TYPES(X) X(shmem__complexd, complexd) X(shmem__complexf, complexf)

/* Deprecated *_to_all reductions. */
#define SHMEM__TOALL_BIT_TYPES(X) X(short, short) X(int, int) X(long, long) X(long long, longlong)
#define SHMEM__TOALL_MINMAX_TYPES(X)                                                       \
    SHMEM__TOALL_BIT_TYPES(X) X(float, float) X(double, double) X(long double, longdouble)
#define SHMEM__TOALL_ARITH_TYPES(X)                                                        \
    SHMEM__TOALL_MINMAX_TYPES(X) X(shmem__complexd, complexd) X(shmem__complexf, complexf)

/* Sized RMA: X(bits) */
#define SHMEM__SIZES(X) X(8) X(16) X(32) X(64) X(128)

/* ---- library setup, exit and query -------------------------------------------- */

void shmem_init(void);
int shmem_init_thread(int requested, int *provided);
void shmem_finalize(void);
SHMEM__NORETURN void shmem_global_exit(int status);
int shmem_my_pe(void);
int shmem_n_pes(void);
int shmem_pe_accessible(int pe);
int shmem_addr_accessible(const void *addr, int pe);
void *shmem_ptr(const void *dest, int pe);
void shmem_info_get_version(int *major, int *minor);
void shmem_info_get_name(char *name);
void shmem_query_thread(int *provided);
/* 1 between shmem_init and shmem_finalize / after shmem_finalize. */
int shmem_query_initialized(int *initialized);
int shmem_query_finalized(int *finalized);
void shmem_pcontrol(const int level, ...);

SHMEM__DEPRECATED void start_pes(int npes);
SHMEM__DEPRECATED int _my_pe(void);
SHMEM__DEPRECATED int _num_pes(void);

/* ---- memory management ------------------------------------------------------- */

void *shmem_malloc(size_t size);
void *shmem_calloc(size_t count, size_t size);
void *shmem_align(size_t alignment, size_t size);
void *shmem_realloc(void *ptr, size_t size);
void shmem_free(void *ptr);
void *shmem_malloc_with_hints(size_t size, long hints);

SHMEM__DEPRECATED void *shmalloc(size_t size);
SHMEM__DEPRECATED void *shmemalign(size_t alignment, size_t size);
SHMEM__DEPRECATED void *shrealloc(void *ptr, size_t size);
SHMEM__DEPRECATED void shfree(void *ptr);

/* ---- teams ------------------------------------------------------------------ */

int shmem_team_my_pe(shmem_team_t team);
int shmem_team_n_pes(shmem_team_t team);
int shmem_team_get_config(shmem_team_t team, long config_mask, shmem_team_config_t *config);
int shmem_team_translate_pe(shmem_team_t src_team, int src_pe, shmem_team_t dest_team);
int shmem_team_split_strided(shmem_team_t parent_team, int start, int stride, int size,
                             const shmem_team_config_t *config, long config_mask,
                             shmem_team_t *new_team);
int shmem_team_split_2d(shmem_team_t parent_team, int xrange,
                        const shmem_team_config_t *xaxis_config, long xaxis_mask,
                        shmem_team_t *xaxis_team, const shmem_team_config_t *yaxis_config,
                        long yaxis_mask, shmem_team_t *yaxis_team);
void shmem_team_destroy(shmem_team_t team);

/* ---- contexts ------------------------------------------------------------------ */

int shmem_ctx_create(long options, shmem_ctx_t *ctx);
int shmem_team_create_ctx(shmem_team_t team, long options, shmem_ctx_t *ctx);
void shmem_ctx_destroy(shmem_ctx_t ctx);
int shmem_ctx_get_team(shmem_ctx_t ctx, shmem_team_t *team);

/* ---- RMA -------------------------------------------------------------------------- */

#define SHMEM__DECL_RMA(T, N)                                                              \
    SHMEM__OUTLINE(void shmem_##N##_put(T *dest, const T *source, size_t nelems, int pe);) \
    void shmem_ctx_##N##_put(shmem_ctx_t ctx, T *dest, const T *source, size_t nelems,     \
                             int pe);                                                      \
    SHMEM__OUTLINE(void shmem_##N##_get(T *dest, const T *source, size_t nelems, int pe);) \
    void shmem_ctx_##N##_get(shmem_ctx_t ctx, T *dest, const T *source, size_t nelems,     \
                             int pe);                                                      \
    SHMEM__OUTLINE(void shmem_##N##_put_nbi(T *dest, const T *source, size_t nelems, int pe);) \
    void shmem_ctx_##N##_put_nbi(shmem_ctx_t ctx, T *dest, const T *source,                \
                                 size_t nelems, int pe);                                   \
    SHMEM__OUTLINE(void shmem_##N##_get_nbi(T *dest, const T *source, size_t nelems, int pe);) \
    void shmem_ctx_##N##_get_nbi(shmem_ctx_t ctx, T *dest, const T *source,                \
                                 size_t nelems, int pe);                                   \
    SHMEM__OUTLINE(void shmem_##N##_p(T *dest, T value, int pe);) \
    void shmem_ctx_##N##_p(shmem_ctx_t ctx, T *dest, T value, int pe);                     \
    SHMEM__OUTLINE(T shmem_##N##_g(const T *source, int pe);) \
    T shmem_ctx_##N##_g(shmem_ctx_t ctx, const T *source, int pe);                         \
    void shmem_##N##_iput(T *dest, const T *source, ptrdiff_t tst, ptrdiff_t sst,          \
                          size_t nelems, int pe);                                          \
    void shmem_ctx_##N##_iput(shmem_ctx_t ctx, T *dest, const T *source, ptrdiff_t tst,    \
                              ptrdiff_t sst, size_t nelems, int pe);                       \
    void shmem_##N##_iget(T *dest, const T *source, ptrdiff_t tst, ptrdiff_t sst,          \
                          size_t nelems, int pe);                                          \
    void shmem_ctx_##N##_iget(shmem_ctx_t ctx, T *dest, const T *source, ptrdiff_t tst,    \
                              ptrdiff_t sst, size_t nelems, int pe);                       \
    void shmem_##N##_put_signal(T *dest, const T *source, size_t nelems,                   \
                                uint64_t *sig_addr, uint64_t signal, int sig_op, int pe);  \
    void shmem_ctx_##N##_put_signal(shmem_ctx_t ctx, T *dest, const T *source,             \
                                    size_t nelems, uint64_t *sig_addr, uint64_t signal,    \
                                    int sig_op, int pe);                                   \
    void shmem_##N##_put_signal_nbi(T *dest, const T *source, size_t nelems,               \
                                    uint64_t *sig_addr, uint64_t signal, int sig_op,       \
                                    int pe);                                               \
    void shmem_ctx_##N##_put_signal_nbi(shmem_ctx_t ctx, T *dest, const T *source,         \
                                        size_t nelems, uint64_t *sig_addr,                 \
                                        uint64_t signal, int sig_op, int pe);
SHMEM__RMA_TYPES(SHMEM__DECL_RMA)
#undef SHMEM__DECL_RMA

/* Sized forms move nelems elements of SIZE bits; mem forms move bytes. */
#define SHMEM__DECL_SIZED(S)                                                               \
    SHMEM__OUTLINE(void shmem_put##S(void *dest, const void *source, size_t nelems, int pe);) \
    void shmem_ctx_put##S(shmem_ctx_t ctx, void *dest, const void *source, size_t nelems,  \
                          int pe);                                                         \
    SHMEM__OUTLINE(void shmem_get##S(void *dest, const void *source, size_t nelems, int pe);) \
    void shmem_ctx_get##S(shmem_ctx_t ctx, void *dest, const void *source, size_t nelems,  \
                          int pe);                                                         \
    SHMEM__OUTLINE(void shmem_put##S##_nbi(void *dest, const void *source, size_t nelems, int pe);) \
    void shmem_ctx_put##S##_nbi(shmem_ctx_t ctx, void *dest, const void *source,           \
                                size_t nelems, int pe);                                    \
    SHMEM__OUTLINE(void shmem_get##S##_nbi(void *dest, const void *source, size_t nelems, int pe);) \
    void shmem_ctx_get##S##_nbi(shmem_ctx_t ctx, void *dest, const void *source,           \
                                size_t nelems, int pe);                                    \
    void shmem_iput##S(void *dest, const void *source, ptrdiff_t tst, ptrdiff_t sst,       \
                       size_t nelems, int pe);                                             \
    void shmem_ctx_iput##S(shmem_ctx_t ctx, void *dest, const void *source, ptrdiff_t tst, \
                           ptrdiff_t sst, size_t nelems, int pe);                          \
    void shmem_iget##S(void *dest, const void *source, ptrdiff_t tst, ptrdiff_t sst,       \
                       size_t nelems, int pe);                                             \
    void shmem_ctx_iget##S(shmem_ctx_t ctx, void *dest, const void *source, ptrdiff_t tst, \
                           ptrdiff_t sst, size_t nelems, int pe);                          \
    void shmem_put##S##_signal(void *dest, const void *source, size_t nelems,              \
                               uint64_t *sig_addr, uint64_t signal, int sig_op, int pe);   \
    void shmem_ctx_put##S##_signal(shmem_ctx_t ctx, void *dest, const void *source,        \
                                   size_t nelems, uint64_t *sig_addr, uint64_t signal,     \
                                   int sig_op, int pe);                                    \
    void shmem_put##S##_signal_nbi(void *dest, const void *source, size_t nelems,          \
                                   uint64_t *sig_addr, uint64_t signal, int sig_op,        \
                                   int pe);                                                \
    void shmem_ctx_put##S##_signal_nbi(shmem_ctx_t ctx, void *dest, const void *source,    \
                                       size_t nelems, uint64_t *sig_addr, uint64_t signal, \
                                       int sig_op, int pe);
SHMEM__SIZES(SHMEM__DECL_SIZED)
#undef SHMEM__DECL_SIZED

SHMEM__OUTLINE(void shmem_putmem(void *dest, const void *source, size_t nelems, int pe);)
void shmem_ctx_putmem(shmem_ctx_t ctx, void *dest, const void *source, size_t nelems, int pe);
SHMEM__OUTLINE(void shmem_getmem(void *dest, const void *source, size_t nelems, int pe);)
void shmem_ctx_getmem(shmem_ctx_t ctx, void *dest, const void *source, size_t nelems, int pe);
SHMEM__OUTLINE(void shmem_putmem_nbi(void *dest, const void *source, size_t nelems, int pe);)
void shmem_ctx_putmem_nbi(shmem_ctx_t ctx, void *dest, const void *source, size_t nelems,
                          int pe);
SHMEM__OUTLINE(void shmem_getmem_nbi(void *dest, const void *source, size_t nelems, int pe);)
void shmem_ctx_getmem_nbi(shmem_ctx_t ctx, void *dest, const void *source, size_t nelems,
                          int pe);
void shmem_putmem_signal(void *dest, const void *source, size_t nelems, uint64_t *sig_addr,
                         uint64_t signal, int sig_op, int pe);
void shmem_ctx_putmem_signal(shmem_ctx_t ctx, void *dest, const void *source, size_t nelems,
                             uint64_t *sig_addr, uint64_t signal, int sig_op, int pe);
void shmem_putmem_signal_nbi(void *dest, const void *source, size_t nelems,
                             uint64_t *sig_addr, uint64_t signal, int sig_op, int pe);
void shmem_ctx_putmem_signal_nbi(shmem_ctx_t ctx, void *dest, const void *source,
                                 size_t nelems, uint64_t *sig_addr, uint64_t signal,
                                 int sig_op, int pe);

/* ---- signals ------------------------------------------------------------------- */

uint64_t shmem_signal_fetch(const uint64_t *sig_addr);
uint64_t shmem_signal_wait_until(uint64_t *sig_addr, int cmp, uint64_t cmp_value);

/* ---- atomic memory operations ------------------------------------------------------ */

#define SHMEM__DECL_AMO_EXT(T, N)                                                          \
    SHMEM__OUTLINE(T shmem_##N##_atomic_fetch(const T *source, int pe);) \
    T shmem_ctx_##N##_atomic_fetch(shmem_ctx_t ctx, const T *source, int pe);              \
    SHMEM__OUTLINE(void shmem_##N##_atomic_set(T *dest, T value, int pe);) \
    void shmem_ctx_##N##_atomic_set(shmem_ctx_t ctx, T *dest, T value, int pe);            \
    SHMEM__OUTLINE(T shmem_##N##_atomic_swap(T *dest, T value, int pe);) \
    T shmem_ctx_##N##_atomic_swap(shmem_ctx_t ctx, T *dest, T value, int pe);              \
    SHMEM__OUTLINE(void shmem_##N##_atomic_fetch_nbi(T *fetch, const T *source, int pe);) \
    void shmem_ctx_##N##_atomic_fetch_nbi(shmem_ctx_t ctx, T *fetch, const T *source,      \
                                          int pe);                                         \
    SHMEM__OUTLINE(void shmem_##N##_atomic_swap_nbi(T *fetch, T *dest, T value, int pe);) \
    void shmem_ctx_##N##_atomic_swap_nbi(shmem_ctx_t ctx, T *fetch, T *dest, T value,      \
                                         int pe);
SHMEM__AMO_STD_TYPES(SHMEM__DECL_AMO_EXT)
SHMEM__AMO_EXT_ONLY_TYPES(SHMEM__DECL_AMO_EXT)
#undef SHMEM__DECL_AMO_EXT

#define SHMEM__DECL_AMO_STD(T, N)                                                          \
    SHMEM__OUTLINE(T shmem_##N##_atomic_compare_swap(T *dest, T cond, T value, int pe);) \
    T shmem_ctx_##N##_atomic_compare_swap(shmem_ctx_t ctx, T *dest, T cond, T value,       \
                                          int pe);                                         \
    SHMEM__OUTLINE(T shmem_##N##_atomic_fetch_inc(T *dest, int pe);) \
    T shmem_ctx_##N##_atomic_fetch_inc(shmem_ctx_t ctx, T *dest, int pe);                  \
    SHMEM__OUTLINE(void shmem_##N##_atomic_inc(T *dest, int pe);) \
    void shmem_ctx_##N##_atomic_inc(shmem_ctx_t ctx, T *dest, int pe);                     \
    SHMEM__OUTLINE(T shmem_##N##_atomic_fetch_add(T *dest, T value, int pe);) \
    T shmem_ctx_##N##_atomic_fetch_add(shmem_ctx_t ctx, T *dest, T value, int pe);         \
    SHMEM__OUTLINE(void shmem_##N##_atomic_add(T *dest, T value, int pe);) \
    void shmem_ctx_##N##_atomic_add(shmem_ctx_t ctx, T *dest, T value, int pe);            \
    SHMEM__OUTLINE(void shmem_##N##_atomic_compare_swap_nbi(T *fetch, T *dest, T cond, T value, int pe);) \
    void shmem_ctx_##N##_atomic_compare_swap_nbi(shmem_ctx_t ctx, T *fetch, T *dest,       \
                                                 T cond, T value, int pe);                 \
    SHMEM__OUTLINE(void shmem_##N##_atomic_fetch_inc_nbi(T *fetch, T *dest, int pe);) \
    void shmem_ctx_##N##_atomic_fetch_inc_nbi(shmem_ctx_t ctx, T *fetch, T *dest, int pe); \
    SHMEM__OUTLINE(void shmem_##N##_atomic_fetch_add_nbi(T *fetch, T *dest, T value, int pe);) \
    void shmem_ctx_##N##_atomic_fetch_add_nbi(shmem_ctx_t ctx, T *fetch, T *dest, T value, \
                                              int pe);
SHMEM__AMO_STD_TYPES(SHMEM__DECL_AMO_STD)
#undef SHMEM__DECL_AMO_STD

#define SHMEM__DECL_AMO_BIT_OP(T, N, OP)                                                   \
    SHMEM__OUTLINE(T shmem_##N##_atomic_fetch_##OP(T *dest, T value, int pe);) \
    T shmem_ctx_##N##_atomic_fetch_##OP(shmem_ctx_t ctx, T *dest, T value, int pe);        \
    SHMEM__OUTLINE(void shmem_##N##_atomic_##OP(T *dest, T value, int pe);) \
    void shmem_ctx_##N##_atomic_##OP(shmem_ctx_t ctx, T *dest, T value, int pe);           \
    SHMEM__OUTLINE(void shmem_##N##_atomic_fetch_##OP##_nbi(T *fetch, T *dest, T value, int pe);) \
    void shmem_ctx_##N##_atomic_fetch_##OP##_nbi(shmem_ctx_t ctx, T *fetch, T *dest,       \
                                                 T value, int pe);
#define SHMEM__DECL_AMO_BIT(T, N)                                                          \
    SHMEM__DECL_AMO_BIT_OP(T, N, and)                                                      \
    SHMEM__DECL_AMO_BIT_OP(T, N, or)                                                       \
    SHMEM__DECL_AMO_BIT_OP(T, N, xor)
SHMEM__AMO_BIT_TYPES(SHMEM__DECL_AMO_BIT)
#undef SHMEM__DECL_AMO_BIT

/* Deprecated AMO names (int, long, long long; float and double for fetch,
 * set and swap). */
#define SHMEM__DECL_AMO_OLD(T, N)                                                          \
    SHMEM__DEPRECATED T shmem_##N##_fetch(const T *source, int pe);                        \
    SHMEM__DEPRECATED void shmem_##N##_set(T *dest, T value, int pe);                      \
    SHMEM__DEPRECATED T shmem_##N##_swap(T *dest, T value, int pe);
#define SHMEM__DECL_AMO_OLD_STD(T, N)                                                      \
    SHMEM__DECL_AMO_OLD(T, N)                                                              \
    SHMEM__DEPRECATED T shmem_##N##_cswap(T *dest, T cond, T value, int pe);               \
    SHMEM__DEPRECATED T shmem_##N##_finc(T *dest, int pe);                                 \
    SHMEM__DEPRECATED void shmem_##N##_inc(T *dest, int pe);                               \
    SHMEM__DEPRECATED T shmem_##N##_fadd(T *dest, T value, int pe);                        \
    SHMEM__DEPRECATED void shmem_##N##_add(T *dest, T value, int pe);
#define SHMEM__AMO_OLD_STD_TYPES(X) X(int, int) X(long, long) X(long long, longlong)
SHMEM__AMO_OLD_STD_TYPES(SHMEM__DECL_AMO_OLD_STD)
SHMEM__AMO_EXT_ONLY_TYPES(SHMEM__DECL_AMO_OLD)
#undef SHMEM__DECL_AMO_OLD_STD
#undef SHMEM__DECL_AMO_OLD

/* ---- collectives ------------------------------------------------------------------- */

void shmem_barrier_all(void);
void shmem_sync_all(void);
int shmem_team_sync(shmem_team_t team);
SHMEM__DEPRECATED void shmem_barrier(int PE_start, int logPE_stride, int PE_size, long *pSync);
SHMEM__DEPRECATED void shmem_sync(int PE_start, int logPE_stride, int PE_size, long *pSync);

#define SHMEM__DECL_COLL(T, N)                                                             \
    int shmem_##N##_broadcast(shmem_team_t team, T *dest, const T *source, size_t nelems,  \
                              int PE_root);                                                \
    int shmem_##N##_collect(shmem_team_t team, T *dest, const T *source, size_t nelems);   \
    int shmem_##N##_fcollect(shmem_team_t team, T *dest, const T *source, size_t nelems);  \
    int shmem_##N##_alltoall(shmem_team_t team, T *dest, const T *source, size_t nelems);  \
    int shmem_##N##_alltoalls(shmem_team_t team, T *dest, const T *source, ptrdiff_t dst,  \
                              ptrdiff_t sst, size_t nelems);
SHMEM__RMA_TYPES(SHMEM__DECL_COLL)
#undef SHMEM__DECL_COLL
int shmem_broadcastmem(shmem_team_t team, void *dest, const void *source, size_t nelems,
                       int PE_root);
int shmem_collectmem(shmem_team_t team, void *dest, const void *source, size_t nelems);
int shmem_fcollectmem(shmem_team_t team, void *dest, const void *source, size_t nelems);
int shmem_alltoallmem(shmem_team_t team, void *dest, const void *source, size_t nelems);
int shmem_alltoallsmem(shmem_team_t team, void *dest, const void *source, ptrdiff_t dst,
                       ptrdiff_t sst, size_t nelems);

#define SHMEM__DECL_COLL_OLD(S)                                                            \
    SHMEM__DEPRECATED void shmem_broadcast##S(void *dest, const void *source,              \
                                              size_t nelems, int PE_root, int PE_start,    \
                                              int logPE_stride, int PE_size, long *pSync); \
    SHMEM__DEPRECATED void shmem_collect##S(void *dest, const void *source, size_t nelems, \
                                            int PE_start, int logPE_stride, int PE_size,   \
                                            long *pSync);                                  \
    SHMEM__DEPRECATED void shmem_fcollect##S(void *dest, const void *source,               \
                                             size_t nelems, int PE_start,                  \
                                             int logPE_stride, int PE_size, long *pSync);  \
    SHMEM__DEPRECATED void shmem_alltoall##S(void *dest, const void *source,               \
                                             size_t nelems, int PE_start,                  \
                                             int logPE_stride, int PE_size, long *pSync);  \
    SHMEM__DEPRECATED void shmem_alltoalls##S(void *dest, const void *source,              \
                                              ptrdiff_t dst, ptrdiff_t sst, size_t nelems, \
                                              int PE_start, int logPE_stride, int PE_size, \
                                              long *pSync);
SHMEM__DECL_COLL_OLD(32)
SHMEM__DECL_COLL_OLD(64)
#undef SHMEM__DECL_COLL_OLD

#define SHMEM__DECL_REDUCE(T, N, OP)                                                       \
    int shmem_##N##_##OP##_reduce(shmem_team_t team, T *dest, const T *source,             \
                                  size_t nreduce);
#define SHMEM__DECL_REDUCE_BIT(T, N)                                                       \
    SHMEM__DECL_REDUCE(T, N, and) SHMEM__DECL_REDUCE(T, N, or) SHMEM__DECL_REDUCE(T, N, xor)
#define SHMEM__DECL_REDUCE_MINMAX(T, N) SHMEM__DECL_REDUCE(T, N, max) SHMEM__DECL_REDUCE(T, N, min)
#define SHMEM__DECL_REDUCE_ARITH(T, N) SHMEM__DECL_REDUCE(T, N, sum) SHMEM__DECL_REDUCE(T, N, prod)
SHMEM__REDUCE_BIT_TYPES(SHMEM__DECL_REDUCE_BIT)
SHMEM__REDUCE_MINMAX_TYPES(SHMEM__DECL_REDUCE_MINMAX)
SHMEM__REDUCE_ARITH_TYPES(SHMEM__DECL_REDUCE_ARITH)
#undef SHMEM__DECL_REDUCE_BIT
#undef SHMEM__DECL_REDUCE_MINMAX
#undef SHMEM__DECL_REDUCE_ARITH
#undef SHMEM__DECL_REDUCE

#define SHMEM__DECL_TOALL(T, N, OP)                                                        \
    SHMEM__DEPRECATED void shmem_##N##_##OP##_to_all(T *dest, const T *source, int nreduce, \
                                                     int PE_start, int logPE_stride,       \
                                                     int PE_size, T *pWrk, long *pSync);
#define SHMEM__DECL_TOALL_BIT(T, N)                                                        \
    SHMEM__DECL_TOALL(T, N, and) SHMEM__DECL_TOALL(T, N, or) SHMEM__DECL_TOALL(T, N, xor)
#define SHMEM__DECL_TOALL_MINMAX(T, N) SHMEM__DECL_TOALL(T, N, max) SHMEM__DECL_TOALL(T, N, min)
#define SHMEM__DECL_TOALL_ARITH(T, N) SHMEM__DECL_TOALL(T, N, sum) SHMEM__DECL_TOALL(T, N, prod)
SHMEM__TOALL_BIT_TYPES(SHMEM__DECL_TOALL_BIT)
SHMEM__TOALL_MINMAX_TYPES(SHMEM__DECL_TOALL_MINMAX)
SHMEM__TOALL_ARITH_TYPES(SHMEM__DECL_TOALL_ARITH)
#undef SHMEM__DECL_TOALL_BIT
#undef SHMEM__DECL_TOALL_MINMAX
#undef SHMEM__DECL_TOALL_ARITH
#undef SHMEM__DECL_TOALL

/* ---- point-to-point synchronization ---------------------------------------------- */

/* status arrays: entries that are non-zero are left out of the wait/test;
 * NULL means every entry takes part. _any returns the index satisfied (or
 * SIZE_MAX when every entry is excluded), searching round robin: from the
 * entry after the one the calling thread's last _any call on the same array
 * returned, so entries that stay satisfied take turns and none starves.
 * _some writes the satisfied indices to indices and returns their number. */
#define SHMEM__DECL_P2P(T, N)                                                              \
    void shmem_##N##_wait_until(T *ivar, int cmp, T cmp_value);                            \
    void shmem_##N##_wait_until_all(T *ivars, size_t nelems, const int *status, int cmp,   \
                                    T cmp_value);                                          \
    size_t shmem_##N##_wait_until_any(T *ivars, size_t nelems, const int *status, int cmp, \
                                      T cmp_value);                                        \
    size_t shmem_##N##_wait_until_some(T *ivars, size_t nelems, size_t *indices,           \
                                       const int *status, int cmp, T cmp_value);           \
    void shmem_##N##_wait_until_all_vector(T *ivars, size_t nelems, const int *status,     \
                                           int cmp, T *cmp_values);                        \
    size_t shmem_##N##_wait_until_any_vector(T *ivars, size_t nelems, const int *status,   \
                                             int cmp, T *cmp_values);                      \
    size_t shmem_##N##_wait_until_some_vector(T *ivars, size_t nelems, size_t *indices,    \
                                              const int *status, int cmp, T *cmp_values);  \
    int shmem_##N##_test(T *ivar, int cmp, T cmp_value);                                   \
    int shmem_##N##_test_all(T *ivars, size_t nelems, const int *status, int cmp,          \
                             T cmp_value);                                                 \
    size_t shmem_##N##_test_any(T *ivars, size_t nelems, const int *status, int cmp,       \
                                T cmp_value);                                              \
    size_t shmem_##N##_test_some(T *ivars, size_t nelems, size_t *indices,                 \
                                 const int *status, int cmp, T cmp_value);                 \
    int shmem_##N##_test_all_vector(T *ivars, size_t nelems, const int *status, int cmp,   \
                                    T *cmp_values);                                        \
    size_t shmem_##N##_test_any_vector(T *ivars, size_t nelems, const int *status,         \
                                       int cmp, T *cmp_values);                            \
    size_t shmem_##N##_test_some_vector(T *ivars, size_t nelems, size_t *indices,          \
                                        const int *status, int cmp, T *cmp_values);        \
    SHMEM__DEPRECATED void shmem_##N##_wait(T *ivar, T cmp_value);
SHMEM__SYNC_TYPES(SHMEM__DECL_P2P)
#undef SHMEM__DECL_P2P
/* Deprecated untyped forms on long. */
SHMEM__DEPRECATED void shmem_wait(long *ivar, long cmp_value);
SHMEM__DEPRECATED void shmem_wait_until(long *ivar, int cmp, long cmp_value);

/* ---- memory ordering, locks, cache ----------------------------------------------- */

void shmem_fence(void);
void shmem_ctx_fence(shmem_ctx_t ctx);
void shmem_quiet(void);
void shmem_ctx_quiet(shmem_ctx_t ctx);

void shmem_set_lock(long *lock);
void shmem_clear_lock(long *lock);
int shmem_test_lock(long *lock);

/* Deprecated cache management: no-ops (the node is cache coherent). */
SHMEM__DEPRECATED void shmem_clear_cache_inv(void);
SHMEM__DEPRECATED void shmem_set_cache_inv(void);
SHMEM__DEPRECATED void shmem_clear_cache_line_inv(void *dest);
SHMEM__DEPRECATED void shmem_set_cache_line_inv(void *dest);
SHMEM__DEPRECATED void shmem_udcflush(void);
SHMEM__DEPRECATED void shmem_udcflush_line(void *dest);

#include "aos/shmem_inline.h"

#if defined(__GNUC__)
#pragma GCC visibility pop
#endif

#ifdef __cplusplus
}
/* OpenSHMEM 1.5's shmem_sync(team), beside the deprecated active-set
 * shmem_sync: in C++ an overload (in C11 a generic selection, below). */
static inline int shmem_sync(shmem_team_t team)
{
    return shmem_team_sync(team);
}
#endif

/* ---- C11 type-generic interfaces --------------------------------------------------- */
#include "aos/shmem_generic.h"

#endif
