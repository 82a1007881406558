/* The first-fit range allocator behind the symmetric heap and segments. */
#include "../common/check.h"
#include "mem/range_alloc.h"

int main(void)
{
    struct aos__range_alloc a;
    CHECK_OK(aos__range_init(&a, 1000, 10000));
    uint64_t o1, o2, o3, o4;
    CHECK_OK(aos__range_alloc(&a, 100, 1, &o1));
    CHECK(o1 == 1000);
    CHECK_OK(aos__range_alloc(&a, 100, 256, &o2));
    CHECK(o2 == 1280); /* aligned: the gap 1100..1280 stays free */
    CHECK_OK(aos__range_alloc(&a, 50, 1, &o3));
    CHECK(o3 == 1100); /* first fit uses the gap */
    CHECK(aos__range_length(&a, o2) == 100);
    CHECK(aos__range_length(&a, o2 + 1) == 0);
    CHECK_RC(aos__range_alloc(&a, 20000, 1, &o4), AOS_ERR_NO_MEMORY);
    CHECK_RC(aos__range_alloc(&a, 0, 1, &o4), AOS_ERR_INVALID);
    CHECK_RC(aos__range_alloc(&a, 8, 3, &o4), AOS_ERR_INVALID);
    CHECK_RC(aos__range_free(&a, o2 + 1), AOS_ERR_INVALID);
    CHECK_OK(aos__range_free(&a, o1));
    CHECK_OK(aos__range_free(&a, o3));
    CHECK_RC(aos__range_free(&a, o3), AOS_ERR_INVALID); /* double free */
    CHECK_OK(aos__range_free(&a, o2));
    /* everything coalesced back into one free range */
    CHECK(a.count == 1 && a.ranges[0].off == 1000 && a.ranges[0].len == 10000);
    CHECK_OK(aos__range_alloc(&a, 10000, 8, &o4));
    CHECK(o4 == 1000);
    CHECK_OK(aos__range_free(&a, o4));
    /* many small blocks, freed in a scattered order, then one big one fits */
    uint64_t offs[500];
    struct aos__range_alloc b;
    CHECK_OK(aos__range_init(&b, 0, 500 * 16));
    for (int i = 0; i < 500; i++)
        CHECK_OK(aos__range_alloc(&b, 16, 16, &offs[i]));
    CHECK_RC(aos__range_alloc(&b, 1, 1, &o4), AOS_ERR_NO_MEMORY);
    for (int i = 0; i < 500; i++)
        CHECK_OK(aos__range_free(&b, offs[(i * 7) % 500]));
    CHECK(b.count == 1);
    CHECK_OK(aos__range_alloc(&b, 500 * 16, 1, &o4));
    aos__range_fini(&b);
    aos__range_fini(&a);
    return 0;
}
