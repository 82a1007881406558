/* Futex wait/wake on 32-bit words in memory shared between processes (so not
 * the FUTEX_PRIVATE variants). */
#ifndef AOS_ARCH_FUTEX_H
#define AOS_ARCH_FUTEX_H

#include <linux/futex.h>
#include <stdint.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

/* Sleeps while *word == expected, at most timeout_ns. Spurious returns are
 * fine: callers re-check their condition. */
static inline void aos__futex_wait(uint32_t *word, uint32_t expected, uint64_t timeout_ns)
{
    struct timespec ts = {.tv_sec = (time_t)(timeout_ns / 1000000000u),
                          .tv_nsec = (long)(timeout_ns % 1000000000u)};
    (void)syscall(SYS_futex, word, FUTEX_WAIT, expected, &ts, NULL, 0);
}

static inline void aos__futex_wake_all(uint32_t *word)
{
    (void)syscall(SYS_futex, word, FUTEX_WAKE, INT32_MAX, NULL, NULL, 0);
}

static inline void aos__futex_wake_one(uint32_t *word)
{
    (void)syscall(SYS_futex, word, FUTEX_WAKE, 1, NULL, NULL, 0);
}

#endif
