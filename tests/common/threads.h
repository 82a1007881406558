/* Runs fn on n threads at once (the argument is the thread's number,
 * 0 .. n-1, as an intptr_t) and returns when all have ended. */
#ifndef AOS_TEST_THREADS_H
#define AOS_TEST_THREADS_H

#include <pthread.h>
#include <stdint.h>

#include "check.h"

#define TEST_THREADS_MAX 64

static inline void test_run_threads(int n, void *(*fn)(void *))
{
    pthread_t th[TEST_THREADS_MAX];
    CHECK(n > 0 && n <= TEST_THREADS_MAX);
    for (int t = 0; t < n; t++)
        CHECK(pthread_create(&th[t], NULL, fn, (void *)(intptr_t)t) == 0);
    for (int t = 0; t < n; t++)
        CHECK(pthread_join(th[t], NULL) == 0);
}

#endif
