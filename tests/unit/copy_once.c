/* The copy under puts (arch/copy.h) stores every destination byte exactly
 * once: a peer polling the last word of a put must never see it written a
 * second time.
 *
 * How stores are counted: the destination is write-protected. Each store
 * into it faults (SIGSEGV); the handler opens the pages and sets the trap
 * flag, so the store runs alone and traps (SIGTRAP) right after it. That
 * handler records every byte the store changed from the sentinel, puts the
 * sentinel back (so the next store to that byte is seen too) and protects
 * the pages again. The source never holds the sentinel, so each store of a
 * byte counts once. x86-64 only (the trap flag). */
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <ucontext.h>
#include <unistd.h>

#include "../common/check.h"
#include "arch/copy.h"

#if defined(__x86_64__)

#define SENTINEL 0
#define REGION (80u << 10)
#define TRAP_FLAG 0x100

static unsigned char *region;          /* the protected destination pages */
static unsigned char shadow[REGION];   /* the bytes stored, by offset */
static unsigned char stores[REGION];   /* how many times each was stored */
static volatile uintptr_t fault_page;  /* page of the store being stepped */
static long page;

static void protect(int prot)
{
    if (mprotect(region, REGION, prot) != 0)
        abort();
}

static void on_segv(int sig, siginfo_t *si, void *ctx)
{
    (void)sig;
    uintptr_t a = (uintptr_t)si->si_addr;
    if (a < (uintptr_t)region || a >= (uintptr_t)region + REGION)
        abort(); /* a real crash */
    fault_page = a & ~(uintptr_t)(page - 1);
    protect(PROT_READ | PROT_WRITE);
    ((ucontext_t *)ctx)->uc_mcontext.gregs[REG_EFL] |= TRAP_FLAG;
}

/* One store has run: it may span the faulting page and the next one. */
static void on_trap(int sig, siginfo_t *si, void *ctx)
{
    (void)sig;
    (void)si;
    size_t lo = fault_page - (uintptr_t)region;
    size_t hi = lo + 2 * (size_t)page < REGION ? lo + 2 * (size_t)page : REGION;
    for (size_t i = lo; i < hi; i++) {
        if (region[i] != SENTINEL) {
            shadow[i] = region[i];
            stores[i]++;
            region[i] = SENTINEL;
        }
    }
    ((ucontext_t *)ctx)->uc_mcontext.gregs[REG_EFL] &= ~(long long)TRAP_FLAG;
    protect(PROT_READ);
}

static void check_once(const unsigned char *src, size_t at, size_t n)
{
    memset(region, SENTINEL, REGION);
    memset(stores, 0, sizeof stores);
    protect(PROT_READ);
    aos__copy(region + at, src, n);
    protect(PROT_READ | PROT_WRITE);
    for (size_t i = 0; i < REGION; i++) {
        int inside = i >= at && i < at + n;
        if (stores[i] != inside || (inside && shadow[i] != src[i - at])) {
            fprintf(stderr, "FAIL copy of %zu bytes to +%zu: byte %zu stored %d times%s\n", n,
                    at, i - at, stores[i],
                    inside && stores[i] == 1 ? " with the wrong value" : "");
            exit(1);
        }
    }
}

int main(void)
{
    aos__copy_init();
    page = sysconf(_SC_PAGESIZE);
    region = mmap(NULL, REGION, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    CHECK(region != MAP_FAILED);
    unsigned char *src = malloc(REGION);
    CHECK(src != NULL);
    for (size_t i = 0; i < REGION; i++)
        src[i] = (unsigned char)(1 + i % 251); /* never the sentinel */

    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_flags = SA_SIGINFO;
    sa.sa_sigaction = on_segv;
    CHECK(sigaction(SIGSEGV, &sa, NULL) == 0);
    sa.sa_sigaction = on_trap;
    CHECK(sigaction(SIGTRAP, &sa, NULL) == 0);

    /* Small pieces, the vector loop (multiples of 128 and 256 among them:
     * the sizes whose tail stores overlapped), aliased and unaliased copies
     * past the loop's range. */
    static const size_t sizes[] = {1,   3,    8,    15,   16,    24,    31,    33,   64,
                                   100, 255,  256,  257,  384,   512,   640,   1024, 1152,
                                   4096, 4224, 8192, 16384, 32640, 32768, 32769, 40000};
    static const size_t offsets[] = {0, 1, 8, 24, 63};
    for (size_t s = 0; s < sizeof sizes / sizeof *sizes; s++)
        for (size_t o = 0; o < sizeof offsets / sizeof *offsets; o++)
            if (sizes[s] <= AOS__COPY_WIDE_MAX || o < 2) /* each byte past it traps */
                check_once(src + 32, offsets[o], sizes[s]);
    /* past the loop's range, destination 16 bytes ahead of the source
     * modulo a page (the loop again) */
    unsigned char *src_al = (unsigned char *)(((uintptr_t)src + page - 1) & ~(uintptr_t)(page - 1));
    check_once(src_al, 16, 36000);
    free(src);
    printf("copy_once: every destination byte stored exactly once\n");
    return 0;
}

#else
int main(void)
{
    printf("copy_once: needs x86-64's trap flag; skipped\n");
    return 0;
}
#endif
