/* Symmetric static data costs memory only where it holds data: a large zero
 * .bss array is not committed by aos_init (its pages stay unresident), while
 * initialised .data and .bss values written before aos_init arrive exactly,
 * and the whole array is symmetric (puts into far pages land). */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "../common/check.h"

#define BIG_BYTES ((size_t)256 << 20)
#define BIG_WORDS (BIG_BYTES / sizeof(uint64_t))

static uint64_t big_zero[BIG_WORDS]; /* .bss, mostly never touched */
static uint64_t bss_written[3 * 512 + 7]; /* .bss, filled before aos_init */
/* .data: a known pattern across several pages, zeros in between */
static uint64_t data_words[4096] = {
    [0] = 0x0123456789abcdefull, [1] = 1, [511] = 0xfeedfacecafebeefull,
    [512] = 2, [1500] = 0x5555aaaa5555aaaaull, [2048] = 3, [4095] = 0xffffffffffffffffull};

static uint64_t data_expected(size_t i)
{
    switch (i) {
    case 0: return 0x0123456789abcdefull;
    case 1: return 1;
    case 511: return 0xfeedfacecafebeefull;
    case 512: return 2;
    case 1500: return 0x5555aaaa5555aaaaull;
    case 2048: return 3;
    case 4095: return 0xffffffffffffffffull;
    default: return 0;
    }
}

static uint64_t bss_value(size_t i)
{
    return i % 3 == 0 ? 0 : 0x9e3779b97f4a7c15ull * (i + 1);
}

/* Resident memory of this process in bytes (second field of statm). */
static uint64_t resident_bytes(void)
{
    FILE *f = fopen("/proc/self/statm", "r");
    CHECK(f != NULL);
    unsigned long long size = 0, resident = 0;
    CHECK(fscanf(f, "%llu %llu", &size, &resident) == 2);
    fclose(f);
    return resident * (uint64_t)sysconf(_SC_PAGESIZE);
}

int main(void)
{
    /* A few words of the big array hold data before aos_init: their pages
     * are copied, the rest of it is not. */
    big_zero[0] = 11;
    big_zero[BIG_WORDS / 2 + 3] = 22;
    big_zero[BIG_WORDS - 1] = 33;
    for (size_t i = 0; i < sizeof bss_written / sizeof bss_written[0]; i++)
        bss_written[i] = bss_value(i);

    uint64_t before = resident_bytes();
    CHECK_OK(aos_init());
    uint64_t after = resident_bytes();
    int me = aos_my_pe(), n = aos_n_pes();
    int right = (me + 1) % n, left = (me + n - 1) % n;
    if (after > before && after - before >= BIG_BYTES / 4) {
        fprintf(stderr, "FAIL PE %d: aos_init grew resident memory by %llu MiB for a %zu MiB "
                        "zero array\n",
                me, (unsigned long long)((after - before) >> 20), BIG_BYTES >> 20);
        return 1;
    }

    /* Every value arrived; the big array is symmetric. */
    CHECK(aos_sym_accessible(big_zero) && aos_sym_accessible(&big_zero[BIG_WORDS - 1]));
    CHECK(big_zero[0] == 11 && big_zero[BIG_WORDS / 2 + 3] == 22 &&
          big_zero[BIG_WORDS - 1] == 33);
    CHECK(big_zero[1] == 0 && big_zero[BIG_WORDS / 2 + 2] == 0 && big_zero[BIG_WORDS - 2] == 0);
    for (size_t i = 0; i < sizeof data_words / sizeof data_words[0]; i++)
        CHECK(data_words[i] == data_expected(i));
    for (size_t i = 0; i < sizeof bss_written / sizeof bss_written[0]; i++)
        CHECK(bss_written[i] == bss_value(i));

    CHECK_OK(aos_barrier_all()); /* all checked before the puts below */

    /* Puts into far pages of the neighbour's array land exactly. */
    size_t slot = BIG_WORDS / 4 + 1000 * (size_t)me;
    uint64_t v = 0xabc000u + (uint64_t)me;
    CHECK_OK(aos_putmem(right, &big_zero[slot], &v, sizeof v, NULL));
    CHECK_OK(aos_putmem(right, &data_words[2000], &v, sizeof v, NULL));
    CHECK_OK(aos_barrier_all());
    size_t from_left = BIG_WORDS / 4 + 1000 * (size_t)left;
    CHECK(big_zero[from_left] == 0xabc000u + (uint64_t)left);
    CHECK(data_words[2000] == 0xabc000u + (uint64_t)left);
    uint64_t got = 0;
    CHECK_OK(aos_getmem(right, &got, &big_zero[BIG_WORDS - 1], sizeof got, NULL));
    CHECK(got == 33);
    CHECK_OK(aos_finalize());
    if (me == 0)
        printf("static_sparse: %d PEs, resident growth at aos_init %llu KiB for %zu MiB of "
               ".bss\n",
               n, (unsigned long long)((after > before ? after - before : 0) >> 10),
               BIG_BYTES >> 20);
    return 0;
}
