#!/bin/sh
# Installs aos into a temporary prefix and uses it as a user would, with no
# LD_LIBRARY_PATH: a consumer built with find_package(aos), one with
# pkg-config (shared and --static), the installed tools, an OpenSHMEM hello
# world built with the installed oshcc/oshc++ under --as-needed and started
# with oshrun, and the installed examples built with their own CMakeLists.
# usage: install_test.sh BUILD_DIR SOURCE_DIR
set -eu
build=$1
src=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
prefix=$tmp/prefix
unset LD_LIBRARY_PATH
cmake --install "$build" --prefix "$prefix" >/dev/null
libdir=$(dirname "$(find "$prefix" -name libaos.so | head -n 1)")

# find_package: CMake records the prefix's library directory itself.
cmake -S "$src/tests/install/consumer" -B "$tmp/cm" -DCMAKE_PREFIX_PATH="$prefix" >/dev/null
cmake --build "$tmp/cm" >/dev/null
"$tmp/cm/consumer"

# pkg-config, shared (the user sets the library path) and static (needs
# every private dependency: -lm for the model's log2, -lpthread).
export PKG_CONFIG_PATH="$libdir/pkgconfig"
cc "$src/tests/install/consumer/main.c" $(pkg-config --cflags --libs aos) -o "$tmp/pc_consumer"
LD_LIBRARY_PATH="$libdir" "$tmp/pc_consumer"
static_libs=$(pkg-config --static --libs aos | sed 's/-laos\b/-l:libaos.a/')
cc "$src/tests/install/consumer/main.c" $(pkg-config --cflags aos) $static_libs -o "$tmp/static_consumer"
if readelf -d "$tmp/static_consumer" | grep -q 'libaos\.so'; then
    echo "FAIL: the static consumer needs libaos.so"
    exit 1
fi
"$tmp/static_consumer"

# Every installed binary and library finds its libraries from the prefix.
for f in "$prefix"/bin/* "$libdir"/libaos*.so; do
    if file -L "$f" | grep -q ELF && ldd "$f" | grep -q 'not found'; then
        echo "FAIL: $f does not find its libraries:"
        ldd "$f"
        exit 1
    fi
done
"$prefix/bin/aos-info" >/dev/null
"$prefix/bin/aosrun" -n 2 --timeout 60 "$prefix/bin/aos-info" >/dev/null

# An OpenSHMEM hello world that calls no inline routine, linked --as-needed
# (as Debian's gcc does), in C and in C++.
cat >"$tmp/hello.c" <<'EOF'
#include <shmem.h>
#include <stdio.h>
int main(void)
{
    shmem_init();
    printf("hello from PE %d of %d\n", shmem_my_pe(), shmem_n_pes());
    shmem_finalize();
    return 0;
}
EOF
cp "$tmp/hello.c" "$tmp/hello.cc"
"$prefix/bin/oshcc" -Wl,--as-needed "$tmp/hello.c" -o "$tmp/hello"
"$prefix/bin/oshc++" -Wl,--as-needed "$tmp/hello.cc" -o "$tmp/hello_cxx"
for prog in hello hello_cxx; do
    out=$("$prefix/bin/oshrun" -n 2 --timeout 60 "$tmp/$prog" | sort)
    if [ "$out" != "$(printf 'hello from PE 0 of 2\nhello from PE 1 of 2')" ]; then
        echo "FAIL: $prog printed: $out"
        exit 1
    fi
done

# The installed examples, built against the installed package; each checks
# its own results.
examples=$prefix/share/aos/examples
cmake -S "$examples" -B "$tmp/ex" -DCMAKE_PREFIX_PATH="$prefix" >/dev/null
cmake --build "$tmp/ex" >/dev/null
run="$prefix/bin/aosrun --timeout 120"
$run -n 2 "$tmp/ex/kvstore/kvstore" 2000 >/dev/null
$run -n 3 "$tmp/ex/taskfarm/taskfarm" 30000 500 >/dev/null
$run -n 4 "$tmp/ex/stencil2d/stencil2d" 64 20 "$tmp/heat.png" >/dev/null
test -s "$tmp/heat.png"
echo "install test passed"
