#!/bin/sh
# The Slurm tier of the two-host test bed: a slurmctld and one slurmd per
# "host" (network namespace, netns_lib.sh), authentication off
# (auth/none: no munge, no systemd), and jobs started with
# `srun -N 2 --mpi=pmix`, so the PEs bootstrap through Slurm's PMIx server
# and reach the other host's PEs over UCX on TCP across the veth link.
# Every daemon is started here, stopped by PID at the end and killed if it
# will not stop, even when a test fails. Without root, namespaces, Slurm or
# its PMIx plugin the test says why and is skipped (exit 77).
#
# usage: netns_slurm.sh run "K..." PROG [ARGS...]  PROG at K PEs per host, for each K
#        netns_slurm.sh failures VICTIM AOS_INFO     a PE killed, a PE failing, a global
#                                                   exit, scancel
set -u
mode=$1
shift
. "$(dirname "$0")/netns_lib.sh"
for cmd in slurmctld slurmd srun sinfo scancel; do
    command -v $cmd >/dev/null 2>&1 || skip "no $cmd (Debian: slurm-wlm)"
done

# Each host's state, spool and PMIx directories are its own (%n: the
# node's name), as on separate machines: Slurm's PMIx plugin names its
# directories after the job and step alone, the same on both hosts.
sl=$out/slurm
mkdir -p "$sl/state"
for h in $nsA $nsB; do
    mkdir -p "$sl/$h/spool" "$sl/$h/tmp"
done
export SLURM_CONF=$sl/slurm.conf
# Four CPUs per host as configured (config_overrides), whatever the machine
# has: the 2x4 jobs need four task slots on each host.
cat >"$SLURM_CONF" <<EOF
ClusterName=aostest
SlurmctldHost=$nsA($addrA)
SlurmUser=root
SlurmdUser=root
AuthType=auth/none
CredType=cred/none
StateSaveLocation=$sl/state
SlurmdSpoolDir=$sl/%n/spool
TmpFS=$sl/%n/tmp
SlurmctldPidFile=$sl/slurmctld.pid
SlurmdPidFile=$sl/%n/slurmd.pid
SlurmctldLogFile=$sl/slurmctld.log
SlurmdLogFile=$sl/%n/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
SlurmdParameters=config_overrides
SchedulerType=sched/builtin
MpiDefault=none
ReturnToService=2
KillWait=2
JobCompType=jobcomp/none
AccountingStorageType=accounting_storage/none
JobAcctGatherType=jobacct_gather/none
NodeName=$nsA NodeAddr=$addrA CPUs=4 State=UNKNOWN
NodeName=$nsB NodeAddr=$addrB CPUs=4 State=UNKNOWN
PartitionName=aos Nodes=$nsA,$nsB Default=YES MaxTime=10 State=UP OverSubscribe=FORCE:8
EOF

# start_daemon HOST NAME COMMAND...: in the foreground (-D), through the
# remote shell.
start_daemon() {
    host=$1 name=$2
    shift 2
    "$RSH" "$host" env "$tag" "$@" >"$sl/$name.out" 2>&1 &
    started="$started $!"
}
start_daemon "$nsA" slurmctld slurmctld -D -f "$SLURM_CONF"
start_daemon "$nsA" slurmd-A slurmd -D -f "$SLURM_CONF" -N "$nsA"
start_daemon "$nsB" slurmd-B slurmd -D -f "$SLURM_CONF" -N "$nsB"

show_logs() {
    for f in "$sl"/*.out "$sl"/slurmctld.log "$sl"/*/slurmd.log; do
        [ -s "$f" ] || continue
        echo "--- $f (last lines)"
        tail -n 15 "$f" | sed 's/^/    /'
    done
}
# Both nodes idle, or skip (the daemons cannot run here) / fail.
i=0
until [ "$(in_a sinfo -h -N -o '%t' 2>/dev/null | grep -c '^idle')" = 2 ]; do
    i=$((i + 1))
    for pid in $started; do
        # (a dead daemon's shell is our zombie until waited for)
        state=$(sed 's/^.*) //' "/proc/$pid/stat" 2>/dev/null | cut -c1)
        [ -n "$state" ] && [ "$state" != Z ] && continue
        show_logs
        skip "a Slurm daemon exited at start-up (logs above)"
    done
    if [ $i -gt $((100 * ${AOS_TEST_SLACK:-3})) ]; then
        show_logs
        echo "FAIL: the Slurm nodes did not come up"
        exit 1
    fi
    sleep 0.1
done
# The daemons themselves (the remote shell's own shell may stand between).
shells=$started
daemons=""
for f in "$sl/slurmctld.pid" "$sl/$nsA/slurmd.pid" "$sl/$nsB/slurmd.pid"; do
    daemons="$daemons $(cat "$f")"
done
started="$started $daemons"
in_a srun --mpi=list 2>&1 | grep -q pmix || skip "Slurm has no PMIx plugin (srun --mpi=list)"

# The daemons' ends: SIGTERM by PID, then (the trap) SIGKILL.
stop_daemons() {
    for pid in $daemons; do
        kill -TERM "$pid" 2>/dev/null
    done
    i=0
    for pid in $daemons; do
        while kill -0 "$pid" 2>/dev/null && [ $i -lt 100 ]; do
            sleep 0.1
            i=$((i + 1))
        done
    done
    for pid in $shells; do
        kill -TERM "$pid" 2>/dev/null
        wait "$pid"
    done
}

# job NAME WANT MAX PATTERN K PROG [ARGS...]: srun at K PEs per host on
# JOB_NODES hosts (2), then judge (netns_lib.sh) on srun's output.
job() {
    name=$1 want=$2 max=$3 pattern=$4 k=$5
    shift 5
    n=${JOB_NODES:-2}
    start=$(date +%s%N)
    in_a srun -N "$n" -n $((n * k)) --ntasks-per-node="$k" --overcommit --mpi=pmix \
        --time=5 --job-name="$name" "$@" >"$out/$name.out" 2>&1
    got=$?
    ms=$(( ($(date +%s%N) - start) / 1000000 ))
    judge "$name" "$want" "$max" "$pattern" "$got" "$ms" "$out/$name.out"
    if [ $fails = 0 ]; then
        echo "ok $name: srun -N $n -n $((n * k)) $*: status $got in ${ms} ms"
    else
        sed 's/^/    /' "$out/$name.out"
    fi
}

case $mode in
run)
    pes=$1
    shift
    for k in $pes; do
        export AOS_TEST_HOST_PES=$k # (tests/common/nodes.h)
        job "$(basename "$1")_2x$k" 0 120 "" "$k" "$@"
    done
    ;;
failures)
    VICTIM=$1 AOS_INFO=$2
    # Both hosts, PMIx, and the transports each peer class takes.
    job info 0 60 "bootstrap pmix, 2 hosts" 2 "$AOS_INFO" --launch
    grep -q "PE 0 reaches 2 PEs (itself included) through shm, 2 through ucx" "$out/info.out" ||
        fail "info: not 2 PEs by shm and 2 by ucx: $(cat "$out/info.out")"
    grep -q "^  PE 0's machine: 4 PEs share its" "$out/info.out" ||
        fail "info: the 2 hosts' PEs are not counted as one machine's: $(cat "$out/info.out")"
    job ranks 0 60 "" 2 "$VICTIM" ranks
    for r in 0 1 2 3; do
        grep -q "^rank $r of 4 node 2 " "$out/ranks.out" ||
            fail "ranks: no line for PE $r: $(cat "$out/ranks.out")"
    done
    # A PE killed on the other host, one exiting with a status: the job ends.
    job kill_b nonzero 20 "" 2 --kill-on-bad-exit=1 "$VICTIM" kill 3
    job kill_plain nonzero 20 "" 2 "$VICTIM" kill 3
    job exit_plain nonzero 20 "" 2 "$VICTIM" exit 2 5
    job exit_b nonzero 20 "task 2: Exited with exit code 5" 2 --kill-on-bad-exit=1 "$VICTIM" exit 2 5
    # One PE per host: no send fails on the survivor, which waits in a
    # barrier; its lost connection ends the job (core/peer_loss.c).
    job kill_1x nonzero 20 "PE 0: lost PE 1 before it finalized" 1 "$VICTIM" kill 1
    job exit_1x nonzero 20 "PE 0: lost PE 1 before it finalized" 1 "$VICTIM" exit 1 5
    # On one host Slurm's PMIx server sees its client go without finalizing
    # and cancels the step.
    JOB_NODES=1 job exit_1node nonzero 20 "" 2 "$VICTIM" exit 1 5
    # aos_global_exit(S) from one PE: every PE leaves with S, the others
    # waiting in a barrier or computing without calling aos, on both hosts
    # and on one; 0 too, which Slurm would not take from PMIx_Abort
    # (core/peer_loss.c). No survivor takes the caller's exit for a death.
    job gexit0 0 20 "" 2 "$VICTIM" gexit 3 0
    job gexit0_busy 0 20 "" 2 "$VICTIM" gexitbusy 3 0
    job gexit0_busy_1x 0 20 "" 1 "$VICTIM" gexitbusy 1 0
    JOB_NODES=1 job gexit0_1node 0 20 "" 2 "$VICTIM" gexitbusy 1 0
    job gexit7 7 20 "" 2 "$VICTIM" gexit 3 7
    job gexit7_busy 7 20 "" 2 "$VICTIM" gexitbusy 0 7
    for name in gexit0 gexit0_busy gexit0_busy_1x gexit0_1node gexit7 gexit7_busy; do
        ! grep -q "lost PE" "$out/$name.out" ||
            fail "$name: a PE took the global exit for a loss: $(cat "$out/$name.out")"
    done
    # scancel of a hung job ends it on both hosts.
    in_a srun -N 2 -n 4 --overcommit --mpi=pmix --job-name=hang --time=5 "$VICTIM" hang \
        >"$out/hang.out" 2>&1 &
    srun_pid=$!
    wait_pes 4 || fail "scancel: the PEs did not start"
    in_a scancel --name=hang
    start=$(date +%s%N)
    wait $srun_pid
    got=$?
    ms=$(( ($(date +%s%N) - start) / 1000000 ))
    judge scancel nonzero 20 "" "$got" "$ms" "$out/hang.out"
    [ $fails = 0 ] && echo "ok scancel: status $got in ${ms} ms"
    ;;
*)
    echo "usage: $0 run|failures ..."
    exit 2
    ;;
esac
stop_daemons
started=""
check_clean "the daemons' stop"
[ $fails = 0 ] || show_logs
exit $fails
