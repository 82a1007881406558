/* Bad input on every public call gets a clear error and changes nothing:
 * wrong PE, NULL buffers, out-of-bounds ranges, overlapping self transfers,
 * bad events, and every call before aos_init and after aos_finalize. */
#include <string.h>

#include "../common/check.h"

static uint64_t guard_before[8];
static uint64_t target[8];
static uint64_t guard_after[8];

static void check_uninitialized(void)
{
    uint64_t w = 0;
    int c = 0;
    aos_seg_t *s = NULL;
    CHECK(aos_my_pe() == -1 && aos_n_pes() == -1 && aos_initialized() == 0);
    CHECK_RC(aos_putmem(0, target, &w, 8, NULL), AOS_ERR_NOT_INITIALIZED);
    CHECK_RC(aos_putmem_nbi(0, target, &w, 8, NULL), AOS_ERR_NOT_INITIALIZED);
    CHECK_RC(aos_getmem(0, &w, target, 8, NULL), AOS_ERR_NOT_INITIALIZED);
    CHECK_RC(aos_seg_create(1, 8, AOS_PROTO_RMA, &s), AOS_ERR_NOT_INITIALIZED);
    CHECK_RC(aos_seg_attach(0, 1, &s), AOS_ERR_NOT_INITIALIZED);
    CHECK_RC(aos_barrier_all(), AOS_ERR_NOT_INITIALIZED);
    CHECK_RC(aos_quiet(), AOS_ERR_NOT_INITIALIZED);
    CHECK_RC(aos_fence(0), AOS_ERR_NOT_INITIALIZED);
    CHECK_RC(aos_fence_all(), AOS_ERR_NOT_INITIALIZED);
    CHECK_RC(aos_wait_until_u64(&w, AOS_CMP_EQ, 0), AOS_ERR_NOT_INITIALIZED);
    CHECK_RC(aos_node_pes(NULL, 0, &c), AOS_ERR_NOT_INITIALIZED);
    CHECK_RC(aos_finalize(), AOS_ERR_NOT_INITIALIZED);
    CHECK(aos_malloc(8) == NULL);
    void *p;
    CHECK_RC(aos_sym_ptr(target, 0, &p), AOS_ERR_NOT_INITIALIZED);
    CHECK(s == NULL);
}

int main(void)
{
    check_uninitialized();
    /* (aos_init removes the launcher's variables: ask before) */
    int launched = getenv("AOS_BOOT_FD") != NULL;
    CHECK_OK(aos_init());
    CHECK_RC(aos_init(), AOS_ERR_ALREADY_INITIALIZED);
    int me = aos_my_pe(), n = aos_n_pes();
    int right = (me + 1) % n;
    uint64_t src[16], dst[16];
    for (int i = 0; i < 16; i++)
        src[i] = (uint64_t)i + 1;
    memset(guard_before, 0x5a, sizeof guard_before);
    memset(guard_after, 0x5a, sizeof guard_after);
    CHECK_OK(aos_barrier_all());

    /* wrong PE */
    CHECK_RC(aos_putmem(n, target, src, 8, NULL), AOS_ERR_PE);
    CHECK_RC(aos_putmem(-1, target, src, 8, NULL), AOS_ERR_PE);
    CHECK_RC(aos_getmem(n + 100, dst, target, 8, NULL), AOS_ERR_PE);
    CHECK_RC(aos_fence(n), AOS_ERR_PE);
    void *p;
    CHECK_RC(aos_sym_ptr(target, n, &p), AOS_ERR_PE);
    aos_block_t b = {.run = 8, .count = {2, 1}, .local_stride = {8, 0}, .remote_stride = {8, 0}};
    CHECK_RC(aos_putmem_block(n, target, src, &b, NULL), AOS_ERR_PE);
    /* NULL buffers with a length; zero length is a no-op with NULLs */
    CHECK_RC(aos_putmem(right, target, NULL, 8, NULL), AOS_ERR_NULL);
    CHECK_RC(aos_putmem(right, NULL, src, 8, NULL), AOS_ERR_NULL);
    CHECK_RC(aos_getmem(right, NULL, target, 8, NULL), AOS_ERR_NULL);
    CHECK_RC(aos_putmem_block(right, target, NULL, &b, NULL), AOS_ERR_NULL);
    CHECK_OK(aos_putmem(right, NULL, NULL, 0, NULL));
    CHECK_OK(aos_getmem(right, NULL, NULL, 0, NULL));
    /* running off the end of the static region or heap */
    uint8_t *heap = aos_malloc(64);
    CHECK(heap != NULL);
    CHECK_RC(aos_putmem(right, heap + 10, src, (size_t)64 << 40, NULL), AOS_ERR_BOUNDS);
    CHECK_RC(aos_getmem(right, dst, heap, SIZE_MAX, NULL), AOS_ERR_BOUNDS);
    /* overlapping source and destination when the target is me */
    CHECK_RC(aos_putmem(me, &target[1], &target[0], 16, NULL), AOS_ERR_OVERLAP);
    CHECK_RC(aos_getmem(me, &target[0], &target[1], 16, NULL), AOS_ERR_OVERLAP);
    CHECK_OK(aos_putmem(me, &target[2], &target[0], 16, NULL)); /* adjacent is fine */
    aos_block_t self = {.run = 16, .count = {2, 1}, .local_stride = {32, 0},
                        .remote_stride = {32, 0}};
    CHECK_RC(aos_putmem_block(me, &target[1], &target[0], &self, NULL), AOS_ERR_OVERLAP);
    CHECK_OK(aos_putmem_block(me, &target[2], &target[0],
                              &(aos_block_t){.run = 8, .count = {2, 1},
                                             .local_stride = {32, 0},
                                             .remote_stride = {32, 0}},
                              NULL)); /* interleaved rows do not touch */
    /* bad events */
    aos_event_t *bogus = (aos_event_t *)(void *)src;
    CHECK_RC(aos_event_wait(bogus), AOS_ERR_INVALID);
    CHECK_RC(aos_event_destroy(bogus), AOS_ERR_INVALID);
    /* nbi puts: the checks of aos_putmem, and nothing posted on a refusal */
    aos_event_t *nbi;
    CHECK_OK(aos_event_create(&nbi));
    CHECK_RC(aos_putmem_nbi(n, target, src, 8, nbi), AOS_ERR_PE);
    CHECK_RC(aos_putmem_nbi(-1, target, src, 8, nbi), AOS_ERR_PE);
    CHECK_RC(aos_putmem_nbi(right, target, NULL, 8, nbi), AOS_ERR_NULL);
    CHECK_RC(aos_putmem_nbi(right, NULL, src, 8, nbi), AOS_ERR_NULL);
    CHECK_RC(aos_putmem_nbi(right, heap + 10, src, (size_t)64 << 40, nbi), AOS_ERR_BOUNDS);
    CHECK_RC(aos_putmem_nbi(right, heap, src, SIZE_MAX, nbi), AOS_ERR_BOUNDS);
    CHECK_RC(aos_putmem_nbi(me, &target[1], &target[0], 16, nbi), AOS_ERR_OVERLAP);
    CHECK_RC(aos_putmem_nbi(right, target, src, 8, bogus), AOS_ERR_INVALID);
    CHECK_RC(aos_put_nbi(NULL, 0, src, 8, nbi), AOS_ERR_NULL);
    uint64_t nbi_done = 1;
    CHECK_OK(aos_event_count(nbi, &nbi_done));
    CHECK(nbi_done == 0);
    CHECK_OK(aos_putmem_nbi(right, NULL, NULL, 0, nbi)); /* counts, as a put's would */
    CHECK_OK(aos_event_wait(nbi));
    CHECK_OK(aos_event_count(nbi, &nbi_done));
    CHECK(nbi_done == 1);
    CHECK_OK(aos_event_destroy(nbi));
    /* queries */
    int pes[64], count = -1;
    CHECK_OK(aos_node_pes(pes, 64, &count));
    int k = test_node_size(n), first = me / k * k;
    CHECK(count == (first + k <= n ? k : n - first));
    for (int i = 0; i < count && i < 64; i++)
        CHECK(pes[i] == first + i);
    CHECK_OK(aos_cluster_pes(pes, 64, &count));
    CHECK(count >= 1 && count <= n);
    int seen_me = 0;
    for (int i = 0; i < count && i < 64; i++)
        seen_me |= pes[i] == me;
    CHECK(seen_me);
    CHECK_RC(aos_node_pes(pes, 64, NULL), AOS_ERR_NULL);
    CHECK_RC(aos_node_pes(NULL, 5, &count), AOS_ERR_NULL);
    CHECK_OK(aos_node_pes(NULL, 0, &count)); /* count only */
    CHECK(count == (first + k <= n ? k : n - first));
    /* status texts: every code has its own, unknown codes say so */
    CHECK(strcmp(aos_strerror(AOS_OK), "success") == 0);
    CHECK(strcmp(aos_strerror(AOS_ERR_BOUNDS), aos_strerror(AOS_ERR_PE)) != 0);
    CHECK(strstr(aos_strerror(-12345), "unknown") != NULL);

    /* None of the refused calls touched the memory around the target. */
    CHECK_OK(aos_barrier_all());
    for (int i = 0; i < 8; i++) {
        uint64_t g;
        memset(&g, 0x5a, sizeof g);
        CHECK(guard_before[i] == g && guard_after[i] == g);
    }
    aos_free(heap);
    CHECK_OK(aos_finalize());
    check_uninitialized();
    if (launched) { /* no second start */
        CHECK_RC(aos_init(), AOS_ERR_FINALIZED);
        return 0;
    }
    /* a lone PE may start again */
    CHECK_OK(aos_init());
    CHECK(aos_n_pes() == n && aos_my_pe() == me);
    uint64_t *again = aos_calloc(1, 8);
    uint64_t v = 99;
    CHECK_OK(aos_putmem(right, again, &v, 8, NULL));
    CHECK_OK(aos_barrier_all());
    CHECK(*again == 99);
    aos_free(again);
    CHECK_OK(aos_finalize());
    return 0;
}
