#!/bin/sh
# Runs a command that must end with a given status and print a line
# matching a pattern (grep -E) on its output or error stream.
# usage: expect_exit.sh STATUS PATTERN COMMAND [ARGS...]
want=$1
pattern=$2
shift 2
out=$("$@" 2>&1)
status=$?
printf '%s\n' "$out"
if [ "$status" -ne "$want" ]; then
    echo "FAIL: exit status $status, expected $want"
    exit 1
fi
if ! printf '%s\n' "$out" | grep -Eq -- "$pattern"; then
    echo "FAIL: no line matches: $pattern"
    exit 1
fi
