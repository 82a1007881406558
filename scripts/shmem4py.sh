#!/bin/sh
# Builds shmem4py (OpenSHMEM for Python, from PyPI) against aos's oshcc and
# runs its examples and its own test suite on aos.
#   usage: sh scripts/shmem4py.sh BUILD_DIR      (a configured and built tree)
# Everything goes under BUILD_DIR/shmem4py: a virtual environment with cffi
# and NumPy 1.x (shmem4py 1.0.0 predates NumPy 2's copy semantics), the
# package built with BUILD_DIR/bin/oshcc, then demos at 4 PEs and the test
# suite at 2 and 3 PEs through oshrun. shmem4py recognises implementations by
# name; aos provides the whole 1.5 API, so it is built with the configuration
# shmem4py keeps for such a complete implementation (PySHMEM_VENDOR_Sandia).
set -eu
build=$(cd "$1" && pwd)
work=$build/shmem4py
mkdir -p "$work/tmp"
export TMPDIR="$work/tmp" # pip's scratch stays here, not in /tmp
venv=$work/venv
if [ ! -x "$venv/bin/python" ]; then
    python3 -m venv "$venv"
fi
"$venv/bin/pip" install -q --retries 5 cffi "numpy<2" setuptools wheel
if [ ! -d "$work/src" ]; then
    "$venv/bin/pip" download -q --retries 5 --no-deps --no-binary :all: -d "$work" \
        "shmem4py==1.0.0"
    tar -xzf "$work/shmem4py-1.0.0.tar.gz" -C "$work"
    mv "$work/shmem4py-1.0.0" "$work/src"
fi
(cd "$work/src" && rm -rf build &&
    OSHCC="$build/bin/oshcc" CFLAGS="-DPySHMEM_VENDOR_Sandia=1" \
        "$venv/bin/pip" install -q --no-build-isolation --no-deps --force-reinstall .)
run() { "$build/bin/oshrun" --timeout 300 "$@"; }
cd "$work/src/demo"
for demo in hello alltoall broadcast collect fcollect lock lock_oo pi ping race_winner \
    rotget rotput; do
    run -n 4 "$venv/bin/python" "$demo.py" >"$work/demo-$demo.log" 2>&1 ||
        { cat "$work/demo-$demo.log"; echo "shmem4py demo $demo failed"; exit 1; }
done
cd "$work/src"
for np in 2 3; do
    run -n "$np" "$venv/bin/python" -m unittest discover -s test -q >"$work/test-np$np.log" 2>&1 ||
        { tail -40 "$work/test-np$np.log"; echo "shmem4py tests failed at $np PEs"; exit 1; }
done
echo "shmem4py: 12 demos at 4 PEs and its test suite at 2 and 3 PEs passed on aos"
