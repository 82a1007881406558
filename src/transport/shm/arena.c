/* Arenas live in anonymous memory files (memfd): nothing appears in /dev/shm
 * or /tmp, and the memory is gone when the last PE holding a mapping exits,
 * however the job ends. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "arch/atomics.h"
#include "core/runtime.h"
#include "transport/shm/shm.h"

static void *map_arena(int fd, uint64_t size)
{
    void *p = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_NORESERVE, fd, 0);
    return p == MAP_FAILED ? NULL : p;
}

/* My own arena starts at a multiple of AOS_ALIGN_MAX: the heap's offsets
 * are aligned within the arena, so aos_align's addresses are aligned too,
 * on every PE alike. Reserves the size and the alignment's slack, maps the
 * arena over the aligned part and gives back the rest. */
static void *map_arena_aligned(int fd, uint64_t size)
{
    const uintptr_t align = AOS_ALIGN_MAX;
    char *r = mmap(NULL, size + align, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE,
                   -1, 0);
    if (r == MAP_FAILED)
        return NULL;
    char *base = (char *)(((uintptr_t)r + align - 1) & ~(align - 1));
    void *p = mmap(base, size, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_NORESERVE | MAP_FIXED,
                   fd, 0);
    if (p == MAP_FAILED) {
        munmap(r, size + align);
        return NULL;
    }
    if (base > r)
        munmap(r, (size_t)(base - r));
    if (r + align > base)
        munmap(base + size, (size_t)(r + align - base));
    return base;
}

int aos__shm_arena_create(struct aos__runtime *rt)
{
    int fd = memfd_create("aos-arena", MFD_CLOEXEC);
    if (fd < 0)
        return AOS_ERR_SYSTEM;
    if (ftruncate(fd, (off_t)rt->arena_size) != 0) {
        close(fd);
        return AOS_ERR_NO_MEMORY;
    }
    char *base = map_arena_aligned(fd, rt->arena_size);
    if (base == NULL) {
        fprintf(stderr,
                "aos: PE %d: cannot reserve %llu GiB of address space for its memory "
                "(AOS_HEAP_SIZE + AOS_SEGMENT_SPACE; limited by ulimit -v?): %s\n",
                rt->me, (unsigned long long)(rt->arena_size >> 30), strerror(errno));
        close(fd);
        return AOS_ERR_NO_MEMORY;
    }
    struct aos__arena_header *h = (struct aos__arena_header *)(void *)base;
    h->arena_size = rt->arena_size;
    h->rank = (uint32_t)rt->me;
    h->pid = (uint32_t)getpid();
    /* Release: peers check magic with acquire before trusting the header. */
    aos__store_release(&h->magic, AOS__ARENA_MAGIC);
    rt->arena_fd = fd;
    rt->my_base = base;
    rt->peers[rt->me].base = base;
    rt->peers[rt->me].header = h;
    return AOS_OK;
}

int aos__shm_arena_map_peer(struct aos__runtime *rt, int pe, int fd)
{
    char *base = map_arena(fd, rt->arena_size);
    if (base == NULL)
        return AOS_ERR_NO_MEMORY;
    struct aos__arena_header *h = (struct aos__arena_header *)(void *)base;
    /* Acquire: pairs with the release store of magic in aos__shm_arena_create. */
    if (aos__load_acquire(&h->magic) != AOS__ARENA_MAGIC || h->rank != (uint32_t)pe ||
        h->arena_size != rt->arena_size) {
        munmap(base, rt->arena_size);
        return AOS_ERR_BOOTSTRAP;
    }
    rt->peers[pe].base = base;
    rt->peers[pe].header = h;
    return AOS_OK;
}

void aos__shm_arena_destroy(struct aos__runtime *rt)
{
    for (int pe = 0; pe < rt->npes; pe++) {
        if (rt->peers[pe].base != NULL)
            munmap(rt->peers[pe].base, rt->arena_size);
        rt->peers[pe].base = NULL;
        rt->peers[pe].header = NULL;
    }
    rt->my_base = NULL;
    if (rt->arena_fd >= 0)
        close(rt->arena_fd);
    rt->arena_fd = -1;
}
