/* Symmetric static data leaves the program's RELRO pages alone: the GOT and
 * .data.rel.ro (relocated pointers in const tables) stay private and
 * read-only after aos_init, and a put into them is refused, while writable
 * globals are symmetric as before. */
#include <stdio.h>
#include <string.h>

#include "../common/check.h"

/* Const, but holding pointers that need relocating: .data.rel.ro in a PIE. */
static const char *const names[] = {"alpha", "beta", "gamma", "delta"};
static uint64_t plain[4]; /* .bss: symmetric */

/* The permissions of the mapping holding addr, from /proc/self/maps. */
static void perms_of(const void *addr, char perms[5])
{
    FILE *f = fopen("/proc/self/maps", "r");
    CHECK(f != NULL);
    char line[512];
    strcpy(perms, "none");
    while (fgets(line, sizeof line, f) != NULL) {
        unsigned long lo, hi;
        char p[5];
        if (sscanf(line, "%lx-%lx %4s", &lo, &hi, p) == 3 && (uintptr_t)addr >= lo &&
            (uintptr_t)addr < hi) {
            memcpy(perms, p, 5);
            break;
        }
    }
    fclose(f);
}

int main(void)
{
    CHECK_OK(aos_init());
    int me = aos_my_pe(), n = aos_n_pes();
    int right = (me + 1) % n;
    char perms[5];
    perms_of(&names[0], perms);
    if (strcmp(perms, "r--p") != 0) {
        fprintf(stderr, "FAIL PE %d: .data.rel.ro is mapped %s, expected r--p\n", me, perms);
        return 1;
    }
    const char *bogus = "x";
    CHECK_RC(aos_putmem(right, (void *)&names[1], &bogus, sizeof bogus, NULL),
             AOS_ERR_NOT_SYMMETRIC);
    void *p;
    CHECK_RC(aos_sym_ptr((void *)&names[1], right, &p), AOS_ERR_NOT_SYMMETRIC);
    CHECK(strcmp(names[1], "beta") == 0);
    perms_of(plain, perms);
    CHECK(strcmp(perms, "rw-s") == 0);
    uint64_t v = 100 + (uint64_t)me;
    CHECK_OK(aos_putmem(right, &plain[me % 4], &v, sizeof v, NULL));
    CHECK_OK(aos_barrier_all());
    int left = (me + n - 1) % n;
    CHECK(plain[left % 4] == 100 + (uint64_t)left);
    CHECK_OK(aos_finalize());
    if (me == 0)
        printf("static_relro: RELRO private and read-only on %d PEs\n", n);
    return 0;
}
