/* Geometry transfers: 1D strided, 2D and 3D blocks with independent local and
 * remote strides, on segments and symmetric memory, put and get. Every
 * element is checked, and so is every byte the block must not touch. */
#include <string.h>

#include "../common/check.h"

#define REGION (1u << 20)

struct shape {
    size_t run, rows, planes;
    size_t lstride[2], rstride[2];
    size_t loff, roff;
};

static const struct shape shapes[] = {
    /* 1D strided: 8-byte elements, remote stride 24, local contiguous */
    {8, 100, 1, {8, 0}, {24, 0}, 0, 0},
    /* 1D strided, odd element size and unaligned offsets */
    {3, 77, 1, {5, 0}, {11, 0}, 1, 7},
    /* 16x16 doubles tile into an 18x18 halo-padded remote buffer */
    {16 * 8, 16, 1, {16 * 8, 0}, {18 * 8, 0}, 0, (18 + 1) * 8},
    /* the reverse: interior of an 18x18 local buffer into a dense 16x16 */
    {16 * 8, 16, 1, {18 * 8, 0}, {16 * 8, 0}, (18 + 1) * 8, 0},
    /* 2D with large strides on both sides */
    {100, 50, 1, {4096, 0}, {1000, 0}, 17, 3},
    /* 3D: 8 planes of 10 rows of 12 bytes, both sides padded differently */
    {12, 10, 8, {16, 200}, {20, 256}, 0, 5},
    /* 3D with a single row per plane */
    {64, 1, 30, {64, 64}, {100, 1000}, 9, 0},
    /* degenerate: one row */
    {4000, 1, 1, {0, 0}, {0, 0}, 1, 2},
};
#define NSHAPES (sizeof shapes / sizeof shapes[0])

/* Expected contents of a side after a block of pattern `seed` landed on it
 * over a background of pattern `bg`. */
static void expect(uint8_t *exp, const struct shape *s, const size_t stride[2], size_t off,
                   unsigned seed, unsigned bg)
{
    pattern_fill(exp, REGION, bg);
    size_t k = 0;
    for (size_t p = 0; p < s->planes; p++)
        for (size_t r = 0; r < s->rows; r++)
            for (size_t b = 0; b < s->run; b++)
                exp[off + p * stride[1] + r * stride[0] + b] = pattern_byte(seed, k++);
}

/* Writes pattern seed as a block into buf. */
static void scatter(uint8_t *buf, const struct shape *s, const size_t stride[2], size_t off,
                    unsigned seed)
{
    size_t k = 0;
    for (size_t p = 0; p < s->planes; p++)
        for (size_t r = 0; r < s->rows; r++)
            for (size_t b = 0; b < s->run; b++)
                buf[off + p * stride[1] + r * stride[0] + b] = pattern_byte(seed, k++);
}

int main(void)
{
    CHECK_OK(aos_init());
    int me = aos_my_pe(), n = aos_n_pes();
    int right = (me + 1) % n, left = (me + n - 1) % n;
    uint8_t *sym = aos_malloc(REGION);
    uint8_t *local = malloc(REGION), *exp = malloc(REGION);
    CHECK(sym && local && exp);
    aos_seg_t *mine, *theirs;
    CHECK_OK(aos_seg_create(42, REGION, AOS_PROTO_RMA | AOS_PROTO_LOADSTORE, &mine));
    CHECK_OK(aos_barrier_all());
    CHECK_OK(aos_seg_attach(right, 42, &theirs));
    void *seg_mem;
    CHECK_OK(aos_seg_ptr(mine, 0, &seg_mem));
    aos_event_t *ev;
    CHECK_OK(aos_event_create(&ev));

    for (size_t i = 0; i < NSHAPES; i++) {
        const struct shape *s = &shapes[i];
        aos_block_t b = {.run = s->run,
                         .count = {s->rows, s->planes},
                         .local_stride = {s->lstride[0], s->lstride[1]},
                         .remote_stride = {s->rstride[0], s->rstride[1]}};
        for (int via_seg = 0; via_seg < 2; via_seg++) {
            unsigned seed = (unsigned)(i * 10 + (size_t)via_seg) * 100;
            uint8_t *target = via_seg ? seg_mem : sym;
            /* put: my block into the right neighbour's background */
            pattern_fill(target, REGION, seed + 50);
            pattern_fill(local, REGION, 3);
            scatter(local, s, s->lstride, s->loff, seed + (unsigned)me);
            CHECK_OK(aos_barrier_all());
            if (via_seg)
                CHECK_OK(aos_put_block(theirs, s->roff, local + s->loff, &b, ev));
            else
                CHECK_OK(aos_putmem_block(right, sym + s->roff, local + s->loff, &b, NULL));
            CHECK_OK(aos_event_wait(ev));
            CHECK_OK(aos_barrier_all());
            expect(exp, s, s->rstride, s->roff, seed + (unsigned)left, seed + 50);
            CHECK(memcmp(target, exp, REGION) == 0);

            /* get: the right neighbour's block (its pattern) into my background */
            scatter(target, s, s->rstride, s->roff, seed + 7 + (unsigned)me);
            CHECK_OK(aos_barrier_all());
            pattern_fill(local, REGION, 9);
            if (via_seg)
                CHECK_OK(aos_get_block(local + s->loff, theirs, s->roff, &b, NULL));
            else
                CHECK_OK(aos_getmem_block(right, local + s->loff, sym + s->roff, &b, ev));
            CHECK_OK(aos_event_wait(ev));
            expect(exp, s, s->lstride, s->loff, seed + 7 + (unsigned)right, 9);
            CHECK(memcmp(local, exp, REGION) == 0);
            CHECK_OK(aos_barrier_all());
        }
    }

    /* A block reaching one byte past the segment is refused, nothing written. */
    aos_block_t over = {.run = 16, .count = {4, 1}, .local_stride = {16, 0},
                        .remote_stride = {REGION / 4, 0}};
    CHECK_RC(aos_put_block(theirs, REGION / 4 - 16 + 1, local, &over, NULL), AOS_ERR_BOUNDS);
    CHECK_RC(aos_put_block(theirs, 0, local, &over, NULL), AOS_OK);
    /* Rows overlapping on the destination side are refused. */
    aos_block_t clash = {.run = 16, .count = {4, 1}, .local_stride = {16, 0},
                         .remote_stride = {8, 0}};
    CHECK_RC(aos_put_block(theirs, 0, local, &clash, NULL), AOS_ERR_OVERLAP);
    CHECK_RC(aos_get_block(local, theirs, 0, &clash, NULL), AOS_OK); /* reads may overlap */
    /* Size overflow in the extent is refused. */
    aos_block_t huge = {.run = 8, .count = {SIZE_MAX / 2, 3}, .local_stride = {8, 0},
                        .remote_stride = {8, SIZE_MAX / 2}};
    CHECK_RC(aos_put_block(theirs, 0, local, &huge, NULL), AOS_ERR_SIZE);
    CHECK_RC(aos_put_block(theirs, 0, local, NULL, NULL), AOS_ERR_NULL);
    /* An empty block is a no-op and may have NULL buffers. */
    aos_block_t empty = {.run = 0, .count = {5, 5}};
    CHECK_OK(aos_put_block(theirs, 0, NULL, &empty, NULL));
    /* With an event it counts as one operation, as a 0-byte put does, and
     * a destroyed event is refused. */
    aos_event_t *zero, *gone;
    CHECK_OK(aos_event_create(&zero));
    CHECK_OK(aos_put_block(theirs, 0, NULL, &empty, zero));
    CHECK_OK(aos_get_block(NULL, theirs, 0, &empty, zero));
    CHECK_OK(aos_putmem_block(right, sym, NULL, &empty, zero));
    CHECK_OK(aos_getmem_block(right, NULL, sym, &empty, zero));
    CHECK_OK(aos_putmem(right, sym, NULL, 0, zero));
    uint64_t issued = 0;
    CHECK_OK(aos_event_count(zero, &issued));
    CHECK(issued == 5);
    CHECK_OK(aos_event_wait(zero));
    CHECK_OK(aos_event_destroy(zero));
    CHECK_OK(aos_event_create(&gone));
    CHECK_OK(aos_event_destroy(gone));
    CHECK_RC(aos_put_block(theirs, 0, NULL, &empty, gone), AOS_ERR_INVALID);
    CHECK_RC(aos_putmem_block(right, sym, NULL, &empty, gone), AOS_ERR_INVALID);

    CHECK_OK(aos_barrier_all());
    CHECK_OK(aos_event_destroy(ev));
    CHECK_OK(aos_seg_detach(theirs));
    CHECK_OK(aos_seg_destroy(mine));
    aos_free(sym);
    free(local);
    free(exp);
    CHECK_OK(aos_finalize());
    return 0;
}
