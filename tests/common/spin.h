/* Computing without aos: spins on the clock for about us microseconds. */
#ifndef AOS_TEST_SPIN_H
#define AOS_TEST_SPIN_H

#include <time.h>

static inline void spin_us(long us)
{
    struct timespec a, b;
    clock_gettime(CLOCK_MONOTONIC, &a);
    do
        clock_gettime(CLOCK_MONOTONIC, &b);
    while ((b.tv_sec - a.tv_sec) * 1000000L + (b.tv_nsec - a.tv_nsec) / 1000 < us);
}

#endif
