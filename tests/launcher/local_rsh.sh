#!/bin/sh
# aosrun --rsh that runs the command on this machine whatever the host:
# every "host" of an aosrun --hosts test is this one. Like ssh, it joins
# its arguments with blanks and has a shell run the line.
shift
exec sh -c "$*"
