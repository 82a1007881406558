#!/bin/sh
# The remote shell of the two-host test beds (netns_lib.sh): runs a command
# "on a host", that is in the network namespace of that name, with the
# host's name as its hostname.
# UCX lists network devices from /sys/class/net, which shows the namespace
# that mounted sysfs: the command gets a mount namespace of its own with a
# sysfs of its network namespace. The cgroup mounts under /sys/fs/cgroup
# are carried over onto the new sysfs (slurmd needs them). Only that: `ip
# netns exec` also redoes /etc bind mounts and more.
# Like ssh, it joins the command's words with blanks and has a shell on the
# "host" run the line.
# usage: netns_rsh.sh HOST COMMAND [ARGS...]
host=$1
shift
exec nsenter --net="/run/netns/$host" -- unshare --mount --uts --propagation private \
    sh -c 'cg=""
           if mountpoint -q /sys/fs/cgroup; then
               cg=$(mktemp -d) && mount --rbind /sys/fs/cgroup "$cg" || exit 1
           fi
           mount -t sysfs aos-netns /sys || exit 1
           if [ -n "$cg" ]; then
               mount --rbind "$cg" /sys/fs/cgroup && umount -l "$cg" && rmdir "$cg" || exit 1
           fi
           hostname "$0" && exec sh -c "$*"' "$host" "$@"
