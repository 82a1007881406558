/* Segments: create, attach by (owner, key) with no help from the owner,
 * load/store pointers, protocols, detach, destroy seen by attached handles,
 * buffers published in place (heap, stack-like and symmetric), key reuse. */
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "../common/check.h"

static const char literal[] = "a string literal lives in read-only data";

/* A transfer between me and a buffer I published in place, through a local
 * buffer that begins in private memory and runs into the published pages:
 * the overlap is found wherever the local buffer begins, and a local buffer
 * beside the published range (same page or not) is no overlap. */
static void self_overlap_at_edges(int me)
{
    size_t page = (size_t)sysconf(_SC_PAGESIZE);
    uint8_t *map = mmap(NULL, 3 * page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    CHECK(map != MAP_FAILED);
    aos_seg_t *pub;
    CHECK_OK(aos_seg_create_from(30, map + page, page, AOS_PROTO_RMA, &pub));
    uint8_t *before = map + page - 16; /* 16 private bytes, then the segment's first 48 */
    pattern_fill(before, 16, 90u + (unsigned)me);
    CHECK_RC(aos_put(pub, 0, before, 64, NULL), AOS_ERR_OVERLAP);
    CHECK_RC(aos_get(before, pub, 0, 64, NULL), AOS_ERR_OVERLAP);
    CHECK_RC(aos_put(pub, 40, before, 64, NULL), AOS_ERR_OVERLAP);
    CHECK_OK(aos_put(pub, 48, before, 16, NULL)); /* the private part only */
    CHECK(pattern_check(map + page + 48, 16, 90u + (unsigned)me) == 16);
    /* The segment's last bytes into the private page after it, and back:
     * no overlap though the local buffer starts inside published memory. */
    uint8_t *tail = map + 2 * page - 32;
    CHECK_OK(aos_get(map + 2 * page, pub, 0, 64, NULL));
    CHECK(pattern_check(map + 2 * page + 48, 16, 90u + (unsigned)me) == 16);
    CHECK_RC(aos_get(tail, pub, page - 64, 64, NULL), AOS_ERR_OVERLAP);
    CHECK_OK(aos_get(tail, pub, 0, 32, NULL));
    CHECK_OK(aos_seg_destroy(pub));
    CHECK(munmap(map, 3 * page) == 0);
}

/* Memory that is not ordinary writable private memory of this process is
 * refused and left alone; a valid buffer published afterwards works. */
static void refused_ranges(int me, int right, int left, int n)
{
    size_t page = (size_t)sysconf(_SC_PAGESIZE);
    aos_seg_t *dup = NULL;
    /* code */
    CHECK_RC(aos_seg_create_from(20, (void *)(uintptr_t)&refused_ranges, 64, AOS_PROTO_RMA, &dup),
             AOS_ERR_INVALID);
    /* .rodata: refused, and still the same text */
    CHECK_RC(aos_seg_create_from(20, (void *)(uintptr_t)literal, sizeof literal, AOS_PROTO_RMA,
                                 &dup),
             AOS_ERR_INVALID);
    CHECK(strcmp(literal, "a string literal lives in read-only data") == 0);
    /* an unmapped page */
    uint8_t *gone = mmap(NULL, 2 * page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    CHECK(gone != MAP_FAILED);
    CHECK(munmap(gone, 2 * page) == 0);
    CHECK_RC(aos_seg_create_from(20, gone + 8, 100, AOS_PROTO_RMA, &dup), AOS_ERR_INVALID);
    /* a range running off the end of its mapping, into a hole or into a
     * PROT_NONE page, and a read-only mapping */
    uint8_t *map = mmap(NULL, 4 * page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    CHECK(map != MAP_FAILED);
    CHECK(munmap(map + 2 * page, page) == 0);
    CHECK(mprotect(map + 3 * page, page, PROT_NONE) == 0);
    pattern_fill(map, 2 * page, 70u + (unsigned)me);
    CHECK_RC(aos_seg_create_from(20, map + page, page + 1, AOS_PROTO_RMA, &dup), AOS_ERR_INVALID);
    CHECK_RC(aos_seg_create_from(20, map + 100, 3 * page, AOS_PROTO_RMA, &dup), AOS_ERR_INVALID);
    uint8_t *guarded = mmap(NULL, 2 * page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    CHECK(guarded != MAP_FAILED);
    CHECK(mprotect(guarded + page, page, PROT_NONE) == 0);
    CHECK_RC(aos_seg_create_from(20, guarded + 8, page, AOS_PROTO_RMA, &dup), AOS_ERR_INVALID);
    CHECK(munmap(guarded, 2 * page) == 0);
    CHECK(pattern_check(map, 2 * page, 70u + (unsigned)me) == 2 * page); /* untouched */
    CHECK(mprotect(map, page, PROT_READ) == 0);
    CHECK_RC(aos_seg_create_from(20, map + 16, 32, AOS_PROTO_RMA, &dup), AOS_ERR_INVALID);
    CHECK_RC(aos_seg_create_from(20, map + page - 16, 32, AOS_PROTO_RMA, &dup), AOS_ERR_INVALID);
    CHECK(mprotect(map, page, PROT_READ | PROT_WRITE) == 0);
    /* a shared mapping */
    uint8_t *shared = mmap(NULL, page, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    CHECK(shared != MAP_FAILED);
    CHECK_RC(aos_seg_create_from(20, shared, 64, AOS_PROTO_RMA, &dup), AOS_ERR_INVALID);
    CHECK(munmap(shared, page) == 0);
    /* my own arena outside the heap: a segment's load/store pointer */
    aos_seg_t *own;
    void *mine;
    CHECK_OK(aos_seg_create(21, 4096, AOS_PROTO_RMA | AOS_PROTO_LOADSTORE, &own));
    CHECK_OK(aos_seg_ptr(own, 0, &mine));
    CHECK_RC(aos_seg_create_from(20, mine, 64, AOS_PROTO_RMA, &dup), AOS_ERR_INVALID);
    CHECK_OK(aos_seg_destroy(own));
    /* an on-node peer's memory, mapped in this process: its globals and heap */
    static uint64_t sym_word;
    uint8_t *heap_block = aos_malloc(64);
    CHECK(heap_block != NULL);
    void *peer;
    if (right != me && test_same_node(me, right, n)) {
        CHECK_OK(aos_sym_ptr(&sym_word, right, &peer));
        CHECK_RC(aos_seg_create_from(20, peer, sizeof sym_word, AOS_PROTO_RMA, &dup),
                 AOS_ERR_INVALID);
        CHECK_OK(aos_sym_ptr(heap_block, right, &peer));
        CHECK_RC(aos_seg_create_from(20, peer, 64, AOS_PROTO_RMA, &dup), AOS_ERR_INVALID);
    }
    aos_free(heap_block);
    /* zero size, and a range that wraps the address space */
    CHECK_RC(aos_seg_create_from(20, map, 0, AOS_PROTO_RMA, &dup), AOS_ERR_SIZE);
    CHECK_RC(aos_seg_create_from(20, map, SIZE_MAX - 10, AOS_PROTO_RMA, &dup), AOS_ERR_SIZE);
    CHECK_RC(aos_seg_create_from(20, (void *)(UINTPTR_MAX - 100), 50, AOS_PROTO_RMA, &dup),
             AOS_ERR_SIZE);
    CHECK(dup == NULL);

    /* Still usable: the same memory, now valid, published and exchanged. */
    aos_seg_t *ok, *r_ok;
    CHECK_OK(aos_seg_create_from(20, map + 100, 2 * page - 200, AOS_PROTO_RMA, &ok));
    CHECK(pattern_check(map, 2 * page, 70u + (unsigned)me) == 2 * page);
    CHECK_OK(aos_barrier_all());
    CHECK_OK(aos_seg_attach(right, 20, &r_ok));
    uint8_t *tmp = malloc(2 * page);
    CHECK(tmp != NULL);
    CHECK_OK(aos_get(tmp, r_ok, 0, 2 * page - 200, NULL));
    for (size_t i = 0; i < 2 * page - 200; i++)
        CHECK(tmp[i] == pattern_byte(70u + (unsigned)right, 100 + i));
    pattern_fill(tmp, 2 * page - 200, 170u + (unsigned)me);
    CHECK_OK(aos_put(r_ok, 0, tmp, 2 * page - 200, NULL));
    CHECK_OK(aos_barrier_all());
    CHECK(pattern_check(map + 100, 2 * page - 200, 170u + (unsigned)left) == 2 * page - 200);
    CHECK_OK(aos_seg_detach(r_ok));
    CHECK_OK(aos_barrier_all());
    CHECK_OK(aos_seg_destroy(ok));
    free(tmp);
    CHECK(munmap(map, 4 * page) == 0);
}

int main(void)
{
    CHECK_OK(aos_init());
    int me = aos_my_pe(), n = aos_n_pes();
    int right = (me + 1) % n, left = (me + n - 1) % n;

    aos_seg_t *rw, *ro_atomic, *from_buf;
    CHECK_OK(aos_seg_create(1, 10000, AOS_PROTO_RMA | AOS_PROTO_LOADSTORE, &rw));
    CHECK_OK(aos_seg_create(2, 64, AOS_PROTO_ATOMIC, &ro_atomic));
    /* a malloc'd buffer with contents, published in place */
    size_t blen = 3 * 4096 + 100;
    uint8_t *buf = malloc(blen + 8192);
    CHECK(buf != NULL);
    uint8_t *inner = buf + 123;
    pattern_fill(inner, blen, 500u + (unsigned)me);
    CHECK_OK(aos_seg_create_from(3, inner, blen, AOS_PROTO_RMA, &from_buf));
    CHECK(pattern_check(inner, blen, 500u + (unsigned)me) == blen); /* contents kept */
    size_t sz;
    int owner;
    CHECK_OK(aos_seg_size(rw, &sz));
    CHECK(sz == 10000);
    CHECK_OK(aos_seg_owner(rw, &owner));
    CHECK(owner == me);
    /* A fresh segment is zero-filled. */
    void *mem;
    CHECK_OK(aos_seg_ptr(rw, 0, &mem));
    for (size_t i = 0; i < 10000; i++)
        CHECK(((uint8_t *)mem)[i] == 0);
    CHECK_OK(aos_barrier_all());

    /* Attach to the right neighbour's segments. */
    aos_seg_t *r_rw, *r_atomic, *r_buf;
    CHECK_OK(aos_seg_attach(right, 1, &r_rw));
    CHECK_OK(aos_seg_attach(right, 2, &r_atomic));
    CHECK_OK(aos_seg_attach(right, 3, &r_buf));
    CHECK_OK(aos_seg_owner(r_rw, &owner));
    CHECK(owner == right);
    CHECK_OK(aos_seg_size(r_buf, &sz));
    CHECK(sz == blen);
    aos_seg_t *none = NULL;
    CHECK_RC(aos_seg_attach(right, 999, &none), AOS_ERR_NO_KEY);
    CHECK(none == NULL); /* outputs untouched on failure */
    CHECK_RC(aos_seg_attach(n, 1, &none), AOS_ERR_PE);
    CHECK_RC(aos_seg_attach(-1, 1, &none), AOS_ERR_PE);

    /* Read the neighbour's published buffer, then write into it. */
    uint8_t *tmp = malloc(blen);
    CHECK_OK(aos_get(tmp, r_buf, 0, blen, NULL));
    CHECK(pattern_check(tmp, blen, 500u + (unsigned)right) == blen);
    pattern_fill(tmp, blen, 900u + (unsigned)me);
    CHECK_OK(aos_put(r_buf, 0, tmp, blen, NULL));
    /* Load/store into the neighbour's rw segment. */
    uint32_t *rp;
    uint32_t mark = 0xabc00000u + (uint32_t)me;
    if (test_same_node(me, right, n)) {
        CHECK_OK(aos_seg_ptr(r_rw, 9996, (void **)&rp));
        *rp = mark;
    } else { /* no load/store across nodes: a put does it */
        CHECK_RC(aos_seg_ptr(r_rw, 9996, (void **)&rp), AOS_ERR_NOT_LOCAL);
        CHECK_OK(aos_put(r_rw, 9996, &mark, sizeof mark, NULL));
    }
    CHECK_OK(aos_barrier_all());
    CHECK(pattern_check(inner, blen, 900u + (unsigned)left) == blen);
    CHECK(((uint32_t *)mem)[2499] == 0xabc00000u + (uint32_t)left);
    CHECK_OK(aos_barrier_all()); /* checked before anyone writes the edge below */

    /* Protocols are enforced. */
    uint64_t word = 1;
    CHECK_RC(aos_put(r_atomic, 0, &word, 8, NULL), AOS_ERR_PROTOCOL);
    CHECK_RC(aos_seg_ptr(r_buf, 0, (void **)&rp), AOS_ERR_PROTOCOL);
    /* Bounds are enforced, exactly at the edge. */
    CHECK_OK(aos_put(r_rw, 9999, &word, 1, NULL));
    CHECK_RC(aos_put(r_rw, 9999, &word, 2, NULL), AOS_ERR_BOUNDS);
    CHECK_RC(aos_put(r_rw, 10001, &word, 0, NULL), AOS_ERR_BOUNDS);
    CHECK_RC(aos_get(&word, r_rw, SIZE_MAX, 1, NULL), AOS_ERR_BOUNDS);
    CHECK_RC(aos_put(r_rw, 8, &word, SIZE_MAX, NULL), AOS_ERR_BOUNDS);
    CHECK_RC(aos_seg_ptr(r_rw, 10001, (void **)&rp), AOS_ERR_BOUNDS);
    /* Only the owner destroys; attached handles detach. */
    CHECK_RC(aos_seg_destroy(r_rw), AOS_ERR_INVALID);
    CHECK_RC(aos_seg_detach(rw), AOS_ERR_INVALID);
    /* Keys are unique per owner. */
    aos_seg_t *dup = NULL;
    CHECK_RC(aos_seg_create(1, 10, AOS_PROTO_RMA, &dup), AOS_ERR_EXISTS);
    CHECK(dup == NULL);
    /* A buffer sharing a page with a published one is refused. */
    CHECK_RC(aos_seg_create_from(4, inner + blen, 10, AOS_PROTO_RMA, &dup), AOS_ERR_OVERLAP);
    CHECK_OK(aos_barrier_all());

    /* Destroy: the neighbour's handles see it at once. */
    CHECK_OK(aos_seg_destroy(rw));
    CHECK_OK(aos_seg_destroy(from_buf));
    CHECK(pattern_check(inner, blen, 900u + (unsigned)left) == blen); /* buffer private again, contents kept */
    inner[0] ^= 1; /* and still writable */
    CHECK_OK(aos_barrier_all());
    CHECK_RC(aos_put(r_rw, 0, &word, 8, NULL), AOS_ERR_DESTROYED);
    CHECK_RC(aos_get(&word, r_buf, 0, 8, NULL), AOS_ERR_DESTROYED);
    CHECK_RC(aos_seg_attach(right, 1, &none), AOS_ERR_NO_KEY);
    CHECK_OK(aos_seg_detach(r_rw));
    CHECK_OK(aos_seg_detach(r_buf));
    CHECK_OK(aos_seg_detach(r_atomic));
    CHECK_OK(aos_barrier_all());

    /* The key is free again; the new segment is zero even though the old
     * one held data. */
    CHECK_OK(aos_seg_create(1, 10000, AOS_PROTO_RMA, &rw));
    CHECK_OK(aos_barrier_all());
    CHECK_OK(aos_seg_attach(right, 1, &r_rw));
    CHECK_OK(aos_get(&word, r_rw, 9992, 8, NULL));
    CHECK(word == 0);
    CHECK_OK(aos_seg_detach(r_rw));

    /* A buffer inside symmetric memory may be published, overlapping freely. */
    uint8_t *sym = aos_malloc(4096);
    aos_seg_t *s1, *s2;
    CHECK_OK(aos_seg_create_from(10, sym, 100, AOS_PROTO_RMA, &s1));
    CHECK_OK(aos_seg_create_from(11, sym + 50, 100, AOS_PROTO_RMA, &s2));
    CHECK_OK(aos_barrier_all());
    aos_seg_t *r_s2;
    CHECK_OK(aos_seg_attach(right, 11, &r_s2));
    uint8_t byte = (uint8_t)(me + 1);
    CHECK_OK(aos_put(r_s2, 0, &byte, 1, NULL));
    CHECK_OK(aos_barrier_all());
    CHECK(sym[50] == (uint8_t)(left + 1));
    CHECK_OK(aos_seg_detach(r_s2));
    CHECK_OK(aos_barrier_all());
    CHECK_OK(aos_seg_destroy(s1));
    CHECK_OK(aos_seg_destroy(s2));

    /* Many segments: the directory holds 1024 per PE, then says so. */
    static aos_seg_t *many[1100];
    int made = 0;
    int rc = AOS_OK;
    while (made < 1100 && (rc = aos_seg_create(1000 + (uint64_t)made, 8, AOS_PROTO_RMA,
                                               &many[made])) == AOS_OK)
        made++;
    CHECK(rc == AOS_ERR_TOO_MANY);
    /* live: rw, ro_atomic and aos's own RPC queue and RPC area */
    CHECK(made == 1024 - 4);
    for (int i = 0; i < made; i++)
        CHECK_OK(aos_seg_destroy(many[i]));

    /* The caller's stack cannot be published in place. */
    char on_stack[64];
    CHECK_RC(aos_seg_create_from(6, on_stack, sizeof on_stack, AOS_PROTO_RMA, &dup),
             AOS_ERR_INVALID);
    refused_ranges(me, right, left, n);
    self_overlap_at_edges(me);
    /* Bad creation arguments. */
    CHECK_RC(aos_seg_create(5, 0, AOS_PROTO_RMA, &dup), AOS_ERR_SIZE);
    CHECK_RC(aos_seg_create(5, 10, 0, &dup), AOS_ERR_INVALID);
    CHECK_RC(aos_seg_create(5, 10, 0x100, &dup), AOS_ERR_INVALID);
    CHECK_RC(aos_seg_create(5, 10, AOS_PROTO_RMA, NULL), AOS_ERR_NULL);
    CHECK_RC(aos_seg_create(5, (size_t)1 << 62, AOS_PROTO_RMA, &dup), AOS_ERR_SIZE);
    CHECK_RC(aos_seg_create_from(5, NULL, 10, AOS_PROTO_RMA, &dup), AOS_ERR_NULL);
    CHECK_RC(aos_put(NULL, 0, &word, 8, NULL), AOS_ERR_NULL);
    CHECK_RC(aos_seg_size(NULL, &sz), AOS_ERR_NULL);

    CHECK_OK(aos_barrier_all());
    aos_free(sym);
    CHECK_OK(aos_seg_destroy(rw));
    CHECK_OK(aos_seg_destroy(ro_atomic));
    free(tmp);
    free(buf);
    CHECK_OK(aos_finalize());
    return 0;
}
