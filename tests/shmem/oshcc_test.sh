#!/bin/sh
# Builds a SHMEM program with oshcc and a C++ one with oshc++, runs both
# with oshrun. usage: oshcc_test.sh BINDIR SRCDIR WORKDIR
set -eu
bin=$1 src=$2 work=$3
mkdir -p "$work"
"$bin/oshcc" -std=c11 -Wall -Wextra -Werror -Wno-deprecated-declarations -pthread \
    "$src/examples.c" -o "$work/examples"
"$bin/oshrun" -n 4 --timeout 120 "$work/examples"
cat > "$work/cxx.cc" <<'CXX'
#include <shmem.h>
#include <cstdint>
#include <cstdio>
static long value;
static int ready[3];
#define CHECK(c) do { if (!(c)) { std::printf("C++ PE %d: FAIL %s\n", me, #c); return 1; } } while (0)
int main()
{
    shmem_init();
    int me = shmem_my_pe(), n = shmem_n_pes();
    shmem_long_atomic_add(&value, me + 1, 0);
    shmem_barrier_all();
    CHECK(me != 0 || value == (long)n * (n + 1) / 2);
    CHECK(shmem_sync(SHMEM_TEAM_WORLD) == 0);        /* the 1.5 form: an overload */
    shmem_ctx_quiet(SHMEM_CTX_INVALID);              /* no-ops on an invalid context */
    shmem_ctx_fence(SHMEM_CTX_INVALID);
    char *p = static_cast<char *>(shmem_align(1 << 22, 64));
    CHECK(p != nullptr && reinterpret_cast<std::uintptr_t>(p) % (1 << 22) == 0);
    shmem_free(p);
    for (int i = 0; i < 3; i++)
        ready[i] = 1;
    CHECK(shmem_int_test_any(ready, 3, nullptr, SHMEM_CMP_EQ, 1) == 0);
    CHECK(shmem_int_test_any(ready, 3, nullptr, SHMEM_CMP_EQ, 1) == 1);
    CHECK(shmem_int_wait_until_any(ready, 3, nullptr, SHMEM_CMP_EQ, 1) == 2);
    std::printf("C++ PE %d: ok\n", me);
    shmem_finalize();
    return 0;
}
CXX
"$bin/oshc++" -Wall -Wextra -Werror "$work/cxx.cc" -o "$work/cxx"
"$bin/oshrun" -n 2 --timeout 120 "$work/cxx"
"$bin/oshrun" -n 4 --timeout 120 "$work/cxx"
echo "oshcc, oshc++ and oshrun work"
