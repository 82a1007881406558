#!/bin/sh
# PEs that load different machine models use PE 0's: a collective whose
# plan depends on the model completes with exact results instead of PEs
# waiting for each other at different places. A model file AOS_MODEL_FILE
# names that one PE cannot read (a FIFO, so reading must not block) stops
# every PE's aos_init promptly.
# usage: model_mismatch.sh AOSRUN PROGRAM CHAIN_MODEL NO_PUSH_MODEL
set -u
aosrun=$1 prog=$2 chain=$3 no_push=$4
tmp=$(mktemp -d "${TMPDIR:-/tmp}/model_mismatch.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
export TMPDIR=$tmp
cp "$chain" "$tmp/model.0"
cp "$no_push" "$tmp/model.1"
mkfifo "$tmp/model.fifo"
fails=0
# even PEs read one model, odd PEs the other (AOS_RANK: set by aosrun)
AOS_DEBUG=1 "$aosrun" -n 4 --timeout 120 sh -c \
    'AOS_MODEL_FILE='"$tmp"'/model.$((AOS_RANK % 2)) exec "$0"' "$prog" >"$tmp/out" 2>"$tmp/err"
rc=$?
if [ $rc != 0 ]; then
    echo "FAIL: different models per PE: status $rc"; tail -5 "$tmp/err"; fails=$((fails + 1))
fi
grep -q "aos\[1\]: model: mine differs from PE 0's; using PE 0's" "$tmp/err" ||
    { echo "FAIL: PE 1 did not say it took PE 0's model"; fails=$((fails + 1)); }
start=$(date +%s)
"$aosrun" -n 3 --timeout 60 sh -c \
    '[ "$AOS_RANK" = 2 ] && export AOS_MODEL_FILE='"$tmp"'/model.fifo; exec "$0"' "$prog" \
    >"$tmp/out2" 2>"$tmp/err2"
rc=$?
took=$(( $(date +%s) - start ))
if [ $rc = 0 ] || [ $rc = 124 ] || [ $took -gt 30 ]; then
    echo "FAIL: a FIFO as one PE's model: status $rc after $took s"; fails=$((fails + 1))
fi
grep -q "model.fifo: not a regular file" "$tmp/err2" ||
    { echo "FAIL: the FIFO was not named:"; cat "$tmp/err2"; fails=$((fails + 1)); }
[ $fails = 0 ] && echo "PEs with different models agreed on PE 0's; a FIFO model was refused"
exit $fails
