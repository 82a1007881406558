#!/bin/sh
# aos-info lists every AOS_* and SHMEM_* environment variable that aos's
# library, tools and OpenSHMEM front end read: the names come from the
# sources (getenv("...") and the launcher's AOS__ENV_* names), the list from
# aos-info's output. usage: info_vars.sh SOURCE_DIR AOS_INFO
set -u
src=$1 info=$2
out=$("$info" --check-config) || { echo "FAIL: aos-info failed"; exit 1; }
names=$(grep -rhoE '(getenv|env_set)\("(AOS|SHMEM)_[A-Z0-9_]+"\)|define AOS__ENV_[A-Z_]+ "[A-Z_]+"' \
            "$src/src" "$src/tools" "$src/include" |
        grep -oE '"(AOS|SHMEM)_[A-Z0-9_]+"' | tr -d '"' | sort -u)
[ -n "$names" ] || { echo "FAIL: found no variable names in $src"; exit 1; }
fails=0
for n in $names; do
    if ! printf '%s\n' "$out" | grep -qE "^  $n +="; then
        echo "FAIL: aos-info does not list $n"
        fails=$((fails + 1))
    fi
done
[ $fails = 0 ] && echo "aos-info lists all $(echo "$names" | wc -l) variables the sources read"
exit $fails
