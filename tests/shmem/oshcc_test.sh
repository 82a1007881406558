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
#include <cstdio>
static long value;
int main()
{
    shmem_init();
    int me = shmem_my_pe(), n = shmem_n_pes();
    shmem_long_atomic_add(&value, me + 1, 0);
    shmem_barrier_all();
    int ok = me != 0 || value == (long)n * (n + 1) / 2;
    std::printf("C++ PE %d: %s\n", me, ok ? "ok" : "wrong");
    shmem_finalize();
    return ok ? 0 : 1;
}
CXX
"$bin/oshc++" -Wall -Wextra -Werror "$work/cxx.cc" -o "$work/cxx"
"$bin/oshrun" -n 3 --timeout 120 "$work/cxx"
echo "oshcc, oshc++ and oshrun work"
