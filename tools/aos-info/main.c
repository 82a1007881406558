/* aos-info: version, build options, configuration variables and the machine
 * as aos sees it. */
#include <hwloc.h>
#include <stdio.h>
#include <string.h>

#include "aos.h"

static void show_var(const char *name, const char *value, const char *def, const char *meaning,
                     void *arg)
{
    (void)arg;
    printf("  %-22s = %-8s (default %s)\n      %s\n", name, value, def, meaning);
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
    printf("  nodes:    1 (this machine; more through mpirun in a later release)\n");
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

int main(int argc, char **argv)
{
    int rc_only = argc > 1 && strcmp(argv[1], "--check-config") == 0;
    printf("aos %s\n", aos_version_string());
    printf("build: transports shm; C11; %s\n",
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
    if (!rc_only)
        show_topology();
    return rc == AOS_OK ? 0 : 1;
}
