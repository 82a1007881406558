#!/bin/sh
# Runs an aos program under Open MPI's mpirun (PMIx start-up), isolated: its
# own TMPDIR (Open MPI's session directory and the PMIx server's files go
# under it), a tag in the environment of everything the run starts, and
# afterwards no process of the run may be left (any that is, is killed by
# pid and the test fails).
# usage: run.sh MPIRUN NP STATUS STDERR_PATTERN PROG [ARGS...]
#   STATUS          the exit status expected of mpirun: a number or "nonzero"
#   STDERR_PATTERN  an extended regex mpirun's stderr must match ("" for none)
#   AOS_TEST_STDERR_NOT  (environment) an extended regex it must not match
# AOS_*, UCX_*, SHMEM_* and the sanitizers' variables reach the PEs (with
# -x, as they would on other hosts).
set -u
MPIRUN=$1 NP=$2 WANT=$3 PATTERN=$4
shift 4
out=$(mktemp -d "${TMPDIR:-/tmp}/pmix-test.XXXXXX") || exit 1
mkdir "$out/tmp"
export TMPDIR="$out/tmp"
tag="AOS_PMIX_TEST_TAG=$out"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
# Nothing leaves the machine: mpirun's own out-of-band traffic on the
# loopback device, no remote-shell agent, MPI's byte transfers (unused by
# aos) on shared memory.
export OMPI_MCA_oob_tcp_if_include=lo OMPI_MCA_plm_rsh_agent=false OMPI_MCA_btl=self,vader
forward=""
for v in $(env | sed -n 's/^\(\(AOS\|UCX\|SHMEM\|ASAN\|LSAN\|UBSAN\|TSAN\)_[A-Za-z0-9_]*\)=.*/\1/p'); do
    forward="$forward -x $v"
done
# shellcheck disable=SC2086
env "$tag" "$MPIRUN" --oversubscribe --timeout 240 -n "$NP" -x AOS_PMIX_TEST_TAG $forward \
    "$@" >"$out/stdout" 2>"$out/stderr"
got=$?
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
cat "$out/stdout"
case $WANT in
nonzero) [ "$got" != 0 ] || fail "mpirun exited 0, expected a failure" ;;
*) [ "$got" = "$WANT" ] || fail "mpirun exited $got, expected $WANT" ;;
esac
if [ -n "$PATTERN" ] && ! grep -Eq -e "$PATTERN" "$out/stderr"; then
    fail "stderr lacks /$PATTERN/"
fi
if [ -n "${AOS_TEST_STDERR_NOT:-}" ] && grep -Eq -e "$AOS_TEST_STDERR_NOT" "$out/stderr"; then
    fail "stderr has /$AOS_TEST_STDERR_NOT/"
fi
# Zombies have no environment and only wait for a reaper: live ones count.
left=$(grep -lsxzF "$tag" /proc/[0-9]*/environ | sed 's|^/proc/\([0-9]*\)/environ$|\1|')
if [ -n "$left" ]; then
    fail "processes of the run survive: $left"
    for pid in $left; do kill -KILL "$pid" 2>/dev/null; done
fi
if [ "$fails" != 0 ]; then
    echo "--- stderr:"
    sed 's/^/    /' "$out/stderr"
else
    echo "ok: mpirun -n $NP $*: status $got"
fi
rm -rf "$out"
exit "$fails"
