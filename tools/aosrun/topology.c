#include <stdio.h>
#include <stdlib.h>

#include "aosrun.h"

/* The deepest cache level that still holds more than one core, or the
 * highest cache: the "cluster" of DESIGN.md. */
static hwloc_obj_type_t last_level_cache(hwloc_topology_t topo)
{
    static const hwloc_obj_type_t levels[] = {HWLOC_OBJ_L3CACHE, HWLOC_OBJ_L2CACHE,
                                              HWLOC_OBJ_L1CACHE};
    for (size_t i = 0; i < sizeof levels / sizeof levels[0]; i++)
        if (hwloc_get_nbobjs_by_type(topo, levels[i]) > 0)
            return levels[i];
    return HWLOC_OBJ_PACKAGE;
}

int aosrun_topology_plan(struct aosrun_topology *t, enum aosrun_bind bind, int npes)
{
    t->npes = npes;
    t->place = calloc((size_t)npes, sizeof *t->place);
    if (t->place == NULL)
        return -1;
    if (hwloc_topology_init(&t->topo) != 0 || hwloc_topology_load(t->topo) != 0) {
        fprintf(stderr, "aosrun: hwloc cannot read this machine's topology\n");
        return -1;
    }
    int ncores = hwloc_get_nbobjs_by_type(t->topo, HWLOC_OBJ_CORE);
    hwloc_obj_type_t llc = last_level_cache(t->topo);
    int nclusters = hwloc_get_nbobjs_by_type(t->topo, llc);
    for (int pe = 0; pe < npes; pe++) {
        struct aosrun_placement *p = &t->place[pe];
        p->cluster = -1;
        p->cpuset = NULL;
        if (bind == AOSRUN_BIND_NONE || ncores <= 0)
            continue;
        /* Consecutive PEs on consecutive cores (or clusters), wrapping when
         * there are more PEs than cores. */
        hwloc_obj_t core = hwloc_get_obj_by_type(t->topo, HWLOC_OBJ_CORE, (unsigned)(pe % ncores));
        hwloc_obj_t cache = hwloc_get_ancestor_obj_by_type(t->topo, llc, core);
        if (bind == AOSRUN_BIND_CLUSTER && nclusters > 0) {
            cache = hwloc_get_obj_by_type(t->topo, llc, (unsigned)(pe % nclusters));
            p->cpuset = hwloc_bitmap_dup(cache->cpuset);
        } else {
            p->cpuset = hwloc_bitmap_dup(core->cpuset);
        }
        p->cluster = cache != NULL ? (int)cache->logical_index : 0;
    }
    return 0;
}

void aosrun_topology_bind(const struct aosrun_topology *t, int rank)
{
    const struct aosrun_placement *p = &t->place[rank];
    if (p->cpuset == NULL)
        return;
    if (hwloc_set_cpubind(t->topo, p->cpuset, HWLOC_CPUBIND_PROCESS) != 0)
        fprintf(stderr, "aosrun: PE %d: binding failed; running unbound\n", rank);
}

void aosrun_topology_free(struct aosrun_topology *t)
{
    if (t->place != NULL)
        for (int pe = 0; pe < t->npes; pe++)
            if (t->place[pe].cpuset != NULL)
                hwloc_bitmap_free(t->place[pe].cpuset);
    free(t->place);
    t->place = NULL;
    if (t->topo != NULL)
        hwloc_topology_destroy(t->topo);
    t->topo = NULL;
}
