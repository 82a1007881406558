/* The deprecated active-set collectives (PE_start, logPE_stride, PE_size,
 * pSync). An active set of every PE in order is the world team and runs
 * aos's collectives. Any other set is a sync object of aos (created by the
 * set's members alone, the first time they use the set, and kept) plus
 * puts: the data moves with one-sided puts or gets, the sync is the
 * barrier. Each starts with a sync too, so that nobody writes into a
 * member's dest (still in use by the member's previous call) before the
 * member has entered: back-to-back calls on one buffer are safe. pSync and
 * pWrk are never touched. */
#include <pthread.h>
#include <stdlib.h>

#include "shmem/active_set.h"
#include "shmem/shmem_internal.h"
#include "shmem/types.h"

struct set {
    int start, log, size;
    int rank;     /* mine in the set */
    int *pes;     /* world PE of each rank */
    aos_sync_t *sync;
    struct set *next;
};

static struct set *sets;
static pthread_mutex_t sets_lock = PTHREAD_MUTEX_INITIALIZER;
/* Each PE's contribution size in collect32/64, written by that PE into
 * every member's copy. */
static uint64_t *collect_sizes;

/* A set's sync has a segment at every member under one port, so two sets
 * that share a PE need two ports: the port is the whole triplet while it
 * fits (jobs of up to SET_PORT_PES PEs), else the set's shape alone, and
 * sets of one shape with different starts then cannot share a PE (the
 * second to be used ends the job, saying the key exists). Ports from
 * 0xa0000000 up are this front end's. */
#define SET_PORT_PES 2048
static uint32_t set_port(int start, int log, int size)
{
    if (shmem__st.npes <= SET_PORT_PES) /* log <= 10, size - 1 and start < 2^11 */
        return 0xa0000000u | (uint32_t)log << 22 | (uint32_t)(size - 1) << 11 | (uint32_t)start;
    return 0xa8000000u | (uint32_t)log << 21 | (uint32_t)size;
}

int shmem__active_sets_start(void)
{
    collect_sizes = aos_calloc((size_t)shmem__st.npes, sizeof *collect_sizes);
    return collect_sizes != NULL ? AOS_OK : AOS_ERR_NO_MEMORY;
}

void shmem__active_sets_stop(void)
{
    /* Nobody signals a set's sync after everybody has left its last use. */
    (void)aos_barrier_all();
    while (sets != NULL) {
        struct set *s = sets;
        sets = s->next;
        (void)aos_sync_destroy(s->sync);
        free(s->pes);
        free(s);
    }
    aos_free(collect_sizes);
    collect_sizes = NULL;
}

static int is_world(int start, int log, int size)
{
    return start == 0 && (log == 0 || size == 1) && size == shmem__st.npes;
}

/* The set described by the arguments, made on first use; reports and ends
 * the job on a set this PE is not in or that does not fit the job. */
static struct set *find_set(const char *fn, int start, int log, int size)
{
    if (start < 0 || log < 0 || log > 30 || size < 1 || size > (1 << 20) ||
        start + (int64_t)(size - 1) * ((int64_t)1 << log) >= shmem__st.npes)
        shmem__fail(fn, AOS_ERR_PE);
    if (size == 1)
        log = 0; /* one member: the stride means nothing, one set whatever it is */
    int64_t off = (int64_t)shmem__st.me - start;
    int stride = 1 << log;
    if (off < 0 || off % stride != 0 || off / stride >= size)
        shmem__fail(fn, AOS_ERR_INVALID); /* not a member of the active set */
    pthread_mutex_lock(&sets_lock);
    struct set *s = sets;
    while (s != NULL && !(s->start == start && s->log == log && s->size == size))
        s = s->next;
    if (s == NULL) {
        s = calloc(1, sizeof *s);
        int rc = AOS_ERR_NO_MEMORY;
        if (s != NULL && (s->pes = malloc((size_t)size * sizeof *s->pes)) != NULL) {
            for (int r = 0; r < size; r++)
                s->pes[r] = start + r * stride;
            rc = aos_sync_create(set_port(start, log, size), s->pes, size, start, &s->sync);
        }
        if (rc != AOS_OK) {
            pthread_mutex_unlock(&sets_lock);
            shmem__fail(fn, rc);
        }
        s->start = start;
        s->log = log;
        s->size = size;
        s->rank = (int)(off / stride);
        s->next = sets;
        sets = s;
    }
    pthread_mutex_unlock(&sets_lock);
    return s;
}

/* Nobody leaves before every member has arrived: members signal the root
 * and wait for its release, the root waits for all and releases. */
static void set_sync(const char *fn, struct set *s)
{
    if (s->rank == 0) {
        SHMEM__TRY(fn, aos_sync_wait(s->sync));
        SHMEM__TRY(fn, aos_sync_signal(s->sync));
    } else {
        SHMEM__TRY(fn, aos_sync_signal(s->sync));
        SHMEM__TRY(fn, aos_sync_wait(s->sync));
    }
}

void shmem_barrier(int PE_start, int logPE_stride, int PE_size, long *pSync)
{
    (void)pSync;
    if (is_world(PE_start, logPE_stride, PE_size)) {
        shmem_barrier_all();
        return;
    }
    struct set *s = find_set(__func__, PE_start, logPE_stride, PE_size);
    shmem__quiet(__func__);
    set_sync(__func__, s);
}

void shmem_sync(int PE_start, int logPE_stride, int PE_size, long *pSync)
{
    (void)pSync;
    if (is_world(PE_start, logPE_stride, PE_size)) {
        shmem_sync_all();
        return;
    }
    set_sync(__func__, find_set(__func__, PE_start, logPE_stride, PE_size));
}

/* ---- data movement ---------------------------------------------------------------- */

static void broadcast(const char *fn, void *dest, const void *source, size_t nbytes,
                      int root, int start, int log, int size)
{
    if (root < 0 || root >= size)
        shmem__fail(fn, AOS_ERR_PE);
    if (is_world(start, log, size)) {
        /* aos writes the root's dest too; the active-set form must not. */
        void *keep = NULL;
        if (shmem__st.me == root && nbytes != 0 && dest != source) {
            keep = malloc(nbytes);
            if (keep == NULL)
                shmem__fail(fn, AOS_ERR_NO_MEMORY);
            memcpy(keep, dest, nbytes);
        }
        SHMEM__TRY(fn, aos_broadcast(aos_team_world(), dest, source, nbytes, root));
        if (keep != NULL) {
            memcpy(dest, keep, nbytes);
            free(keep);
        }
        return;
    }
    struct set *s = find_set(fn, start, log, size);
    set_sync(fn, s);
    if (s->rank == root) {
        for (int r = 0; r < size; r++)
            if (r != root)
                SHMEM__TRY(fn, aos_putmem(s->pes[r], dest, source, nbytes, shmem__ev()));
        shmem__quiet(fn);
    }
    set_sync(fn, s);
}

static void fcollect(const char *fn, void *dest, const void *source, size_t nbytes,
                     int start, int log, int size)
{
    if (is_world(start, log, size)) {
        SHMEM__TRY(fn, aos_fcollect(aos_team_world(), dest, source, nbytes));
        return;
    }
    struct set *s = find_set(fn, start, log, size);
    set_sync(fn, s);
    char *at = (char *)dest + (size_t)s->rank * nbytes;
    for (int r = 0; r < size; r++)
        SHMEM__TRY(fn, aos_putmem(s->pes[r], at, source, nbytes, shmem__ev()));
    shmem__quiet(fn);
    set_sync(fn, s);
}

static void collect(const char *fn, void *dest, const void *source, size_t nbytes,
                    int start, int log, int size)
{
    if (is_world(start, log, size)) {
        SHMEM__TRY(fn, aos_collect(aos_team_world(), dest, source, nbytes));
        return;
    }
    struct set *s = find_set(fn, start, log, size);
    uint64_t mine = nbytes;
    for (int r = 0; r < size; r++)
        SHMEM__TRY(fn, aos_putmem(s->pes[r], &collect_sizes[shmem__st.me], &mine,
                                  sizeof mine, shmem__ev()));
    shmem__quiet(fn);
    set_sync(fn, s); /* every size is in */
    size_t offset = 0;
    for (int r = 0; r < s->rank; r++)
        offset += collect_sizes[s->pes[r]];
    for (int r = 0; r < size; r++)
        SHMEM__TRY(fn, aos_putmem(s->pes[r], (char *)dest + offset, source, nbytes,
                                  shmem__ev()));
    shmem__quiet(fn);
    set_sync(fn, s);
}

/* Element e of the block for rank j is source[(j*nelems + e)*sst] and lands
 * at dest[(i*nelems + e)*dst] of rank j (i: my rank); alltoall is dst = sst
 * = 1 with elements of the whole block. */
static void alltoalls(const char *fn, void *dest, const void *source, size_t dst, size_t sst,
                      size_t nelems, size_t esize, int start, int log, int size)
{
    if (is_world(start, log, size)) {
        if (dst == 1 && sst == 1 && nelems == 1) /* alltoall: one element of any size */
            SHMEM__TRY(fn, aos_alltoall(aos_team_world(), dest, source, esize));
        else
            SHMEM__TRY(fn, aos_alltoalls(aos_team_world(), dest, source, dst, sst, nelems,
                                         esize));
        return;
    }
    struct set *s = find_set(fn, start, log, size);
    set_sync(fn, s);
    if (nelems != 0) {
        aos_block_t b = {.run = esize,
                         .count = {nelems, 1},
                         .local_stride = {sst * esize, 0},
                         .remote_stride = {dst * esize, 0}};
        for (int r = 0; r < size; r++) {
            const char *from = (const char *)source + (size_t)r * nelems * sst * esize;
            char *to = (char *)dest + (size_t)s->rank * nelems * dst * esize;
            SHMEM__TRY(fn, aos_putmem_block(s->pes[r], to, from, &b, shmem__ev()));
        }
        shmem__quiet(fn);
    }
    set_sync(fn, s);
}

#define OLD_COLL(S)                                                                        \
    void shmem_broadcast##S(void *dest, const void *source, size_t nelems, int PE_root,    \
                            int PE_start, int logPE_stride, int PE_size, long *pSync)      \
    {                                                                                      \
        (void)pSync;                                                                       \
        broadcast(__func__, dest, source, shmem__bytes_or_fail(nelems, S / 8, __func__), PE_root,      \
                  PE_start, logPE_stride, PE_size);                                        \
    }                                                                                      \
    void shmem_fcollect##S(void *dest, const void *source, size_t nelems, int PE_start,    \
                           int logPE_stride, int PE_size, long *pSync)                     \
    {                                                                                      \
        (void)pSync;                                                                       \
        fcollect(__func__, dest, source, shmem__bytes_or_fail(nelems, S / 8, __func__), PE_start,      \
                 logPE_stride, PE_size);                                                   \
    }                                                                                      \
    void shmem_collect##S(void *dest, const void *source, size_t nelems, int PE_start,     \
                          int logPE_stride, int PE_size, long *pSync)                      \
    {                                                                                      \
        (void)pSync;                                                                       \
        collect(__func__, dest, source, shmem__bytes_or_fail(nelems, S / 8, __func__), PE_start,       \
                logPE_stride, PE_size);                                                    \
    }                                                                                      \
    void shmem_alltoall##S(void *dest, const void *source, size_t nelems, int PE_start,    \
                           int logPE_stride, int PE_size, long *pSync)                     \
    {                                                                                      \
        (void)pSync;                                                                       \
        alltoalls(__func__, dest, source, 1, 1, 1, shmem__bytes_or_fail(nelems, S / 8, __func__),      \
                  PE_start, logPE_stride, PE_size);                                        \
    }                                                                                      \
    void shmem_alltoalls##S(void *dest, const void *source, ptrdiff_t dst, ptrdiff_t sst,  \
                            size_t nelems, int PE_start, int logPE_stride, int PE_size,    \
                            long *pSync)                                                   \
    {                                                                                      \
        (void)pSync;                                                                       \
        if (dst < 1 || sst < 1)                                                            \
            shmem__fail(__func__, AOS_ERR_INVALID);                                        \
        alltoalls(__func__, dest, source, (size_t)dst, (size_t)sst, nelems, S / 8,         \
                  PE_start, logPE_stride, PE_size);                                        \
    }
OLD_COLL(32)
OLD_COLL(64)

/* ---- *_to_all reductions -------------------------------------------------------- */

/* Every member reads every member's source and folds them in rank order
 * (the same bits everywhere); the sync before lets sources be written up
 * to the call, the one after lets dest be a source. */
static void to_all(const char *fn, void *dest, const void *source, int nreduce, size_t esize,
                   aos_type_t type, aos_op_t op, int start, int log, int size)
{
    if (nreduce < 0)
        shmem__fail(fn, AOS_ERR_SIZE);
    size_t count = (size_t)nreduce;
    if (is_world(start, log, size)) {
        SHMEM__TRY(fn, aos_allreduce(aos_team_world(), dest, source, count, type, op));
        return;
    }
    struct set *s = find_set(fn, start, log, size);
    size_t n = shmem__bytes_or_fail(count, esize, fn);
    char *acc = malloc(n ? n : 1), *in = malloc(n ? n : 1);
    if (acc == NULL || in == NULL)
        shmem__fail(fn, AOS_ERR_NO_MEMORY);
    shmem__quiet(fn);
    set_sync(fn, s);
    SHMEM__TRY(fn, aos_getmem(s->pes[0], acc, source, n, NULL));
    for (int r = 1; r < size; r++) {
        SHMEM__TRY(fn, aos_getmem(s->pes[r], in, source, n, NULL));
        SHMEM__TRY(fn, aos_reduce_local(acc, in, count, type, op));
    }
    set_sync(fn, s);
    memcpy(dest, acc, n);
    free(in);
    free(acc);
}

#define TO_ALL(T, N, OP, AOP)                                                              \
    void shmem_##N##_##OP##_to_all(T *dest, const T *source, int nreduce, int PE_start,    \
                                   int logPE_stride, int PE_size, T *pWrk, long *pSync)    \
    {                                                                                      \
        (void)pWrk;                                                                        \
        (void)pSync;                                                                       \
        to_all(__func__, dest, source, nreduce, sizeof(T), SHMEM__AOS_TYPE(T), AOP,        \
               PE_start, logPE_stride, PE_size);                                           \
    }
#define BIT(T, N)                                                                          \
    TO_ALL(T, N, and, AOS_OP_AND) TO_ALL(T, N, or, AOS_OP_OR) TO_ALL(T, N, xor, AOS_OP_XOR)
#define MINMAX(T, N) TO_ALL(T, N, max, AOS_OP_MAX) TO_ALL(T, N, min, AOS_OP_MIN)
#define ARITH(T, N) TO_ALL(T, N, sum, AOS_OP_SUM) TO_ALL(T, N, prod, AOS_OP_PROD)
SHMEM__TOALL_BIT_TYPES(BIT)
SHMEM__TOALL_MINMAX_TYPES(MINMAX)
SHMEM__TOALL_ARITH_TYPES(ARITH)
