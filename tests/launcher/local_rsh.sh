#!/bin/sh
# aosrun --rsh that runs the command on this machine whatever the host:
# every "host" of an aosrun --hosts test is this one.
shift
exec "$@"
