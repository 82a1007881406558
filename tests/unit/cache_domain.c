/* The cluster a PE finds from its own affinity under a launcher that does
 * not say (PMIx): CPU lists parsed exactly, bad ones refused, and the
 * last-level cache found in a made-up sysfs tree of two 4-CPU caches. */
#include <ftw.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../common/check.h"
#include "core/boot/cache_domain.h"

static char root[4096];

static void write_file(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    CHECK(f != NULL);
    CHECK(fputs(text, f) >= 0);
    CHECK(fclose(f) == 0);
}

/* cpuC with L1 (index0, its own), L2 (index2, its own) and L3 (index3,
 * shared by `l3`); index1 is left out: indexes need not be contiguous. */
static void make_cpu(int c, const char *l3)
{
    char dir[4200], path[4300], own[16];
    snprintf(own, sizeof own, "%d\n", c);
    snprintf(dir, sizeof dir, "%s/cpu%d", root, c);
    CHECK(mkdir(dir, 0700) == 0);
    snprintf(dir, sizeof dir, "%s/cpu%d/cache", root, c);
    CHECK(mkdir(dir, 0700) == 0);
    const int index[] = {0, 2, 3};
    const char *level[] = {"1\n", "2\n", "3\n"};
    for (int i = 0; i < 3; i++) {
        snprintf(dir, sizeof dir, "%s/cpu%d/cache/index%d", root, c, index[i]);
        CHECK(mkdir(dir, 0700) == 0);
        snprintf(path, sizeof path, "%s/level", dir);
        write_file(path, level[i]);
        snprintf(path, sizeof path, "%s/shared_cpu_list", dir);
        write_file(path, i == 2 ? l3 : own);
    }
}

static int remove_one(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
    (void)st, (void)type, (void)ftw;
    return remove(path);
}

static cpu_set_t cpus(const char *list)
{
    cpu_set_t s;
    CHECK(aos__cpulist_parse(list, &s) == 0);
    return s;
}

static void check_parse(void)
{
    cpu_set_t s = cpus("0-3,8,10-11\n");
    CHECK(CPU_COUNT(&s) == 7);
    CHECK(CPU_ISSET(0, &s) && CPU_ISSET(3, &s) && CPU_ISSET(8, &s) && CPU_ISSET(11, &s));
    CHECK(!CPU_ISSET(4, &s) && !CPU_ISSET(9, &s));
    s = cpus("5");
    CHECK(CPU_COUNT(&s) == 1 && CPU_ISSET(5, &s));
    s = cpus("");
    CHECK(CPU_COUNT(&s) == 0);
    cpu_set_t kept = cpus("1");
    const char *bad[] = {"x", "1-", "3-1", "1,,2", "-2", "1 2", "99999"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        CHECK(aos__cpulist_parse(bad[i], &kept) == -1);
        CHECK(CPU_COUNT(&kept) == 1 && CPU_ISSET(1, &kept)); /* untouched */
    }
}

int main(void)
{
    alarm(30);
    check_parse();
    const char *tmp = getenv("TMPDIR");
    snprintf(root, sizeof root, "%s/aos-cache-test.XXXXXX", tmp != NULL ? tmp : "/tmp");
    CHECK(mkdtemp(root) != NULL);
    for (int c = 0; c < 8; c++)
        make_cpu(c, c < 4 ? "0-3\n" : "4-7\n");

    cpu_set_t s = cpus("5");
    CHECK(aos__cache_domain_of(root, &s) == 5); /* bound to a core: 1 + the cache's first CPU */
    s = cpus("4-7");
    CHECK(aos__cache_domain_of(root, &s) == 5); /* bound to the whole cache */
    s = cpus("1,2");
    CHECK(aos__cache_domain_of(root, &s) == 1);
    s = cpus("3-4");
    CHECK(aos__cache_domain_of(root, &s) == 0); /* spans both caches: none */
    s = cpus("0-7");
    CHECK(aos__cache_domain_of(root, &s) == 0); /* not bound */
    s = cpus("9");
    CHECK(aos__cache_domain_of(root, &s) == 0); /* sysfs says nothing of cpu9 */
    s = cpus("");
    CHECK(aos__cache_domain_of(root, &s) == 0);
    CHECK(aos__cache_domain_of("/nonexistent-aos-dir", &s) == 0);

    CHECK(nftw(root, remove_one, 16, FTW_DEPTH | FTW_PHYS) == 0);

    /* This machine: whatever it is, an answer and no crash. */
    CHECK(aos__cache_domain_mine() >= 0);
    printf("cache domains: lists parsed, bound PEs placed in their cache, others in none\n");
    return 0;
}
