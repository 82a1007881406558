#!/bin/sh
# The whole test suite, on a fresh Debian machine: installs what is missing,
# then builds and tests aos three times:
#   build-test/        gcc, -Werror, every test (unit, multi-PE at 1-16 PEs, launcher,
#                      OpenSHMEM; off-node over UCX between pseudo-nodes; as root,
#                      two hosts made of network namespaces; PMIx under Open MPI's
#                      mpirun), then shmem4py (from PyPI) built with its oshcc
#   build-test-asan/   AddressSanitizer + UndefinedBehaviorSanitizer, multi-PE tests
#   build-test-tsan/   ThreadSanitizer, multi-PE tests
# (the sanitizer runs up to 8 PEs a job; 16 PEs on a machine of 2 CPUs
# took them minutes per test, and the gcc run has those variants)
# and checks that clang builds it warning-free. Exits non-zero on any failure.
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
sh "$root/scripts/install-deps.sh"
jobs=$(nproc)

configure_build() { # dir, extra cmake args...
    dir=$1
    shift
    cmake -S "$root" -B "$root/$dir" -DAOS_WERROR=ON "$@" >/dev/null
    cmake --build "$root/$dir" -j"$jobs" >/dev/null
}

echo "== clang, -Werror (build only)"
configure_build build-test-clang -DCMAKE_C_COMPILER=clang -DAOS_BUILD_TESTS=ON

echo "== gcc, -Werror: all tests"
configure_build build-test -DCMAKE_C_COMPILER=gcc
ctest --test-dir "$root/build-test" -j"$jobs" --output-on-failure

echo "== shmem4py built with oshcc: its demos and tests on aos"
sh "$root/scripts/shmem4py.sh" "$root/build-test"

echo "== AddressSanitizer + UBSan: multi-PE tests"
configure_build build-test-asan -DCMAKE_C_COMPILER=gcc -DAOS_SANITIZE=address -DCMAKE_BUILD_TYPE=Debug
ctest --test-dir "$root/build-test-asan" -j"$jobs" -L mp -E '_np16$' --output-on-failure

echo "== ThreadSanitizer: multi-PE tests"
configure_build build-test-tsan -DCMAKE_C_COMPILER=gcc -DAOS_SANITIZE=thread
ctest --test-dir "$root/build-test-tsan" -j"$jobs" -L mp -E '_np16$' --output-on-failure

echo "== all test builds passed"
