#include "core/boot/cache_domain.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>

int aos__cpulist_parse(const char *text, cpu_set_t *set)
{
    cpu_set_t out;
    CPU_ZERO(&out);
    const char *p = text;
    while (*p != '\0' && *p != '\n') {
        char *end;
        if (!isdigit((unsigned char)*p))
            return -1;
        unsigned long lo = strtoul(p, &end, 10), hi = lo;
        p = end;
        if (*p == '-') {
            if (!isdigit((unsigned char)p[1]))
                return -1;
            hi = strtoul(p + 1, &end, 10);
            p = end;
        }
        if (hi < lo || hi >= CPU_SETSIZE)
            return -1;
        for (unsigned long c = lo; c <= hi; c++)
            CPU_SET(c, &out);
        if (*p == ',')
            p++;
        else if (*p != '\0' && *p != '\n')
            return -1;
    }
    *set = out;
    return 0;
}

/* The first line of a small sysfs file into buf; -1 when unreadable. */
static int read_line(const char *path, char *buf, size_t cap)
{
    FILE *f = fopen(path, "r");
    if (f == NULL)
        return -1;
    int ok = fgets(buf, (int)cap, f) != NULL;
    fclose(f);
    return ok ? 0 : -1;
}

/* The CPUs sharing cpu's highest-level cache into *shared; -1 when sysfs
 * does not describe its caches. */
static int last_level_cache(const char *cpu_dir, int cpu, cpu_set_t *shared)
{
    int best_level = 0;
    char path[512], line[4096];
    for (int index = 0; index < 16; index++) {
        snprintf(path, sizeof path, "%s/cpu%d/cache/index%d/level", cpu_dir, cpu, index);
        if (read_line(path, line, sizeof line) != 0)
            continue; /* indexes need not be contiguous */
        int level = atoi(line);
        cpu_set_t set;
        snprintf(path, sizeof path, "%s/cpu%d/cache/index%d/shared_cpu_list", cpu_dir, cpu,
                 index);
        if (level <= best_level || read_line(path, line, sizeof line) != 0 ||
            aos__cpulist_parse(line, &set) != 0)
            continue;
        best_level = level;
        *shared = set;
    }
    return best_level > 0 ? 0 : -1;
}

int aos__cache_domain_of(const char *cpu_dir, const cpu_set_t *allowed)
{
    int first = -1;
    for (int c = 0; c < CPU_SETSIZE && first < 0; c++)
        if (CPU_ISSET(c, allowed))
            first = c;
    cpu_set_t llc, outside;
    if (first < 0 || last_level_cache(cpu_dir, first, &llc) != 0)
        return 0;
    CPU_XOR(&outside, allowed, &llc);
    CPU_AND(&outside, &outside, allowed); /* allowed CPUs not in first's cache */
    if (CPU_COUNT(&outside) != 0)
        return 0; /* not bound inside one cache: no one cluster */
    for (int c = 0; c < CPU_SETSIZE; c++)
        if (CPU_ISSET(c, &llc))
            return c + 1;
    return 0;
}

int aos__cache_domain_mine(void)
{
    cpu_set_t allowed;
    if (sched_getaffinity(0, sizeof allowed, &allowed) != 0)
        return 0;
    return aos__cache_domain_of("/sys/devices/system/cpu", &allowed);
}
