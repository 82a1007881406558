/* Symmetric heap: aos's, whose size SHMEM_SYMMETRIC_SIZE sets. Allocation
 * is collective; aos returns NULL on every PE when one cannot allocate. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "shmem/shmem_internal.h"

/* Says why an allocation failed when the heap's size is the reason (aos
 * says what is wrong itself when the arguments are). */
static void *checked(const char *fn, void *p, size_t size)
{
    if (p == NULL && size != 0 && errno == ENOMEM && shmem__st.initialized) {
        const char *env = getenv("SHMEM_SYMMETRIC_SIZE");
        fprintf(stderr, "shmem: PE %d: %s(%zu bytes) failed: the symmetric heap is "
                        "exhausted (SHMEM_SYMMETRIC_SIZE=%s); set SHMEM_SYMMETRIC_SIZE "
                        "larger, e.g. SHMEM_SYMMETRIC_SIZE=64G (only touched pages use "
                        "memory)\n",
                shmem__st.me, fn, size, env != NULL ? env : "unset, 32G");
    }
    return p;
}

/* The specification wants a barrier around each allocation (the object is
 * usable everywhere on return): aos's allocation routines end with one,
 * and aos_free and aos_realloc start with an exchange every PE enters. */
void *shmem_malloc(size_t size)
{
    if (!shmem__st.initialized)
        return NULL;
    shmem__quiet("shmem_malloc");
    return checked("shmem_malloc", aos_malloc(size), size);
}

void *shmem_malloc_with_hints(size_t size, long hints)
{
    (void)hints; /* every symmetric object serves atomics and signals alike */
    return shmem_malloc(size);
}

void *shmem_calloc(size_t count, size_t size)
{
    if (!shmem__st.initialized)
        return NULL;
    shmem__quiet("shmem_calloc");
    if (count != 0 && size > SIZE_MAX / count)
        fprintf(stderr, "shmem: PE %d: shmem_calloc(%zu, %zu): count * size does not fit a "
                        "size_t\n",
                shmem__st.me, count, size);
    return checked("shmem_calloc", aos_calloc(count, size), count * size);
}

void *shmem_align(size_t alignment, size_t size)
{
    if (!shmem__st.initialized)
        return NULL;
    shmem__quiet("shmem_align");
    void *p = aos_align(alignment, size);
    if (p == NULL && (alignment == 0 || (alignment & (alignment - 1)) != 0 ||
                      alignment > AOS_ALIGN_MAX)) {
        fprintf(stderr, "shmem: PE %d: shmem_align(%zu, %zu): the alignment must be a power "
                        "of two up to %zu\n",
                shmem__st.me, alignment, size, (size_t)AOS_ALIGN_MAX);
        return NULL; /* (the heap is not the reason) */
    }
    return checked("shmem_align", p, size);
}

void *shmem_realloc(void *ptr, size_t size)
{
    if (!shmem__st.initialized)
        return NULL;
    shmem__quiet("shmem_realloc");
    return checked("shmem_realloc", aos_realloc(ptr, size), size);
}

void shmem_free(void *ptr)
{
    if (!shmem__st.initialized)
        return;
    shmem__quiet("shmem_free");
    /* A pointer that is not a live heap block (a double free) ends the job,
     * as errors in routines without a status do. */
    SHMEM__TRY("shmem_free", aos_free(ptr));
}

void *shmalloc(size_t size)
{
    return shmem_malloc(size);
}

void *shmemalign(size_t alignment, size_t size)
{
    return shmem_align(alignment, size);
}

void *shrealloc(void *ptr, size_t size)
{
    return shmem_realloc(ptr, size);
}

void shfree(void *ptr)
{
    shmem_free(ptr);
}
