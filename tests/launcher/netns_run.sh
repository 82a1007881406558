#!/bin/sh
# Runs a command on host A of the two-host test bed (netns_lib.sh), for the
# benchmarks that compare across hosts (bench/net_compare --hosts,
# bench/coll_compare --hosts). The command learns the bed from
#   AOS_BED_HOSTS   "A B", the hosts' names
#   AOS_BED_ADDRS   "addrA addrB", their addresses on the link
#   AOS_BED_RSH     the remote shell: AOS_BED_RSH HOST COMMAND...
#   AOS_BED_DEV     the link's device name on both (UCX_NET_DEVICES is set)
# Everything is removed when the command ends; its status is ours.
# usage: netns_run.sh COMMAND [ARGS...]
set -u
AOS_NETNS_LIMIT=${AOS_NETNS_LIMIT:-7200} # (benchmarks run long)
. "$(dirname "$0")/netns_lib.sh"
export AOS_BED_HOSTS="$nsA $nsB" AOS_BED_ADDRS="$addrA $addrB" AOS_BED_RSH="$RSH" AOS_BED_DEV=$DEV
in_a "$@"
