#!/usr/bin/env bash
# Unload is refused while a socket is open (the socket pins the module) and is
# clean once it is closed; the module can be loaded again afterwards.
. "$(dirname "$0")/lib.sh"
gs_islands_up 2
gs_hold i0 1
pid=$GS_HOLD_PID

gs_ok "rmmod is refused while a socket is open" bash -c '! rmmod gsync 2>/dev/null'
gs_ok "module still loaded" test -d /sys/module/gsync
gs_ok "the open socket is still listed" test "$(gs_exec i0 tail -n +2 /proc/net/gsync | wc -l)" = 1
gs_unhold "$pid"
gs_ok "rmmod succeeds after the socket is closed" rmmod gsync
gs_ok "per-netns proc files are gone" bash -c "! ip netns exec gs-i0 test -e /proc/net/gsync"
gs_ok "module loads again" insmod "$GSYNC_MODDIR/kmod/gsync.ko"
gs_ok "islands created before the reload get their state" \
	ip netns exec gs-i1 test -r /proc/net/gsync
exit $GS_FAILED
