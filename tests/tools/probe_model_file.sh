#!/bin/sh
# aos-probe (re)writes the model file AOS_MODEL_FILE names, whether it is
# missing or outdated (aos_init would refuse either), and AOS_DEBUG=1 says
# which model file a program loaded.
# usage: probe_model_file.sh AOSRUN AOS_PROBE PROGRAM
set -eu
aosrun=$1 probe=$2 prog=$3
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# need PATTERN FILE: the test fails, showing FILE, unless FILE has PATTERN
need() {
    grep -q -e "$1" "$2" && return 0
    echo "FAIL: /$1/ not in $2:"
    sed 's/^/    /' "$2"
    exit 1
}
model=$tmp/sub/model
mkdir -p "$tmp/sub"
AOS_MODEL_FILE=$model "$aosrun" -n 2 --timeout 200 "$probe" --quick >"$tmp/out1"
need "written to $model" "$tmp/out1"
need '^latency_ns ' "$model"
# outdated: a file an older aos-probe wrote lacks keys; aos_init refuses it
grep -v '^per_byte_slice_fold' "$model" >"$tmp/old" && mv "$tmp/old" "$model"
if AOS_MODEL_FILE=$model "$aosrun" -n 2 --timeout 60 "$prog" >/dev/null 2>&1; then
    echo "FAIL: an outdated model file was accepted"
    exit 1
fi
AOS_MODEL_FILE=$model "$aosrun" -n 2 --timeout 200 "$probe" --quick >"$tmp/out2"
need "written to $model" "$tmp/out2"
AOS_DEBUG=1 AOS_MODEL_FILE=$model "$aosrun" -n 2 --timeout 60 "$prog" >/dev/null 2>"$tmp/err" || {
    echo "FAIL: $prog with the rewritten model file:"
    sed 's/^/    /' "$tmp/err"
    exit 1
}
need "aos\[0\]: model: loaded $model" "$tmp/err"
need "aos\[1\]: model: loaded $model" "$tmp/err"
echo "aos-probe rewrote a missing and an outdated model file; AOS_DEBUG named it"
