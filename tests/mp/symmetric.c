/* The symmetric heap (same offsets everywhere, calloc zeroes, realloc keeps
 * contents, align, free and reuse, a sparse 4 GiB block) and symmetric static
 * data (globals and statics written and read by address from other PEs). */
#include <string.h>

#include "../common/check.h"

long global_counter = 11;      /* .data */
static double static_zero[64]; /* .bss */
int global_array[1000] = {1};

/* PE 0 collects every PE's offset of p from ref (both symmetric) and checks
 * they are all equal. */
static void check_same_offset(const void *p, const void *ref)
{
    static intptr_t seen[64];
    intptr_t mine = (const char *)p - (const char *)ref;
    int n = aos_n_pes(), me = aos_my_pe();
    CHECK_OK(aos_putmem(0, &seen[me], &mine, sizeof mine, NULL));
    CHECK_OK(aos_barrier_all());
    if (me == 0)
        for (int i = 0; i < n && i < 64; i++)
            CHECK(seen[i] == seen[0]);
    CHECK_OK(aos_barrier_all());
}

int main(void)
{
    CHECK_OK(aos_init());
    int me = aos_my_pe(), n = aos_n_pes();
    int right = (me + 1) % n, left = (me + n - 1) % n;

    /* --- heap ------------------------------------------------------------ */
    uint64_t *a = aos_malloc(100 * sizeof(uint64_t));
    uint64_t *b = aos_calloc(1000, sizeof(uint64_t));
    void *c = aos_align(4096, 10);
    CHECK(a && b && c);
    CHECK(((uintptr_t)c & 4095) == 0);
    for (int i = 0; i < 1000; i++)
        CHECK(b[i] == 0);
    check_same_offset(b, a);
    check_same_offset(c, a);
    /* Write a into the right neighbour by address: it lands in its a. */
    uint64_t v[100];
    for (int i = 0; i < 100; i++)
        v[i] = (uint64_t)me * 1000 + (uint64_t)i;
    CHECK_OK(aos_putmem(right, a, v, sizeof v, NULL));
    CHECK_OK(aos_barrier_all());
    for (int i = 0; i < 100; i++)
        CHECK(a[i] == (uint64_t)left * 1000 + (uint64_t)i);
    /* realloc keeps the contents, on every PE */
    a = aos_realloc(a, 100000 * sizeof(uint64_t));
    CHECK(a != NULL);
    for (int i = 0; i < 100; i++)
        CHECK(a[i] == (uint64_t)left * 1000 + (uint64_t)i);
    a[99999] = 5;
    CHECK_OK(aos_putmem(right, &a[99998], &v[1], sizeof v[1], NULL));
    CHECK_OK(aos_barrier_all());
    CHECK(a[99998] == (uint64_t)left * 1000 + 1);
    /* free and reuse: a freed block's space is handed out again */
    aos_free(b);
    uint64_t *b2 = aos_malloc(1000 * sizeof(uint64_t));
    CHECK(b2 != NULL && (char *)b2 < (char *)c); /* first fit reuses the freed space */
    check_same_offset(b2, c);
    aos_free(b2);
    /* A 4 GiB block: the heap is sparse, only touched pages cost memory. */
    char *big = aos_malloc((size_t)4 << 30);
    CHECK(big != NULL);
    char x = (char)me;
    CHECK_OK(aos_putmem(right, big + ((size_t)4 << 30) - 1, &x, 1, NULL));
    CHECK_OK(aos_barrier_all());
    CHECK(big[((size_t)4 << 30) - 1] == (char)left);
    aos_free(big);
    /* Too large: NULL on every PE, and the heap still works afterwards. */
    CHECK(aos_malloc((size_t)1 << 50) == NULL);
    CHECK(aos_calloc(SIZE_MAX / 2, 4) == NULL);
    CHECK(aos_align(3, 64) == NULL);
    CHECK(aos_malloc(0) == NULL);
    /* Not symmetric: stack and malloc memory. */
    int on_stack = 0;
    char *heap = malloc(16);
    CHECK(aos_sym_accessible(a) == 1);
    CHECK(aos_sym_accessible(&global_counter) == 1);
    CHECK(aos_sym_accessible(&on_stack) == 0);
    CHECK(aos_sym_accessible(heap) == 0);
    CHECK_RC(aos_putmem(right, &on_stack, &x, 1, NULL), AOS_ERR_NOT_SYMMETRIC);
    CHECK_RC(aos_putmem(right, heap, &x, 1, NULL), AOS_ERR_NOT_SYMMETRIC);
    CHECK_RC(aos_getmem(right, &x, heap, 1, NULL), AOS_ERR_NOT_SYMMETRIC);
    free(heap);
    void *p;
    CHECK_RC(aos_sym_ptr(&on_stack, right, &p), AOS_ERR_NOT_SYMMETRIC);

    /* --- static data -------------------------------------------------------- */
    CHECK_OK(aos_barrier_all());
    long val = 1000 + me;
    CHECK_OK(aos_putmem(right, &global_counter, &val, sizeof val, NULL));
    double dv[64];
    for (int i = 0; i < 64; i++)
        dv[i] = me + i * 0.5;
    CHECK_OK(aos_putmem(right, static_zero, dv, sizeof dv, NULL));
    int iv[1000];
    for (int i = 0; i < 1000; i++)
        iv[i] = me * 7 + i;
    CHECK_OK(aos_putmem(right, global_array, iv, sizeof iv, NULL));
    CHECK_OK(aos_barrier_all());
    CHECK(global_counter == 1000 + left);
    for (int i = 0; i < 64; i++)
        CHECK(static_zero[i] == left + i * 0.5);
    for (int i = 0; i < 1000; i++)
        CHECK(global_array[i] == left * 7 + i);
    long got = 0;
    CHECK_OK(aos_getmem(left, &got, &global_counter, sizeof got, NULL));
    CHECK(got == 1000 + (left + n - 1) % n);
    /* load/store through aos_sym_ptr into the right neighbour's global */
    CHECK_OK(aos_barrier_all());
    long *rp;
    if (test_same_node(me, right, n)) {
        CHECK_OK(aos_sym_ptr(&global_counter, right, (void **)&rp));
        *rp = 77 + me;
    } else { /* no load/store across nodes: a put does it */
        CHECK_RC(aos_sym_ptr(&global_counter, right, (void **)&rp), AOS_ERR_NOT_LOCAL);
        long mark = 77 + me;
        CHECK_OK(aos_putmem(right, &global_counter, &mark, sizeof mark, NULL));
    }
    CHECK_OK(aos_barrier_all());
    CHECK(global_counter == 77 + left);
    /* bounds of the static region: past its end is not symmetric or out of bounds */
    CHECK_RC(aos_putmem(right, &global_array[999], iv, 1u << 30, NULL), AOS_ERR_BOUNDS);

    CHECK_OK(aos_barrier_all());
    aos_free(c);
    aos_free(a);
    CHECK_OK(aos_finalize());
    /* globals stay usable after finalize */
    global_counter = 3;
    CHECK(global_counter == 3);
    return 0;
}
