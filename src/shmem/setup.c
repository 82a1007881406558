/* Library setup, exit and query; the SHMEM_* environment variables; errors. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#include "shmem/active_set.h"
#include "shmem/shmem_internal.h"
#include "shmem/teams.h"

struct shmem__state shmem__st = {.me = -1, .npes = -1};
AOS__TLS aos_event_t *shmem__thread_ev;

static pthread_key_t event_key;
static pthread_once_t event_key_once = PTHREAD_ONCE_INIT;

/* ---- errors ---------------------------------------------------------------- */

static const char *advice(int rc)
{
    switch (rc) {
    case AOS_ERR_NOT_INITIALIZED:
        return "call shmem_init() first (and not after shmem_finalize())";
    case AOS_ERR_NOT_SYMMETRIC:
        return "remote addresses must be symmetric: a global or static variable, or "
               "memory from shmem_malloc/shmem_calloc/shmem_align (not the stack or malloc)";
    case AOS_ERR_PE:
        return "PE numbers (a collective's root too) run from 0 to shmem_n_pes()-1, or "
               "to the team's size - 1 where the routine takes a team or a team's context";
    case AOS_ERR_BOUNDS:
        return "the range runs past the symmetric memory in use (the end of the heap's "
               "highest block, or of the static data)";
    case AOS_ERR_ALIGN:
        return "atomics and signals need an address aligned to the size of their type";
    case AOS_ERR_OVERLAP:
        return "source and destination must not overlap";
    case AOS_ERR_NULL:
        return "a NULL buffer was given with a non-zero count";
    case AOS_ERR_NO_MEMORY:
        return "the symmetric heap is exhausted: set SHMEM_SYMMETRIC_SIZE larger "
               "(for example SHMEM_SYMMETRIC_SIZE=64G; only touched pages use memory)";
    case AOS_ERR_SIZE:
        return "the size is out of range";
    case AOS_ERR_INVALID:
        return "an argument is not valid for this routine (see its description in "
               "the OpenSHMEM 1.5 specification)";
    default:
        return "see the OpenSHMEM 1.5 specification for this routine";
    }
}

void shmem__report(const char *fn, int rc)
{
    fprintf(stderr, "shmem: PE %d: %s: %s; %s\n", shmem__st.me, fn, aos_strerror(rc),
            advice(rc));
}

void shmem__fail(const char *fn, int rc)
{
    shmem__report(fn, rc);
    aos_global_exit(1);
}

/* ---- per-thread events ------------------------------------------------------- */

static void drop_event(void *ev)
{
    if (ev != NULL && aos_initialized())
        (void)aos_event_destroy(ev);
}

static void make_event_key(void)
{
    (void)pthread_key_create(&event_key, drop_event);
}

aos_event_t *shmem__thread_event_slow(void)
{
    aos_event_t *ev = NULL;
    int rc = aos_event_create(&ev);
    if (rc != AOS_OK)
        shmem__fail("shmem (first operation of this thread)", rc);
    pthread_once(&event_key_once, make_event_key);
    (void)pthread_setspecific(event_key, ev); /* destroyed when the thread ends */
    shmem__thread_ev = ev;
    return ev;
}

/* aos_quiet completes every operation this PE issued, whatever event each
 * carries, so the threads' events need no wait of their own. */
void shmem__quiet(const char *fn)
{
    SHMEM__TRY(fn, aos_quiet());
}

/* ---- environment -------------------------------------------------------------- */

static int env_set(const char *name)
{
    const char *v = getenv(name);
    return v != NULL && *v != '\0' && strcmp(v, "0") != 0;
}

static void print_info(void)
{
    printf("aos OpenSHMEM %d.%d (%s)\n"
           "  SHMEM_SYMMETRIC_SIZE  size of each PE's symmetric heap (K/M/G/T suffixes); "
           "sets AOS_HEAP_SIZE (default 32G, sparse)\n"
           "  SHMEM_VERSION         print the library version at start-up\n"
           "  SHMEM_INFO            print this text at start-up\n"
           "  SHMEM_DEBUG           print start-up diagnostics and aos's (AOS_DEBUG)\n"
           "  the AOS_* variables (aos-info lists them) apply as well\n",
           SHMEM_MAJOR_VERSION, SHMEM_MINOR_VERSION, aos_version_string());
}

/* SHMEM_* variables that map onto aos's: set before aos_init reads them. */
static void apply_environment(void)
{
    const char *size = getenv("SHMEM_SYMMETRIC_SIZE");
    if (size != NULL && getenv("AOS_HEAP_SIZE") == NULL)
        setenv("AOS_HEAP_SIZE", size, 1);
    shmem__st.debug = env_set("SHMEM_DEBUG");
    if (shmem__st.debug && getenv("AOS_DEBUG") == NULL)
        setenv("AOS_DEBUG", "1", 1);
}

/* ---- setup ------------------------------------------------------------------- */

static void finalize_at_exit(int status, void *arg)
{
    (void)arg;
    if (status == 0)
        shmem_finalize();
}

static int start(int requested)
{
    if (shmem__st.initialized)
        return 0; /* shmem_init may be called more than once */
    if (requested < SHMEM_THREAD_SINGLE || requested > SHMEM_THREAD_MULTIPLE) {
        fprintf(stderr, "shmem: shmem_init_thread: unknown thread level %d; use "
                        "SHMEM_THREAD_SINGLE, _FUNNELED, _SERIALIZED or _MULTIPLE\n",
                requested);
        return -1;
    }
    apply_environment();
    int rc = aos_init();
    if (rc != AOS_OK) {
        const char *size = getenv("SHMEM_SYMMETRIC_SIZE");
        fprintf(stderr, "shmem: shmem_init: %s%s%s\n", aos_strerror(rc),
                rc == AOS_ERR_CONFIG && size != NULL ? "; SHMEM_SYMMETRIC_SIZE=" : "",
                rc == AOS_ERR_CONFIG && size != NULL ? size : "");
        if (rc == AOS_ERR_CONFIG && size != NULL)
            fprintf(stderr, "shmem: SHMEM_SYMMETRIC_SIZE takes a size such as 512M or "
                            "4G (at least 1M)\n");
        return -1;
    }
    shmem__st.me = aos_my_pe();
    shmem__st.npes = aos_n_pes();
    shmem__st.thread_level = requested;
    rc = shmem__teams_start();
    if (rc == AOS_OK)
        rc = shmem__active_sets_start();
    if (rc != AOS_OK) {
        shmem__report("shmem_init", rc);
        (void)aos_finalize();
        return -1;
    }
    shmem__st.initialized = 1;
    shmem__st.finalized = 0;
    static int exit_hook;
    if (!exit_hook) {
        /* Programs written for start_pes never finalize: a successful exit
         * does it. A failing one must not (finalize waits for every PE):
         * aosrun stops the others when it sees the failure. */
        exit_hook = 1;
        on_exit(finalize_at_exit, NULL);
    }
    if (shmem__st.me == 0 && env_set("SHMEM_VERSION"))
        printf("aos OpenSHMEM %d.%d (%s)\n", SHMEM_MAJOR_VERSION, SHMEM_MINOR_VERSION,
               aos_version_string());
    if (shmem__st.me == 0 && env_set("SHMEM_INFO"))
        print_info();
    if (shmem__st.debug)
        fprintf(stderr, "shmem: PE %d of %d started, thread level %d\n", shmem__st.me,
                shmem__st.npes, requested);
    return 0;
}

void shmem_init(void)
{
    if (start(SHMEM_THREAD_SINGLE) != 0)
        aos_global_exit(1);
}

int shmem_init_thread(int requested, int *provided)
{
    int rc = start(requested);
    if (rc == 0 && provided != NULL)
        *provided = shmem__st.thread_level; /* every level is provided as asked */
    return rc;
}

void shmem_query_thread(int *provided)
{
    if (provided != NULL)
        *provided = shmem__st.thread_level;
}

int shmem_query_initialized(int *initialized)
{
    if (initialized != NULL)
        *initialized = shmem__st.initialized;
    return 0;
}

int shmem_query_finalized(int *finalized)
{
    if (finalized != NULL)
        *finalized = shmem__st.finalized;
    return 0;
}

void shmem_finalize(void)
{
    if (!shmem__st.initialized)
        return;
    shmem__quiet("shmem_finalize");
    shmem__active_sets_stop();
    shmem__teams_stop();
    if (shmem__thread_ev != NULL) {
        (void)pthread_setspecific(event_key, NULL);
        (void)aos_event_destroy(shmem__thread_ev);
        shmem__thread_ev = NULL;
    }
    int rc = aos_finalize();
    if (rc != AOS_OK)
        shmem__report("shmem_finalize", rc);
    shmem__st.initialized = 0;
    shmem__st.finalized = 1;
}

void shmem_global_exit(int status)
{
    aos_global_exit(status);
}

int shmem_my_pe(void)
{
    return shmem__st.initialized ? shmem__st.me : -1;
}

int shmem_n_pes(void)
{
    return shmem__st.initialized ? shmem__st.npes : -1;
}

int shmem_pe_accessible(int pe)
{
    return shmem__st.initialized && pe >= 0 && pe < shmem__st.npes;
}

int shmem_addr_accessible(const void *addr, int pe)
{
    return shmem_pe_accessible(pe) && aos_sym_accessible(addr);
}

void *shmem_ptr(const void *dest, int pe)
{
    void *p = NULL;
    if (!shmem_pe_accessible(pe) || aos_sym_ptr(dest, pe, &p) != AOS_OK)
        return NULL; /* not symmetric, or a PE off this node */
    return p;
}

void shmem_info_get_version(int *major, int *minor)
{
    if (major != NULL)
        *major = SHMEM_MAJOR_VERSION;
    if (minor != NULL)
        *minor = SHMEM_MINOR_VERSION;
}

void shmem_info_get_name(char *name)
{
    if (name != NULL)
        snprintf(name, SHMEM_MAX_NAME_LEN, "%s", SHMEM_VENDOR_STRING);
}

/* Profiling control: no profiling layer here, so every level is accepted
 * and changes nothing. */
void shmem_pcontrol(const int level, ...)
{
    (void)level;
}

/* ---- deprecated ------------------------------------------------------------------ */

void start_pes(int npes)
{
    (void)npes; /* the launcher fixes the number of PEs */
    shmem_init();
}

int _my_pe(void)
{
    return shmem_my_pe();
}

int _num_pes(void)
{
    return shmem_n_pes();
}
