/* Built against an installed aos, once with find_package and once with
 * pkg-config: runs as a single PE and moves data through the heap. */
#include <aos.h>
#include <stdio.h>

int main(void)
{
    if (aos_init() != AOS_OK)
        return 1;
    long *x = aos_malloc(sizeof *x), v = 42;
    int ok = x != NULL && aos_putmem(0, x, &v, sizeof v, NULL) == AOS_OK && *x == 42;
    aos_free(x);
    printf("consumer %s, aos %s\n", ok ? "ok" : "FAILED", aos_version_string());
    return aos_finalize() == AOS_OK && ok ? 0 : 1;
}
