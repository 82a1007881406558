#!/bin/sh
# The demonstration: builds aos and runs the 2D heat-diffusion stencil on 4
# PEs (no MPI needed). Writes stencil2d.png in the current directory.
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
sh "$root/scripts/install-deps.sh"
cmake -S "$root" -B "$root/build" -DCMAKE_BUILD_TYPE=Release -DAOS_BUILD_TESTS=OFF >/dev/null
cmake --build "$root/build" -j"$(nproc)" --target aosrun stencil2d aos-info >/dev/null
"$root/build/tools/aosrun" -n 4 "$root/build/examples/stencil2d/stencil2d" 512 1000 stencil2d.png
