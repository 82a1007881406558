/* The cluster (DESIGN.md: the cores sharing the last-level cache) a PE was
 * bound to by a launcher that does not tell us (srun --cpu-bind, mpirun
 * --bind-to), read from its own CPU affinity and the kernel's cache
 * description in sysfs. aosrun binds PEs itself and says which cluster. */
#ifndef AOS_CORE_BOOT_CACHE_DOMAIN_H
#define AOS_CORE_BOOT_CACHE_DOMAIN_H

#include <sched.h> /* cpu_set_t (_GNU_SOURCE: CMakeLists.txt) */

/* The CPUs in a kernel CPU list ("0-3,8,10-11\n") into *set. -1 when the
 * text is not such a list (nothing else changes then), 0 otherwise. */
int aos__cpulist_parse(const char *text, cpu_set_t *set);

/* The cluster of a process allowed on the CPUs in *allowed, as seen under
 * cpu_dir (/sys/devices/system/cpu): 1 + the lowest CPU of the
 * last-level cache that holds every allowed CPU, or 0 when they span
 * several such caches or sysfs does not say. */
int aos__cache_domain_of(const char *cpu_dir, const cpu_set_t *allowed);

/* The same for this process's own affinity and the real sysfs. */
int aos__cache_domain_mine(void);

#endif
