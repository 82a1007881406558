/* CPU pause for spin loops and a monotonic nanosecond clock. */
#ifndef AOS_ARCH_CPU_H
#define AOS_ARCH_CPU_H

#include <stdint.h>
#include <time.h>

static inline void aos__cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#elif defined(__aarch64__)
    __asm__ __volatile__("yield" ::: "memory");
#else
    __asm__ __volatile__("" ::: "memory");
#endif
}

static inline uint64_t aos__now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* Milliseconds from now until deadline (aos__now_ns's clock), rounded up so
 * that a wait that long ends past it; 0 once it has passed. */
static inline uint64_t aos__ms_left(uint64_t deadline)
{
    uint64_t now = aos__now_ns();
    return deadline > now ? (deadline - now + 999999u) / 1000000u : 0;
}

#endif
