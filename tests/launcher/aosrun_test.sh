#!/bin/sh
# aosrun's supervision: a PE that dies, crashes, fails or hangs ends the job
# promptly with a report naming the PE, its pid and how it ended; the exit
# status is the failure's; nothing is left in /dev/shm or /tmp and no PE
# process survives. usage: aosrun_test.sh AOSRUN VICTIM [HAVE_UCX [DEAF_PE]]
#
# Other jobs run beside this one (ctest -j, other users of the machine): the
# checks look only at what this run's processes could have made. The PEs
# get their own TMPDIR, and a tag in their environment tells our processes
# from anyone else's.
set -u
AOSRUN=$1
VICTIM=$2
HAVE_UCX=${3:-0}
DEAF_PE=${4:-}
fails=0
# Under the sanitizers a crash must still end the PE by its signal.
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}handle_segv=0"
export TSAN_OPTIONS="${TSAN_OPTIONS:+$TSAN_OPTIONS:}handle_segv=0"
out=$(mktemp -d "${TMPDIR:-/tmp}/launcher-test.XXXXXX")
mkdir "$out/tmp"
export TMPDIR="$out/tmp"
tag="AOSRUN_TEST_TAG=$out"
# What aos could have left: anything in the PEs' TMPDIR, and in /dev/shm and
# /tmp entries named like aos's (it names its memory files aos-*; they are
# memfds, which appear in no directory). Entries that were there before
# belong to someone else. GCC's ThreadSanitizer runtime makes and at once
# unlinks tsan.rodata.<pid> in TMPDIR while a process starts; a process
# killed inside that window leaves it behind, which is the runtime's, not aos's.
aos_files() {
    ls -A "$TMPDIR" | grep -v '^tsan\.rodata\.[0-9]*$'
    ls -A /dev/shm /tmp 2>/dev/null | grep -i '^aos' | sort
}
before=$(aos_files)
# live processes of this run (the tag is in the environment of aosrun and
# of everything it starts; zombies have none and only wait for a reaper)
pe_procs() {
    grep -lsxzF "$tag" /proc/[0-9]*/environ | sed 's|^/proc/\([0-9]*\)/environ$|\1|'
}
# Whether every process of this run is gone within $1 tenths of a second:
# after aosrun's own end (or a daemon's), what is left dies by parent-death
# signals and keepers, which take a moment on a loaded machine.
procs_gone() {
    i=0
    while [ -n "$(pe_procs)" ]; do
        [ "$i" -ge "$1" ] && return 1
        sleep 0.1
        i=$((i + 1))
    done
}
# LIMIT: ulimit arguments for one run (descriptor limits); AS: a command
# that runs aosrun as another user (setpriv ...), keeping those limits
LIMIT=
AS=
aosrun() { (if [ -n "$LIMIT" ]; then ulimit $LIMIT || exit 99; fi; exec $AS env "$tag" "$AOSRUN" "$@"); }

fail() { echo "FAIL: $*"; fails=$((fails + 1)); }

# run NAME EXPECTED_STATUS MAX_SECONDS PATTERN -- aosrun args...
run() {
    name=$1 want=$2 max=$3 pattern=$4
    shift 5
    start=$(date +%s%N)
    aosrun "$@" >"$out/$name.out" 2>"$out/$name.err"
    got=$?
    ms=$(( ($(date +%s%N) - start) / 1000000 ))
    [ "$got" = "$want" ] || fail "$name: exit status $got, expected $want"
    # A hang guard, not a speed test: the limit stretches by AOS_TEST_SLACK
    # (default 3) for machines busy with other jobs.
    [ "$ms" -le $((max * 1000 * ${AOS_TEST_SLACK:-3})) ] ||
        fail "$name: took ${ms} ms, limit ${max} s x ${AOS_TEST_SLACK:-3}"
    if [ -n "$pattern" ] && ! grep -Eq -e "$pattern" "$out/$name.err"; then
        fail "$name: stderr lacks /$pattern/:"; sed 's/^/    /' "$out/$name.err"
    fi
    leftover=$(pe_procs)
    [ -z "$leftover" ] || fail "$name: PE processes survive: $leftover"
    echo "ok $name: status $got in ${ms} ms"
}

run clean 0 20 "" -- -n 4 "$VICTIM" ok
run kill 137 6 "PE 2 \(pid [0-9]+\) was killed by signal 9" -- -n 4 "$VICTIM" kill 2
run segv 139 6 "PE 1 \(pid [0-9]+\) was killed by signal 11" -- -n 3 "$VICTIM" segv 1
run exit 3 6 "PE 0 \(pid [0-9]+\) exited with status 3" -- -n 4 "$VICTIM" exit 0
run nofinal 1 6 "PE 3 \(pid [0-9]+\) exited with status 0 without calling aos_finalize" -- -n 4 "$VICTIM" nofinal 3
run noinit 1 6 "PE 1 .* without calling aos_init" -- -n 3 "$VICTIM" noinit 1
run timeout 124 8 "timeout after 1 s" -- -n 4 --timeout 1 "$VICTIM" hang
grep -q "exit status 124: the job ran out of its --timeout" "$out/timeout.err" ||
    fail "timeout: the report does not say the 124 is the timeout's"
# A PE's own 124 (timeout(1) inside a PE) is not aosrun's timeout.
run exit124 124 6 "exit status 124 is PE 1's own, not aosrun's --timeout" -- -n 3 --timeout 60 "$VICTIM" exit 1 124
# inf and huge timeouts are no timeout (they once overflowed to "now").
run timeout_inf 0 20 "" -- -n 2 --timeout inf "$VICTIM" ok
run timeout_huge 0 20 "" -- -n 2 --timeout 1e300 "$VICTIM" ok
run timeout_nan 2 2 "expected seconds > 0" -- -n 2 --timeout nan "$VICTIM" ok
# Descriptors: aosrun raises its soft limit to the hard one (32 PEs need
# more than 64), refuses at once a PE count the hard limit cannot serve
# (it hung before), and gives the PEs the limit it found.
LIMIT="-Sn 64"
run fds_raise 0 30 "" -- -n 32 --timeout 60 "$VICTIM" ok
run fds_pe_limit 0 5 "" -- -n 1 sh -c 'test "$(ulimit -Sn)" = 64'
LIMIT="-n 256"
run fds_refuse 2 5 "-n 200 needs about [0-9]+ file descriptors, but the limit is 256.*at most [0-9]+ PEs" -- -n 200 --timeout 20 "$VICTIM" ok
LIMIT=
# What a PE started (in its process group) ends with the job, whether a PE
# died or all finished.
run spawn_kill 137 6 "PE 1 \(pid [0-9]+\) was killed by signal 9" -- -n 3 "$VICTIM" spawn 1
run spawn_clean 0 10 "" -- -n 3 "$VICTIM" spawn -1
# ... and outside it too (a session of its own), once its parent has ended.
run setsid_kill 137 6 "PE 1 \(pid [0-9]+\) was killed by signal 9" -- -n 3 "$VICTIM" spawnsetsid 1
run setsid_clean 0 10 "" -- -n 3 "$VICTIM" spawnsetsid -1
run wrapper_timeout 124 8 "timeout after 2 s" -- -n 2 --timeout 2 sh -c '"$0" hang; sleep 300' "$VICTIM"
# aosrun never waits for a PE's message: part of one (a stray byte on its
# socket) neither stops --timeout nor keeps aosrun once the PE ends, and a
# child that holds the socket after its PE ended keeps no read waiting
# (the end came with its last message: the race took a run in eight).
run stray_byte 124 8 "timeout after 2 s" -- -n 1 --timeout 2 sh -c 'printf x >&"$AOS_BOOT_FD"; exec sleep 30'
for i in 1 2 3 4 5 6 7 8; do
    run forkhold$i 0 8 "" -- -n 2 --timeout 60 "$VICTIM" forkhold
done
# Nor does it wait for a PE to read: one that never takes the all-gather's
# answer (1 MiB, more than its socket holds) leaves --timeout working.
if [ -n "$DEAF_PE" ]; then
    run deaf_pe 124 8 "timeout after 2 s" -- -n 1 --timeout 2 "$DEAF_PE" 120
    # Its next blob before it read the answers: no aos PE, stopped at once
    # (aosrun would otherwise queue answers for it without end).
    run deaf_pe_flood 1 8 "PE 0 sent a broken address exchange" -- -n 1 --timeout 20 "$DEAF_PE" 120 3
    # A sender that is not root may have only as many descriptors in flight
    # as its limit: 8 PEs reading the exchange slowly hold 64 under a limit
    # of 48, and aosrun waits for them rather than failing the job.
    if [ "$(id -u)" = 0 ] && command -v setpriv >/dev/null; then
        LIMIT="-n 48" AS="setpriv --reuid=65534 --regid=65534 --clear-groups"
        run fds_in_flight 0 20 "" -- -n 8 --timeout 30 "$DEAF_PE" slow
        LIMIT= AS=
    fi
fi
run kill16 137 10 "PE 9 \(pid [0-9]+\) was killed by signal 9" -- -n 16 "$VICTIM" kill 9
# A PE stuck before aos_init (asleep here, as one stopped in it would be)
# makes the others' aos_init give up after AOS_BOOT_TIMEOUT: aosrun ends a
# job only for a PE that ends. (--timeout: a hang fails fast, status 124.)
export AOS_BOOT_TIMEOUT=2
run boot_timeout 10 8 "PE [01]: not every PE reached the start-up exchange within 2 s \(AOS_BOOT_TIMEOUT\)" -- -n 3 --timeout 30 "$VICTIM" late 2
unset AOS_BOOT_TIMEOUT
run noexec 127 5 "cannot run" -- -n 2 /nonexistent/program
run badargs 2 2 "expected a PE count" -- -n 0 "$VICTIM" ok
run badbind 2 2 "expected core, cluster or none" -- -n 2 --bind wrong "$VICTIM" ok
if [ "$HAVE_UCX" = 1 ]; then
    # Across pseudo-nodes: a PE killed while the others' puts, gets and
    # atomics target it over the network.
    # (UCX's memory hooks off and its internals out of TSan's reports, as
    # in the other off-node tests: ctest passes AOS_TSAN_OPTIONS of
    # tests/CMakeLists.txt as AOS_TEST_TSAN_OPTIONS)
    saved_tsan=$TSAN_OPTIONS
    export AOS_NODE_SIZE=1 UCX_TLS=tcp UCX_NET_DEVICES=lo UCX_MEM_EVENTS=no
    export TSAN_OPTIONS="$TSAN_OPTIONS${AOS_TEST_TSAN_OPTIONS:+:$AOS_TEST_TSAN_OPTIONS}"
    run kill_offnode 137 10 "PE 1 \(pid [0-9]+\) was killed by signal 9" -- -n 3 "$VICTIM" storm 1
    # The launcher's report is the only word on it: no line per operation
    # that failed on the dead PE.
    ! grep -q "UCX failed" "$out/kill_offnode.err" ||
        fail "kill_offnode: the survivors reported failed operations:$(head -5 "$out/kill_offnode.err" | sed 's/^/    /')"
    # The others learn of the death from the operation, or the event, that
    # failed: the status says the PE died.
    run dead_target 137 10 "PE 1 \(pid [0-9]+\) was killed by signal 9" -- -n 3 "$VICTIM" deadtarget 1
    grep -Eq "PE [02]: [a-z -]+ to the dead PE: a peer PE has died" "$out/dead_target.err" ||
        fail "dead_target: no PE reported the death:$(sed 's/^/    /' "$out/dead_target.err")"
    # What the network progress thread sleeps on (src/transport/ucx/sleep.c):
    # over TCP alone the interfaces' event sets, unless told otherwise.
    run sleep_ifaces 0 10 "network progress thread: sleeps on [1-9][0-9]* TCP interface event set" -- -n 2 env AOS_DEBUG=1 "$VICTIM" ok
    # Those sets, not the program's own (nested) epoll instances opened
    # meanwhile.
    run sleep_user_epolls 0 10 "network progress thread: sleeps on 1 TCP interface event set" -- -n 2 env AOS_DEBUG=1 "$VICTIM" epolls
    [ "$(grep -c "sleeps on 1 TCP interface event set" "$out/sleep_user_epolls.err")" = 2 ] ||
        fail "sleep_user_epolls: not every PE found just the one set:$(sed 's/^/    /' "$out/sleep_user_epolls.err")"
    run sleep_worker 0 10 "network progress thread: sleeps on the worker's event descriptor" -- -n 2 env AOS_DEBUG=1 AOS_NET_WAKEUP=2 "$VICTIM" ok
    run sleep_doze 0 10 "network progress thread: dozes between polls \(AOS_NET_WAKEUP=0\)" -- -n 2 env AOS_DEBUG=1 AOS_NET_WAKEUP=0 "$VICTIM" ok
    unset AOS_NODE_SIZE UCX_TLS UCX_NET_DEVICES UCX_MEM_EVENTS
    export TSAN_OPTIONS="$saved_tsan"
fi
# --hosts through a remote shell that stays on this machine (the two-host
# tier, netns_hosts.sh, needs root): output from every host comes to
# aosrun's stdout; a PE's death names its host.
if [ "$HAVE_UCX" = 1 ]; then
    export UCX_TLS=tcp UCX_NET_DEVICES=lo UCX_MEM_EVENTS=no
    LRSH=$(dirname "$0")/local_rsh.sh
    run hosts_ranks 0 30 "" -- --hosts a:2,b:1 --rsh "$LRSH" "$VICTIM" ranks
    for r in 0 1 2; do
        grep -q "^rank $r of 3 node [12] " "$out/hosts_ranks.out" || fail "hosts_ranks: PE $r: $(cat "$out/hosts_ranks.out")"
    done
    # Words a shell would split or expand arrive as given (aosrun quotes
    # them for the remote shell, which has a shell run them as ssh does).
    run hosts_argv 0 30 "" -- --hosts a:1,b:1 --rsh "$LRSH" "$VICTIM" argv "a b" "it's" '$HOME' '*' ""
    for r in 0 1; do
        grep -qxF "argv of $r: [a b] [it's] [\$HOME] [*] []" "$out/hosts_argv.out" ||
            fail "hosts_argv: PE $r: $(cat "$out/hosts_argv.out")"
    done
    run hosts_kill 137 30 "host b: PE 2 \(pid [0-9]+\) was killed by signal 9" -- --hosts a:2,b:1 --rsh "$LRSH" "$VICTIM" kill 2
    run hosts_timeout 124 30 "timeout after 1 s" -- --hosts a:1,b:1 --rsh "$LRSH" --timeout 1 "$VICTIM" hang
    # The PEs' output reaches a reader that starts late, whole (the root
    # holds it; the daemons once gave up after 3 s and the job failed).
    start=$(date +%s)
    env "$tag" "$AOSRUN" --hosts a:1,b:1 --rsh "$LRSH" "$VICTIM" flood 300 2>"$out/slow_reader.err" |
        { sleep 5; cat; } >"$out/slow_reader.out"
    [ "$(wc -c <"$out/slow_reader.out")" = $((2 * (300 * 1024 + 13))) ] &&
        [ "$(grep -c flooded "$out/slow_reader.out")" = 2 ] ||
        fail "slow_reader: $(wc -c <"$out/slow_reader.out") bytes: $(cat "$out/slow_reader.err")"
    echo "ok slow_reader: in $(($(date +%s) - start)) s"
    # A stdout nobody reads keeps neither --timeout nor SIGTERM from ending
    # the job in time (the root once blocked writing it).
    start=$(date +%s%N)
    { env "$tag" "$AOSRUN" --hosts a:1,b:1 --rsh "$LRSH" --timeout 4 "$VICTIM" floodhang 300 \
        2>"$out/stuck_reader.err"; echo $? >"$out/stuck_reader.rc"; } | sleep 12
    ms=$(( ($(date +%s%N) - start) / 1000000 ))
    [ "$(cat "$out/stuck_reader.rc")" = 124 ] && grep -q "output are dropped" "$out/stuck_reader.err" ||
        fail "stuck_reader: status $(cat "$out/stuck_reader.rc"): $(cat "$out/stuck_reader.err")"
    echo "ok stuck_reader: status 124 (pipeline ${ms} ms)"
    [ -z "$(pe_procs)" ] || fail "stuck_reader: PE processes survive: $(pe_procs)"
    # Started with stdin and stdout closed, the root's own descriptors must
    # not take their numbers (PE output once went into a host's channel).
    env "$tag" "$AOSRUN" --hosts a:1,b:1 --rsh "$LRSH" "$VICTIM" ranks <&- >&- 2>"$out/closed_stdio.err" ||
        fail "closed_stdio: status $?: $(cat "$out/closed_stdio.err")"
    echo "ok closed_stdio"
    # A remote shell that greets on stdout before the command, or says
    # goodbye after it: told apart from a daemon's frames.
    printf '#!/bin/sh\necho "Welcome to $1."\nexec sh "%s" "$@"\n' "$LRSH" >"$out/banner_rsh.sh"
    printf '#!/bin/sh\nsh "%s" "$@"\nrc=$?\necho "Connection to $1 closed."\nexit $rc\n' "$LRSH" \
        >"$out/goodbye_rsh.sh"
    run hosts_banner 1 30 "host a: the remote shell wrote to its stdout before the daemon started \('Welcome to a\.'\)" \
        -- --hosts a:1,b:1 --rsh "sh $out/banner_rsh.sh" "$VICTIM" ok
    grep -q "was killed by signal" "$out/hosts_banner.err" && fail "hosts_banner: reports its own kill: $(cat "$out/hosts_banner.err")"
    run hosts_goodbye 0 30 "" -- --hosts a:1,b:1 --rsh "sh $out/goodbye_rsh.sh" "$VICTIM" ok
    # A daemon that stops (SIGSTOP here; a frozen host or a cut link looks
    # the same) is reported after 10 s of silence and the job ends.
    start=$(date +%s)
    env "$tag" "$AOSRUN" --hosts a:1,b:1 --rsh "$LRSH" "$VICTIM" hang >/dev/null 2>"$out/stopped.err" &
    pid=$!
    daemon=
    for i in $(seq 50); do
        for p in $(pe_procs); do
            [ "$(cat "/proc/$p/comm" 2>/dev/null)" = aosrun ] &&
                tr '\0' ' ' <"/proc/$p/cmdline" 2>/dev/null | grep -q -- "--daemon" && daemon=$p && break
        done
        [ -n "$daemon" ] && grep -lsxzF "AOS_RANK=0" /proc/[0-9]*/environ >/dev/null && break
        sleep 0.2
    done
    if [ -n "$daemon" ]; then kill -STOP "$daemon"; else fail "stopped_daemon: no daemon"; kill $pid; fi
    wait $pid
    got=$?
    [ "$got" = 1 ] && grep -Eq "the daemon \(pid $daemon\) has sent nothing for 10 s" "$out/stopped.err" ||
        fail "stopped_daemon: status $got: $(cat "$out/stopped.err")"
    procs_gone 30 || fail "stopped_daemon: processes survive: $(pe_procs)"
    echo "ok stopped_daemon: status $got in $(($(date +%s) - start)) s"
    # The root itself stopped (Ctrl-Z) for longer than that and resumed:
    # its own pause is no daemon's silence; the job ends well.
    env "$tag" "$AOSRUN" --hosts a:1,b:1 --rsh "$LRSH" "$VICTIM" nap 3 >/dev/null 2>"$out/stopped_root.err" &
    pid=$!
    sleep 1
    kill -STOP $pid
    sleep 12
    kill -CONT $pid
    wait $pid
    got=$?
    [ "$got" = 0 ] || fail "stopped_root: status $got: $(cat "$out/stopped_root.err")"
    echo "ok stopped_root: status $got"
    # A remote shell that never starts the daemon (one waiting for a
    # password looks the same): reported after 60 s, the job stops, and
    # the remote shell is killed.
    printf '#!/bin/sh\n[ "$1" = b ] && exec sleep 600\nexec sh "%s" "$@"\n' "$LRSH" >"$out/silent_rsh.sh"
    run hosts_never_started 1 62 "host b: no daemon after 60 s: the remote shell 'sh $out/silent_rsh.sh b' has not started it" \
        -- --hosts a:1,b:1 --rsh "sh $out/silent_rsh.sh" "$VICTIM" ok
    if grep -q "daemon does not finish" "$out/hosts_never_started.err"; then
        fail "hosts_never_started: a daemon that never started is said not to finish"
    fi
    unset UCX_TLS UCX_NET_DEVICES UCX_MEM_EVENTS
fi
run hosts_unreachable 1 30 "host b: cannot start the daemon: 'false b \.\.\.' exited with status 1 before the daemon was ready" -- --hosts a:1,b:1 --rsh false "$VICTIM" ok
run hosts_mismatch 2 2 "-n 3 but --hosts 'a:1,b:1' has 2 PEs" -- -n 3 --hosts a:1,b:1 "$VICTIM" ok
run hosts_badlist 2 2 "expected HOST:COUNT" -- --hosts a:1,b "$VICTIM" ok
run hosts_twice 2 2 "host 'a' is named twice: name it once, with all its PEs \(a:3\)" -- --hosts a:1,b:1,a:2 "$VICTIM" ok
run hosts_option 2 2 "host name '-oProxyCommand=x' starts with '-'" -- --hosts -oProxyCommand=x:1 "$VICTIM" ok
run hosts_blank 2 2 "host name 'a b' holds a blank" -- --hosts "a b:1" "$VICTIM" ok
run hosts_blank_count 2 2 "expected HOST:COUNT" -- --hosts "a: 1" "$VICTIM" ok
run hosts_long_name 2 2 "longer than 255 characters" -- --hosts "$(printf '%0300d' 0):1" "$VICTIM" ok
# An IPv6 address, bare or in brackets: the count follows the last colon.
run hosts_ipv6 1 30 "host ::1: cannot start the daemon" -- --hosts "[::1]:1,fe80::1:1" --rsh false "$VICTIM" ok
grep -q "host fe80::1: cannot start" "$out/hosts_ipv6.err" || fail "hosts_ipv6: $(cat "$out/hosts_ipv6.err")"
run cluster 0 20 "" -- -n 3 --bind cluster "$VICTIM" ranks
run unbound 0 20 "" -- -n 3 --bind none "$VICTIM" ranks
grep -q "rank 2 of 3 node 3" "$out/unbound.out" || fail "ranks: $(cat "$out/unbound.out")"

# SIGTERM to aosrun reaches the PEs; status 128+15.
env "$tag" "$AOSRUN" -n 4 "$VICTIM" hang >"$out/term.out" 2>"$out/term.err" &
pid=$!
sleep 1
kill -TERM $pid
wait $pid
got=$?
[ "$got" = 143 ] || fail "sigterm: exit status $got, expected 143"
procs_gone 30 || fail "sigterm: PE processes survive"
echo "ok sigterm: status $got"

# SIGKILL to aosrun itself: the PEs die with it (parent-death signal), and
# so does what they started (each group's keeper).
env "$tag" "$AOSRUN" -n 4 "$VICTIM" spawnhang >/dev/null 2>&1 &
pid=$!
# once every PE's sleep has started: else there would be nothing to test
for i in $(seq 100); do
    sleeps=0
    for p in $(pe_procs); do
        [ "$(cat "/proc/$p/comm" 2>/dev/null)" = sleep ] && sleeps=$((sleeps + 1))
    done
    [ "$sleeps" -ge 4 ] && break
    sleep 0.1
done
[ "$sleeps" -ge 4 ] || fail "aosrun killed: $sleeps of 4 PEs started their sleep"
kill -KILL $pid
wait $pid 2>/dev/null
procs_gone 30 || fail "aosrun killed: PE processes survive"
echo "ok aosrun-killed"

# Someone else's file in /tmp and process with the PE program's name are
# none of this run's business; a file in the PEs' TMPDIR is.
foreign=$(mktemp /tmp/foreign.XXXXXX)
cp "$VICTIM" "$out/launcher_victim"
mkdir "$out/foreign-tmp"
TMPDIR="$out/foreign-tmp" "$out/launcher_victim" hang >/dev/null 2>&1 &
other=$!
[ -z "$(pe_procs)" ] || fail "another user's process counted as a PE of this run"
kill -KILL $other
wait $other 2>/dev/null
touch "$TMPDIR/aos-arena"
[ "$before" != "$(aos_files)" ] || fail "a file in the PEs' TMPDIR went unnoticed"
rm -f "$TMPDIR/aos-arena"

after=$(aos_files)
rm -f "$foreign"
printf '%s\n' "$before" >"$out/files.before"
printf '%s\n' "$after" >"$out/files.after"
[ "$before" = "$after" ] || fail "files left behind: $(diff "$out/files.before" "$out/files.after")"
rm -rf "$out"
[ $fails = 0 ] && echo "all aosrun tests passed"
exit $fails
