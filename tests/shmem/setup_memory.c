/* OpenSHMEM setup, query and memory: thread levels, version and name,
 * accessibility, shmem_ptr, the symmetric heap (malloc, calloc, align,
 * realloc keeping data, hints, free and reuse) and symmetric globals. */
#include <stdint.h>
#include <string.h>

#include "check_shmem.h"

static long global_counter = 7;
static int global_array[100];

int main(void)
{
    int initialized = 1, provided = -1;
    CHECK(shmem_query_initialized(&initialized) == 0 && initialized == 0);
    CHECK(shmem_my_pe() == -1 && shmem_n_pes() == -1);
    CHECK(shmem_init_thread(SHMEM_THREAD_MULTIPLE, &provided) == 0);
    CHECK(provided == SHMEM_THREAD_MULTIPLE);
    shmem_query_thread(&provided);
    CHECK(provided == SHMEM_THREAD_MULTIPLE);
    shmem_init(); /* a second initialisation is harmless */
    CHECK(shmem_query_initialized(&initialized) == 0 && initialized == 1);

    int me = shmem_my_pe(), n = shmem_n_pes(), right = (me + 1) % n;
    CHECK(n >= 1 && me >= 0 && me < n);
    int major = 0, minor = 0;
    shmem_info_get_version(&major, &minor);
    CHECK(major == SHMEM_MAJOR_VERSION && minor == SHMEM_MINOR_VERSION && major == 1 &&
          minor == 5);
    char name[SHMEM_MAX_NAME_LEN];
    shmem_info_get_name(name);
    CHECK(strcmp(name, SHMEM_VENDOR_STRING) == 0);

    /* Accessibility and direct pointers. */
    int local_var = 0;
    CHECK(shmem_pe_accessible(right) && !shmem_pe_accessible(n) && !shmem_pe_accessible(-1));
    CHECK(shmem_addr_accessible(&global_counter, right));
    CHECK(!shmem_addr_accessible(&local_var, right));
    CHECK(shmem_ptr(&local_var, right) == NULL);
    CHECK(shmem_ptr(&global_counter, me) == (void *)&global_counter);
    long *peer_counter = shmem_ptr(&global_counter, right);
    if (test_same_node(me, right, n)) /* load/store only on my node */
        CHECK(peer_counter != NULL && *peer_counter == 7);
    else
        CHECK(peer_counter == NULL);

    /* Heap: calloc is zero, data survives realloc, alignment holds. */
    size_t count = 1000 + (size_t)n;
    long *a = shmem_calloc(count, sizeof(long));
    CHECK(a != NULL && shmem_addr_accessible(a, right));
    for (size_t i = 0; i < count; i++)
        CHECK(a[i] == 0);
    for (size_t i = 0; i < count; i++)
        a[i] = (long)(i * 3 + (size_t)me);
    long *b = shmem_realloc(a, 4 * count * sizeof(long));
    CHECK(b != NULL);
    for (size_t i = 0; i < count; i++)
        CHECK(b[i] == (long)(i * 3 + (size_t)me));
    void *al = shmem_align(4096, 100);
    CHECK(al != NULL && ((uintptr_t)al & 4095) == 0);
    CHECK(shmem_align(3, 100) == NULL); /* not a power of two: NULL on every PE */
    CHECK(shmem_align(0, 100) == NULL);
    int *h = shmem_malloc_with_hints(64 * sizeof(int), SHMEM_MALLOC_ATOMICS_REMOTE);
    CHECK(h != NULL);

    /* A remote write into each kind of symmetric object lands. */
    shmem_long_p(&b[count - 1], 1000 + me, right);
    shmem_int_p(&global_array[99], 2000 + me, right);
    shmem_int_p(&h[63], 3000 + me, right);
    shmem_barrier_all();
    int left = (me + n - 1) % n;
    CHECK(b[count - 1] == 1000 + left);
    CHECK(global_array[99] == 2000 + left);
    CHECK(h[63] == 3000 + left);

    /* Blocks are reused after free: the heap does not leak across cycles. */
    shmem_free(al);
    shmem_free(h);
    shmem_free(b);
    for (int i = 0; i < 200; i++) {
        char *p = shmem_malloc(1 << 20);
        CHECK(p != NULL);
        p[0] = (char)i;
        shmem_free(p);
    }
    void *old = shmalloc(128);
    CHECK(old != NULL);
    shfree(old);
    CHECK(_my_pe() == me && _num_pes() == n);

    shmem_finalize();
    int finalized = 0;
    CHECK(shmem_query_finalized(&finalized) == 0 && finalized == 1);
    return 0;
}
