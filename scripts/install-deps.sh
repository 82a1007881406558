#!/bin/sh
# Installs the Debian packages aos needs, only those missing.
# usage: scripts/install-deps.sh [--mpi]   (--mpi is accepted and changes nothing
# now: Open MPI is in the default list)
# libucx-dev is the network transport between nodes; libpmix-dev lets
# mpirun and srun --mpi=pmix start aos programs; openmpi-bin and
# libopenmpi-dev are the mpirun the PMIx tests launch with and the MPI the
# benchmarks compare against; iproute2 and util-linux (nsenter, unshare)
# build the two-host test bed of network namespaces, where slurm-wlm
# (slurmctld, slurmd, srun and the PMIx plugin) runs a two-node Slurm; g++ builds the C++
# check of shmem.h; python3-venv and python3-dev build shmem4py against oshcc.
set -eu
pkgs="cmake make gcc g++ clang pkg-config libhwloc-dev libucx-dev libpmix-dev openmpi-bin libopenmpi-dev python3 python3-venv python3-dev iproute2 util-linux slurm-wlm"
missing=""
for p in $pkgs; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"
done
[ -z "$missing" ] && exit 0
echo "installing:$missing"
SUDO=""
[ "$(id -u)" = 0 ] || SUDO="sudo"
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -q
$SUDO apt-get install -y -q --no-install-recommends $missing
