/* Symmetric static data: the writable data pages of the main program are
 * moved into the arena at start-up (copy, then map the arena over the same
 * addresses), so a global's address names the same variable on every PE. */
#include <link.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "mem/memory.h"

struct range {
    uintptr_t lo, hi;
};

struct main_program {
    struct range data;  /* writable PT_LOAD segments */
    uintptr_t relro_hi; /* end of the RELRO region (GOT, .data.rel.ro), or 0 */
};

static int find_main_program(struct dl_phdr_info *info, size_t size, void *arg)
{
    (void)size;
    struct main_program *mp = arg;
    struct range *r = &mp->data;
    /* The first object reported is the main program. */
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        if (ph->p_type == PT_GNU_RELRO) {
            mp->relro_hi = info->dlpi_addr + ph->p_vaddr + ph->p_memsz;
            continue;
        }
        if (ph->p_type != PT_LOAD || (ph->p_flags & PF_W) == 0)
            continue;
        uintptr_t lo = info->dlpi_addr + ph->p_vaddr;
        uintptr_t hi = lo + ph->p_memsz;
        if (r->lo == 0 || lo < r->lo)
            r->lo = lo;
        if (hi > r->hi)
            r->hi = hi;
    }
    return 1; /* stop after the main program */
}

void aos__static_data_range(uintptr_t *lo, uint64_t *len)
{
    struct main_program mp = {{0, 0}, 0};
    dl_iterate_phdr(find_main_program, &mp);
    uintptr_t page = (uintptr_t)aos__rt.page_size;
    /* The RELRO part of the writable segment (GOT, .data.rel.ro) is made
     * read-only by the dynamic linker once relocated: it stays private and
     * read-only, out of the symmetric range. Like the dynamic linker, round
     * its end down: a page it shares with .data stays writable, and so
     * symmetric. */
    uintptr_t start = mp.data.lo & ~(page - 1);
    if ((mp.relro_hi & ~(page - 1)) > start)
        start = mp.relro_hi & ~(page - 1);
    uintptr_t end = (mp.data.hi + page - 1) & ~(page - 1);
    if (mp.data.hi <= mp.data.lo || end <= start) {
        *lo = 0;
        *len = 0;
        return;
    }
    *lo = start;
    *len = end - start;
}

/* Copies the pages of [src, src+len) that hold anything but zeros into dst,
 * which must be zero already (a fresh arena range). A zero page is only
 * read: an untouched private page reads through the kernel's shared zero
 * page and costs no memory, so a large zero .bss stays uncommitted on every
 * PE. The pages may hold sanitizer redzones (between globals, around heap
 * blocks): every byte is program memory we move, so the copy must not be
 * instrumented. len and page are multiples of 8 (whole pages). */
__attribute__((no_sanitize("address", "thread", "undefined"))) static void
copy_data_pages(void *dst, const void *src, size_t len, size_t page)
{
    /* volatile: keep the compiler from calling memcpy or memcmp */
    volatile uint64_t *d = dst;
    const volatile uint64_t *s = src;
    const size_t words = page / 8;
    for (size_t at = 0; at < len / 8; at += words) {
        size_t i = 0;
        while (i < words && s[at + i] == 0)
            i++;
        for (; i < words; i++) /* from the first non-zero word on */
            d[at + i] = s[at + i];
    }
}

/* The reverse move into fresh private memory: every page is copied. */
__attribute__((no_sanitize("address", "thread", "undefined"))) static void
copy_pages(void *dst, const void *src, size_t len)
{
    volatile uint64_t *d = dst; /* volatile: keep the compiler from calling memcpy */
    const volatile uint64_t *s = src;
    for (size_t i = 0; i < len / 8; i++)
        d[i] = s[i];
}

int aos__remap_into_arena(struct aos__runtime *rt, uintptr_t lo, uintptr_t hi,
                          uint64_t arena_off)
{
    size_t len = hi - lo;
    /* Copy first: between the copy and the map nothing writes these pages
     * (start-up, or a buffer the caller hands over). The arena range is
     * zero (a fresh memfd, or segment space whose pages were punched out at
     * destroy), so zero pages need no copy. */
    copy_data_pages(rt->my_base + arena_off, (void *)lo, len, rt->page_size);
    /* A second view of my arena's pages, made from my own mapping (mremap
     * with old size 0 duplicates a shared mapping): no descriptor is needed,
     * so the memfd is closed once the PEs have it, and nothing the program
     * does with its descriptors can make this map another file. The system
     * call itself: UCX's memory hooks replace mremap with a version that
     * drops the new address. */
    long p = syscall(SYS_mremap, rt->my_base + arena_off, 0UL, len,
                     MREMAP_MAYMOVE | MREMAP_FIXED, (void *)lo);
    return p == -1 || (uintptr_t)p != lo ? AOS_ERR_SYSTEM : AOS_OK;
}

int aos__remap_out_of_arena(struct aos__runtime *rt, uintptr_t lo, uintptr_t hi,
                            uint64_t arena_off)
{
    size_t len = hi - lo;
    void *p = mmap((void *)lo, len, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
    if (p == MAP_FAILED)
        return AOS_ERR_SYSTEM;
    copy_pages((void *)lo, rt->my_base + arena_off, len);
    return AOS_OK;
}
