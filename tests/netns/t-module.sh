#!/usr/bin/env bash
# The module loads, publishes its family number, refuses bad family= values
# with a clear message, and creates only SOCK_SEQPACKET/protocol-0 sockets.
. "$(dirname "$0")/lib.sh"
ko=$GSYNC_MODDIR/kmod/gsync.ko
gsock() { python3 tests/netns/gsock.py "$@"; }

gs_ok "module is loaded" test -d /sys/module/gsync
gs_ok "family parameter reads 25" test "$(cat /sys/module/gsync/parameters/family)" = 25
gs_ok "/proc/net/gsync exists" test -r /proc/net/gsync
gs_ok "/proc/net/gsync_stats exists" test -r /proc/net/gsync_stats
gs_ok "SOCK_SEQPACKET socket opens" test "$(gsock create 5 0)" = ok
gs_ok "SOCK_DGRAM is refused with ESOCKTNOSUPPORT" test "$(gsock create 2 0)" = ESOCKTNOSUPPORT
gs_ok "SOCK_STREAM is refused with ESOCKTNOSUPPORT" test "$(gsock create 1 0)" = ESOCKTNOSUPPORT
gs_ok "protocol 1 is refused with EPROTONOSUPPORT" test "$(gsock create 5 1)" = EPROTONOSUPPORT

gs_ok "rmmod with no socket open" rmmod gsync
gs_ok "/proc/net/gsync is gone after unload" test ! -e /proc/net/gsync
gs_ok "family is unregistered after unload" test "$(gsock create 5 0 2>/dev/null)" != ok

gs_ok "insmod family=13" insmod "$ko" family=13
gs_ok "family parameter reads 13" test "$(cat /sys/module/gsync/parameters/family)" = 13
gs_ok "socket(13, SOCK_SEQPACKET) opens" python3 -c 'import socket; socket.socket(13, socket.SOCK_SEQPACKET).close()'
rmmod gsync

insmod_refused() { ! insmod "$ko" family="$1" 2>/dev/null; }
refusal_logged() { gs_kmsg_since "$1" | grep -q "family=$2 is not allowed"; }
for bad in 2 10 16 26 46 -1; do
	mark=$(gs_kmsg_mark)
	gs_ok "insmod family=$bad is refused" insmod_refused "$bad"
	gs_ok "family=$bad refusal is explained in the kernel log" refusal_logged "$mark" "$bad"
done
gs_ok "module is not left loaded after refusals" test ! -d /sys/module/gsync
gs_ok "insmod with the default family again" insmod "$ko"
exit $GS_FAILED
