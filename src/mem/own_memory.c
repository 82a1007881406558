/* Is a range ordinary writable private memory of this process? Asked before
 * aos_seg_create_from moves a buffer's pages into the arena: code, read-only
 * data, holes and shared mappings must be refused, not copied over (a copy
 * faults on a hole and turns read-only pages writable). The kernel's list of
 * mappings, /proc/self/maps, says it in one read: mappings are listed in
 * address order with their permissions and sharing. */
#include <stdio.h>
#include <stdlib.h>

#include "mem/memory.h"

/* Reads "lo-hi perms" at the start of a maps line. */
static int parse_line(const char *line, uintptr_t *lo, uintptr_t *hi, const char **perms)
{
    char *end;
    unsigned long long a = strtoull(line, &end, 16);
    if (*end != '-')
        return 0;
    unsigned long long b = strtoull(end + 1, &end, 16);
    if (*end != ' ' || b <= a)
        return 0;
    *lo = (uintptr_t)a;
    *hi = (uintptr_t)b;
    *perms = end + 1;
    return 1;
}

int aos__check_own_memory(uintptr_t lo, uintptr_t hi, const char **why)
{
    FILE *f = fopen("/proc/self/maps", "re");
    if (f == NULL) {
        *why = "cannot read /proc/self/maps to check it";
        return AOS_ERR_SYSTEM;
    }
    char *line = NULL;
    size_t cap = 0;
    uintptr_t covered = lo; /* [lo, covered) is known to be fine */
    int rc = AOS_ERR_INVALID;
    *why = "not mapped (a hole in the address space)";
    while (covered < hi && getline(&line, &cap, f) > 0) {
        uintptr_t mlo, mhi;
        const char *perms;
        if (!parse_line(line, &mlo, &mhi, &perms) || mhi <= covered)
            continue;
        if (mlo > covered)
            break; /* a hole before this mapping */
        if (perms[0] != 'r' || perms[1] != 'w') {
            *why = perms[2] == 'x' ? "code, not writable data" : "not writable";
            goto done;
        }
        if (perms[3] != 'p') {
            *why = "shared memory, not private to this process";
            goto done;
        }
        covered = mhi;
    }
    if (covered >= hi)
        rc = AOS_OK;
    else if (covered > lo)
        *why = "runs past the end of its mapping into unmapped addresses";
done:
    free(line);
    fclose(f);
    return rc;
}
