/* aos-info: version, build options, configuration variables and the machine
 * as aos sees it. With --launch, started by a launcher (aosrun, mpirun,
 * srun), it starts aos and PE 0 shows how the job came together. */
#include <hwloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "aos.h"
#include "core/bootstrap.h"
#include "core/runtime.h"
#include "transport/transport.h"

static void show_var(const char *name, const char *value, const char *def, const char *meaning,
                     void *arg)
{
    (void)arg;
    printf("  %-22s = %-8s (default %s)\n      %s\n", name, value, def, meaning);
}

/* Variables read outside the configuration table (which aos_config_visit
 * walks): tests/tools/info_vars.sh checks that every AOS_* and SHMEM_* name
 * the sources read is listed here or there. */
static const char *const other_vars[][2] = {
    {"AOS_MODEL_FILE", "the machine model aos_init reads and aos-probe writes (unset: "
                       "$XDG_CACHE_HOME/aos/model, else ~/.cache/aos/model); a file it names "
                       "that cannot be read is an error"},
    {"AOS_BOOT_FD", "set by aosrun: the PE's socket to the launcher (aos_init removes it)"},
    {"AOS_RANK", "set by aosrun: the PE's number (aos_init removes it)"},
    {"AOS_NPES", "set by aosrun: the job's PE count (aos_init removes it)"},
    {"SHMEM_SYMMETRIC_SIZE", "OpenSHMEM programs: the symmetric heap's size (sets "
                             "AOS_HEAP_SIZE unless that is set)"},
    {"SHMEM_DEBUG", "OpenSHMEM programs: start-up diagnostics (sets AOS_DEBUG)"},
    {"SHMEM_VERSION", "OpenSHMEM programs: print the library version at start-up"},
    {"SHMEM_INFO", "OpenSHMEM programs: print the SHMEM_* variables at start-up"},
};

static void show_other_vars(void)
{
    printf("other environment variables:\n");
    for (size_t i = 0; i < sizeof other_vars / sizeof other_vars[0]; i++) {
        const char *v = getenv(other_vars[i][0]);
        printf("  %-22s = %s\n      %s\n", other_vars[i][0], v != NULL ? v : "(unset)",
               other_vars[i][1]);
    }
}

static void show_topology(void)
{
    hwloc_topology_t t;
    if (hwloc_topology_init(&t) != 0 || hwloc_topology_load(t) != 0) {
        printf("topology: hwloc cannot read this machine\n");
        return;
    }
    hwloc_obj_type_t llc = HWLOC_OBJ_PACKAGE;
    const hwloc_obj_type_t levels[] = {HWLOC_OBJ_L3CACHE, HWLOC_OBJ_L2CACHE, HWLOC_OBJ_L1CACHE};
    for (size_t i = 0; i < 3; i++) {
        if (hwloc_get_nbobjs_by_type(t, levels[i]) > 0) {
            llc = levels[i];
            break;
        }
    }
    int nclusters = hwloc_get_nbobjs_by_type(t, llc);
    printf("topology (hwloc %s):\n", HWLOC_VERSION);
    printf("  nodes:    1 (this machine; aos-info --launch under a launcher shows the job's)\n");
    printf("  packages: %d\n", hwloc_get_nbobjs_by_type(t, HWLOC_OBJ_PACKAGE));
    printf("  NUMA:     %d\n", hwloc_get_nbobjs_by_type(t, HWLOC_OBJ_NUMANODE));
    printf("  clusters: %d (PEs sharing a %s)\n", nclusters, hwloc_obj_type_string(llc));
    printf("  cores:    %d\n", hwloc_get_nbobjs_by_type(t, HWLOC_OBJ_CORE));
    printf("  PUs:      %d\n", hwloc_get_nbobjs_by_type(t, HWLOC_OBJ_PU));
    for (int c = 0; c < nclusters; c++) {
        hwloc_obj_t o = hwloc_get_obj_by_type(t, llc, (unsigned)c);
        char cpus[256];
        hwloc_bitmap_list_snprintf(cpus, sizeof cpus, o->cpuset);
        unsigned long long kib = o->attr ? (unsigned long long)(o->attr->cache.size >> 10) : 0;
        printf("  cluster %d: cpus %s, %s %llu KiB\n", c, cpus, hwloc_obj_type_string(llc), kib);
    }
    hwloc_topology_destroy(t);
}

/* Which bootstrap aos_init would take here (core/bootstrap.c's order). */
static void show_bootstrap(void)
{
    const char *b = getenv("AOS_BOOT_FD") != NULL ? "aosrun"
                    : getenv("PMIX_NAMESPACE") != NULL && getenv("PMIX_RANK") != NULL
                        ? "pmix"
                        : "single";
    printf("start-up:\n  bootstrap: %s (aosrun, then PMIx, then a single PE)\n", b);
    printf("  PMIx support: %s\n", AOS_INFO_PMIX ? "built (mpirun, srun --mpi=pmix)"
                                                   : "not built (no libpmix-dev, or -DAOS_PMIX=OFF)");
}

/* aos_init, then PE 0 lists hosts, PEs per host and the transports. */
static int show_launch(void)
{
    int rc = aos_init();
    if (rc != AOS_OK) {
        fprintf(stderr, "aos-info: aos_init: %s\n", aos_strerror(rc));
        return 1;
    }
    const struct aos__runtime *rt = &aos__rt;
    if (rt->me == 0) {
        printf("job: %d PEs, bootstrap %s, %d host%s\n", rt->npes, rt->boot->name,
               rt->host.hosts, rt->host.hosts == 1 ? "" : "s");
        for (int h = 0; h < rt->host.hosts; h++) {
            int n = 0, first = -1;
            for (int pe = 0; pe < rt->npes; pe++)
                if (rt->peers[pe].host == h) {
                    n += 1;
                    first = first < 0 ? pe : first;
                }
            printf("  host %d: %d PEs (first PE %d, pid %ld)\n", h, n, first,
                   (long)rt->peers[first].pid);
        }
        /* Clusters of PE 0's host (under PMIx the only ones it learns). */
        int clusters = 0;
        for (int pe = 0; pe < rt->npes; pe++) {
            int seen = rt->peers[pe].host != rt->peers[0].host;
            for (int q = 0; q < pe && !seen; q++)
                seen = rt->peers[q].host == rt->peers[0].host &&
                       rt->peers[q].cluster == rt->peers[pe].cluster;
            clusters += !seen;
        }
        printf("  host %d: %d cluster%s (PEs sharing a last-level cache)\n", rt->peers[0].host,
               clusters, clusters == 1 ? "" : "s");
        printf("  PE 0's machine: %d PEs share its %ld CPUs (waits spin %llu polls, then "
               "yield %llu times)\n",
               rt->host.machine_size, sysconf(_SC_NPROCESSORS_ONLN),
               (unsigned long long)rt->cfg.spin_count, (unsigned long long)rt->cfg.yield_count);
        int local = 0;
        for (int pe = 0; pe < rt->npes; pe++)
            local += rt->peers[pe].tp == rt->peers[0].tp;
        printf("  PE 0 reaches %d PEs (itself included) through %s", local, rt->peers[0].tp->name);
        if (rt->net != NULL)
            printf(", %d through %s", rt->npes - local, rt->net->name);
        printf("\n");
    }
    fflush(stdout);
    return aos_finalize() == AOS_OK ? 0 : 1;
}

int main(int argc, char **argv)
{
    if (argc > 1 && strcmp(argv[1], "--launch") == 0)
        return show_launch();
    int rc_only = argc > 1 && strcmp(argv[1], "--check-config") == 0;
    printf("aos %s\n", aos_version_string());
    printf("build: transports %s and %s; C11; %s\n", aos__transport_shm.name,
           aos__transport_net.name,
#if defined(__SANITIZE_ADDRESS__)
           "AddressSanitizer"
#elif defined(__SANITIZE_THREAD__)
           "ThreadSanitizer"
#else
           "no sanitizer"
#endif
    );
    printf("configuration (environment variables):\n");
    int rc = aos_config_visit(show_var, NULL);
    if (rc != AOS_OK)
        printf("  error: %s\n", aos_strerror(rc));
    show_other_vars();
    show_bootstrap();
    if (!rc_only)
        show_topology();
    return rc == AOS_OK ? 0 : 1;
}
