#!/bin/sh
# Open MPI's mpirun across the two hosts of the test bed (netns_lib.sh):
# mpirun runs on host A and starts its daemon on each host through the test
# bed's remote shell (plm_rsh_agent, as ssh would be), the PEs bootstrap
# through that daemon's PMIx server and reach the other host's PEs over UCX
# on TCP across the veth link. Nothing the run started may be left.
# Without root, namespaces or Open MPI the test says why and is skipped
# (exit 77).
# usage: netns_mpirun.sh MPIRUN K PROG [ARGS...]   PROG at K PEs per host
#        (mpirun must exit with $AOS_TEST_WANT, 0 when unset, and its stderr
#        match the extended regex $AOS_TEST_STDERR when set)
set -u
want=${AOS_TEST_WANT:-0} pattern=${AOS_TEST_STDERR:-}
MPIRUN=$1 k=$2
shift 2
. "$(dirname "$0")/netns_lib.sh"
command -v "$MPIRUN" >/dev/null 2>&1 || skip "no $MPIRUN (Debian: openmpi-bin)"

export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
# mpirun's own traffic on the link between the hosts only.
export OMPI_MCA_plm_rsh_agent="$RSH" OMPI_MCA_oob_tcp_if_include=$DEV
export OMPI_MCA_btl=self,vader,tcp OMPI_MCA_btl_tcp_if_include=$DEV
export AOS_TEST_HOST_PES=$k # (tests/common/nodes.h)
# The variables that steer aos, UCX and the tests reach every host (-x, as
# they must through a real remote shell), and the tag that marks the run.
forward="-x ${tag%%=*}"
for v in $(env | sed -n 's/^\(\(AOS\|UCX\|SHMEM\|ASAN\|LSAN\|UBSAN\|TSAN\)_[A-Za-z0-9_]*\)=.*/\1/p'); do
    forward="$forward -x $v"
done
start=$(date +%s%N)
# shellcheck disable=SC2086
in_a "$MPIRUN" --host "$nsA:$k,$nsB:$k" -n $((2 * k)) --timeout 200 $forward "$@" \
    >"$out/stdout" 2>"$out/stderr"
got=$?
ms=$(( ($(date +%s%N) - start) / 1000000 ))
cat "$out/stdout"
[ "$got" = "$want" ] || fail "mpirun exited $got, expected $want"
[ -z "$pattern" ] || grep -Eq -e "$pattern" "$out/stderr" || fail "stderr lacks /$pattern/"
# mpirun reports a PE's death itself, and a global exit is no loss.
! grep -q "lost PE" "$out/stderr" || fail "a PE reported a loss"
check_clean mpirun
if [ $fails = 0 ]; then
    echo "ok: mpirun --host $nsA:$k,$nsB:$k $*: status $got in $ms ms"
else
    echo "--- mpirun's stderr:"
    sed 's/^/    /' "$out/stderr"
fi
exit $fails
