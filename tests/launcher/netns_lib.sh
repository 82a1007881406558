# Sourced by the two-host test beds (netns_hosts.sh, netns_slurm.sh,
# netns_mpirun.sh): makes two network namespaces joined by a veth pair that
# act as two hosts, and removes everything on exit, even on failure.
#
# Sets: nsA nsB (namespace names, also the hosts' names), addrA addrB (their
# addresses), DEV (the link's name in both), RSH (runs a command "on a
# host"), out (a private directory; TMPDIR is $out/tmp), tag (a variable in
# the environment of everything started; export it or pass it with env).
# Provides: skip, fail, run_procs, check_clean, in_a, started (PIDs the
# caller started; killed at exit), fails (the count).
# Needs root; without it, or where namespaces are not allowed, the caller
# exits 77 (skipped) with the reason.
SKIP=77
here=$(cd "$(dirname "$0")" && pwd)
RSH=$here/netns_rsh.sh

skip() {
    echo "skipping the two-host tier: $*"
    exit $SKIP
}
[ "$(id -u)" = 0 ] || skip "not root (network namespaces need CAP_SYS_ADMIN)"
command -v ip >/dev/null 2>&1 || skip "no ip command (iproute2)"
command -v nsenter >/dev/null 2>&1 || skip "no nsenter (util-linux)"
command -v unshare >/dev/null 2>&1 || skip "no unshare (util-linux)"

# Everything is named after this shell's PID, so runs side by side differ.
nsA=aosA$$
nsB=aosB$$
vethA=aosva$$
vethB=aosvb$$
DEV=aosh0 # both ends carry this name inside their namespace: one UCX_NET_DEVICES
# 10.213.x.0/24 with x from the PID: concurrent runs never share a subnet
# (they could not reach each other anyway, the namespaces are private).
net=10.213.$(($$ % 250 + 1))
addrA=$net.1
addrB=$net.2
out=$(mktemp -d "${TMPDIR:-/tmp}/netns-hosts.XXXXXX")
mkdir "$out/tmp"
tag="AOS_NETNS_TEST_TAG=$out"
started=""
fails=0

# live processes of this run (zombies have no environment)
run_procs() {
    grep -lsxzF "$tag" /proc/[0-9]*/environ | sed 's|^/proc/\([0-9]*\)/environ$|\1|'
}
ns_procs() {
    for ns in $nsA $nsB; do
        [ -e "/run/netns/$ns" ] && ip netns pids "$ns" 2>/dev/null
    done
}
netns_cleanup() {
    kill -TERM "$watchdog" 2>/dev/null
    for pid in $started; do
        kill -KILL "$pid" 2>/dev/null
    done
    for pid in $(run_procs) $(ns_procs); do
        kill -KILL "$pid" 2>/dev/null
    done
    for ns in $nsA $nsB; do
        [ -e "/run/netns/$ns" ] && ip netns del "$ns"
    done
    ip link del "$vethA" 2>/dev/null
    rm -rf "$out"
}
trap netns_cleanup EXIT
trap 'exit 1' INT TERM HUP
# A test that hangs is ended here, before ctest's TIMEOUT (300 s or more)
# would kill this shell with no chance to clean up: SIGTERM runs the trap.
me=$$
(
    trap 'kill "$nap" 2>/dev/null; exit 0' TERM
    sleep "${AOS_NETNS_LIMIT:-270}" &
    nap=$!
    wait "$nap" && echo "FAIL: the test ran past ${AOS_NETNS_LIMIT:-270} s" && kill -TERM "$me"
) &
watchdog=$!

ip netns add "$nsA" 2>"$out/err" || skip "ip netns add failed: $(cat "$out/err")"
ip netns add "$nsB" 2>"$out/err" || skip "ip netns add failed: $(cat "$out/err")"
# Mount and UTS namespaces too (netns_rsh.sh gives every command both).
unshare --mount --uts true 2>"$out/err" || skip "unshare --mount --uts failed: $(cat "$out/err")"
set -e
ip link add "$vethA" type veth peer name "$vethB"
ip link set "$vethA" netns "$nsA"
ip link set "$vethB" netns "$nsB"
ip -n "$nsA" link set "$vethA" name $DEV
ip -n "$nsB" link set "$vethB" name $DEV
ip -n "$nsA" addr add "$addrA/24" dev $DEV
ip -n "$nsB" addr add "$addrB/24" dev $DEV
for ns in $nsA $nsB; do
    ip -n "$ns" link set lo up
    ip -n "$ns" link set $DEV up
done
set +e
# The carrier comes up a moment after both ends are set up (the kernel
# reports it asynchronously), and UCX takes only running devices.
for ns in $nsA $nsB; do
    tries=0
    until ip -n "$ns" -o link show $DEV | grep -q "LOWER_UP"; do
        tries=$((tries + 1))
        [ $tries -le 200 ] || { echo "FAIL: $DEV in $ns never came up"; exit 1; }
        sleep 0.05
    done
done

export TMPDIR="$out/tmp" UCX_TLS=tcp UCX_NET_DEVICES=$DEV

fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
# Runs a command in host A's network namespace, with the tag. (Not through
# RSH: a launcher there starts its host-A daemon through RSH, and sysfs
# cannot be mounted twice in one mount namespace.)
in_a() { nsenter --net="/run/netns/$nsA" -- env "$tag" "$@"; }

# wait_pes N: until N processes of this run named launcher_victim (the
# test PEs of the failure cases) are alive, then a second more for them to
# be in aos_init's exchange or past it; 1 after 30 s without.
wait_pes() {
    i=0
    while [ $i -lt 300 ]; do
        n=0
        for pid in $(run_procs); do
            case $(cat "/proc/$pid/comm" 2>/dev/null) in launcher_victi*) n=$((n + 1)) ;; esac
        done
        [ $n -ge "$1" ] && { sleep 1; return 0; }
        sleep 0.1
        i=$((i + 1))
    done
    return 1
}

# judge NAME WANT MAX PATTERN GOT MS FILE: the checks of a job that ended
# with status GOT after MS ms. WANT: the status expected, a number or
# "nonzero"; MAX: a hang guard in seconds, not a speed test (it stretches by
# AOS_TEST_SLACK, default 3, for machines busy with other jobs); PATTERN: an
# extended regex FILE must match ("" for none). Then check_clean.
judge() {
    name=$1 want=$2 max=$3 pattern=$4 got=$5 ms=$6 file=$7
    case $want in
    nonzero) [ "$got" != 0 ] || fail "$name: exit status 0, expected a failure" ;;
    *) [ "$got" = "$want" ] || fail "$name: exit status $got, expected $want" ;;
    esac
    [ "$ms" -le $((max * 1000 * ${AOS_TEST_SLACK:-3})) ] ||
        fail "$name: took ${ms} ms, limit ${max} s x ${AOS_TEST_SLACK:-3}"
    if [ -n "$pattern" ] && ! grep -Eq -e "$pattern" "$file"; then
        fail "$name: $(basename "$file") lacks /$pattern/:"
        sed 's/^/    /' "$file"
    fi
    check_clean "$name"
}

# check_clean WHAT: after a job, nothing it started may be left (the
# caller's daemons in $started and their children excepted). A moment's
# grace: a job's last processes may still be on their way out when its
# launcher returns.
check_clean() {
    i=0
    while :; do
        left=""
        for pid in $(run_procs) $(ns_procs); do
            parent=$(sed -n 's/^PPid:[[:space:]]*//p' "/proc/$pid/status" 2>/dev/null)
            case " $started $left " in
            *" $pid "* | *" $parent "*) ;;
            *) left="$left $pid" ;;
            esac
        done
        [ -z "$left" ] && return 0
        i=$((i + 1))
        [ $i -le 20 ] || break
        sleep 0.1
    done
    fail "$1: processes of the test survive:$left"
    for pid in $left; do
        echo "    $pid: $(tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null)"
    done
}
