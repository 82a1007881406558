#!/bin/sh
# The two-host test bed: two network namespaces joined by a veth pair act as
# two hosts; aosrun starts in the first with --hosts A:K,B:K and
# --rsh netns_rsh.sh, and the PEs on different "hosts" reach each other
# over UCX on TCP across the veth link. Needs root (as CI runs); without
# it, or where namespaces are not allowed, the test says why and is
# skipped (exit 77).
#
# usage: netns_hosts.sh run AOSRUN K PROG [ARGS...]   PROG at K PEs per host
#        netns_hosts.sh failures AOSRUN VICTIM AOS_INFO   the failure cases
#                                                     (and what aos-info sees)
#
# The namespaces and their clean-up: netns_lib.sh. A tag in the environment
# of every process the run starts tells them from anyone else's, and none
# may survive.
set -u
mode=$1
AOSRUN=$2
shift 2
. "$(dirname "$0")/netns_lib.sh"

if [ "$mode" = run ]; then
    k=$1
    shift
    export AOS_TEST_HOST_PES=$k # (tests/common/nodes.h)
    in_a "$AOSRUN" --hosts "$nsA:$k,$nsB:$k" --rsh "$RSH" --timeout 200 "$@"
    got=$?
    [ $got = 0 ] || fail "$*: aosrun exited with status $got"
    check_clean "$*"
    [ $fails = 0 ] && echo "ok: $* at ${k} PE(s) on each of 2 hosts"
    exit $fails
fi

[ "$mode" = failures ] || { echo "usage: $0 run|failures AOSRUN ..."; exit 2; }
VICTIM=$1 AOS_INFO=$2
hosts="$nsA:2,$nsB:2"

# run NAME EXPECTED_STATUS MAX_SECONDS PATTERN -- aosrun args...
run() {
    name=$1 want=$2 max=$3 pattern=$4
    shift 5
    start=$(date +%s%N)
    in_a "$AOSRUN" "$@" >"$out/$name.out" 2>"$out/$name.err"
    got=$?
    ms=$(( ($(date +%s%N) - start) / 1000000 ))
    report "$name" "$want" "$max" "$pattern" "$got" "$ms"
}
# report NAME WANT MAX PATTERN GOT MS: judge (netns_lib.sh) on aosrun's stderr.
report() {
    judge "$@" "$out/$1.err"
    echo "ok $1: status $5 in $6 ms"
}
# start_hang NAME [MODE]: starts a hanging job (victim MODE, hang by
# default) in the background; waits until its PEs run.
start_hang() {
    # (not through in_a: $! is aosrun itself; a background job of sh
    # ignores SIGINT, and so would aosrun)
    nsenter --net="/run/netns/$nsA" -- env --default-signal=INT "$tag" \
        "$AOSRUN" --hosts "$hosts" --rsh "$RSH" "$VICTIM" "${2:-hang}" >"$out/$1.out" 2>"$out/$1.err" &
    job=$!
    started="$started $job"
    wait_pes 4 && return 0
    fail "$1: the PEs did not start"
    return 1
}
# finish NAME ... : waits for the background job, then report.
finish() {
    start=$(date +%s%N)
    wait $job
    got=$?
    ms=$(( ($(date +%s%N) - start) / 1000000 ))
    report "$@" "$got" "$ms"
}
# The daemon serving host B: aosrun --daemon with our tag, in B's namespace
# (not the remote shell that started it, which has --daemon in its words).
daemon_b() {
    b="net:[$(stat -L -c %i "/run/netns/$nsB")]"
    for pid in $(run_procs); do
        if [ "$(cat "/proc/$pid/comm" 2>/dev/null)" = aosrun ] &&
           tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null | grep -q -- ' --daemon ' &&
           [ "$(readlink "/proc/$pid/ns/net")" = "$b" ]; then
            echo "$pid"
            return
        fi
    done
}

# The two hosts are one machine (one kernel): their 4 PEs share its CPUs,
# and waits adapt to that as on one host (core/runtime.c).
run info 0 60 "" -- --hosts "$hosts" --rsh "$RSH" "$AOS_INFO" --launch
grep -q "^  PE 0's machine: 4 PEs share its" "$out/info.out" ||
    fail "info: the 2 hosts' PEs are not counted as one machine's: $(cat "$out/info.out")"
# PE output comes to the root's stdout, from both hosts.
run ranks 0 60 "" -- --hosts "$hosts" --rsh "$RSH" "$VICTIM" ranks
for r in 0 1 2 3; do
    grep -q "^rank $r of 4 node 2 " "$out/ranks.out" || fail "ranks: no line for PE $r: $(cat "$out/ranks.out")"
done
# Words a shell would split or expand reach the other host as given.
run argv 0 60 "" -- --hosts "$hosts" --rsh "$RSH" "$VICTIM" argv "a b" "it's" '$HOME' '*' ""
for r in 0 1 2 3; do
    grep -qxF "argv of $r: [a b] [it's] [\$HOME] [*] []" "$out/argv.out" ||
        fail "argv: PE $r: $(cat "$out/argv.out")"
done
# A PE killed on the other host: named with its host; the job ends.
run kill_b 137 10 "host $nsB: PE 3 \(pid [0-9]+\) was killed by signal 9" -- --hosts "$hosts" --rsh "$RSH" "$VICTIM" kill 3
run exit_b 5 10 "host $nsB: PE 2 \(pid [0-9]+\) exited with status 5" -- --hosts "$hosts" --rsh "$RSH" "$VICTIM" exit 2 5
run timeout 124 15 "timeout after 2 s" -- --hosts "$hosts" --rsh "$RSH" --timeout 2 "$VICTIM" hang
grep -q "exit status 124: the job ran out of its --timeout" "$out/timeout.err" ||
    fail "timeout: the report does not say the 124 is the timeout's"
# A host whose namespace does not exist: the remote shell fails.
run unreachable 1 10 "host nosuch$$: cannot start the daemon: '$RSH nosuch$$ \.\.\.' exited with status [0-9]+ before the daemon was ready" -- --hosts "$nsA:2,nosuch$$:2" --rsh "$RSH" "$VICTIM" ok
run mismatch 2 5 "-n 5 but --hosts '$hosts' has 4 PEs" -- -n 5 --hosts "$hosts" --rsh "$RSH" "$VICTIM" ok
# SIGINT to the root reaches every host.
if start_hang sigint; then
    kill -INT $job
    finish sigint 130 10 "got signal 2"
fi
# Host B's daemon killed: reported, the job stops (host B's PEs die with
# their daemon, and what they started with their groups' keepers; host A's
# are stopped).
if start_hang daemon_killed spawnhang; then
    d=$(daemon_b)
    if [ -z "$d" ]; then
        fail "daemon_killed: no daemon found in $nsB"
        kill -TERM $job
    else
        kill -KILL "$d"
    fi
    # (signal 9, or 128 + 9 from a remote shell that reports it as a status)
    finish daemon_killed 1 10 "host $nsB: daemon \(pid $d\) (was killed by signal 9|exited with status 137)"
fi
[ $fails = 0 ] && echo "all two-host failure cases passed"
exit $fails
