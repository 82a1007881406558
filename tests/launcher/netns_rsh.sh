#!/bin/sh
# aosrun --rsh for the two-host test bed (netns_hosts.sh): runs a command
# "on a host", that is in the network namespace of that name.
# UCX lists network devices from /sys/class/net, which shows the namespace
# that mounted sysfs: the command gets a mount namespace of its own with a
# sysfs of its network namespace (only that; `ip netns exec` also redoes
# /etc bind mounts and more).
# usage: netns_rsh.sh HOST COMMAND [ARGS...]
host=$1
shift
exec nsenter --net="/run/netns/$host" -- unshare --mount --propagation private \
    sh -c 'mount -t sysfs aos-netns /sys && exec "$@"' netns_rsh "$@"
