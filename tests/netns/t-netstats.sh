#!/usr/bin/env bash
# /proc/net/gsync_stats keeps the namespace's totals over every group it
# has had: operations and drops are still counted there after the sockets
# that counted them have closed, exactly once, and only in their namespace;
# a packet to the port of a group that has ended is the UDP layer's NoPorts.
. "$(dirname "$0")/lib.sh"
gs_islands_up 2
tmp=$(mktemp -d)

stat_of() { gs_exec "$1" awk -v k="$2" '$1 == k {print $2}' /proc/net/gsync_stats; }
# Groups end when their peers have acknowledged; wait for that, bounded.
no_groups() {
	local end=$(( SECONDS + 120 ))
	until [ "$(stat_of "$1" groups_live)" = 0 ] || [ $SECONDS -ge $end ]; do
		read -rt 0.1 <> <(:) || true
	done
	[ "$(stat_of "$1" groups_live)" = 0 ]
}

gs_ok "island i0 starts with no group" test "$(stat_of i0 groups_live)" = 0
for k in ops_submitted ops_completed ops_failed drop_version; do
	gs_ok "island i0 starts with $k 0" test "$(stat_of i0 "$k")" = 0
done

# Three operations on a 2-rank group, then both processes exit.
gs_group "$tmp/ops" "3 operations" --members "$(gs_members 4 7310)" \
	--mcast 239.77.31.1:7311 --dtypes fp32 --ops sum --sizes 1000,70000,3 \
	--iters 1
gs_ok "island i0's group ended after its peer acknowledged" no_groups i0
gs_ok "island i1's group ended after its peer acknowledged" no_groups i1
for i in i0 i1; do
	gs_ok "$i: ops_submitted 3 after close" test "$(stat_of $i ops_submitted)" = 3
	gs_ok "$i: ops_completed 3 after close" test "$(stat_of $i ops_completed)" = 3
	gs_ok "$i: ops_failed 0" test "$(stat_of $i ops_failed)" = 0
	gs_ok "$i: rx_packets counted" test "$(stat_of $i rx_packets)" -gt 0
done
gs_ok "the initial namespace counted none of it" \
	test "$(awk '$1 == "ops_submitted" {print $2}' /proc/net/gsync_stats)" = 0

# A packet the socket drops is still counted after the socket closed.
line=$(gs_exec i0 python3 tests/netns/netstats.py junk "$(gs_addr4 i0)" 7320 "$(gs_addr4 i1)")
gs_ok "the socket dropped the junk packet as drop_version ($line)" \
	test "$line" = "drop_version 1"
gs_ok "island i0's junk group ended at close" no_groups i0
gs_ok "i0: drop_version 1 after close" test "$(stat_of i0 drop_version)" = 1
gs_ok "i0: still 3 operations (the junk group ran none)" test "$(stat_of i0 ops_submitted)" = 3
gs_ok "i1: drop_version 0 (not its namespace)" test "$(stat_of i1 drop_version)" = 0

# Totals never go backwards while groups come and go: the second run adds
# exactly its own operations.
gs_group "$tmp/ops2" "3 more operations" --members "$(gs_members 4 7330)" \
	--mcast 239.77.31.2:7331 --dtypes fp32 --ops sum --sizes 8,8,8 --iters 1
gs_ok "island i0's second group ended" no_groups i0
gs_ok "i0: ops_completed 6 after two groups" test "$(stat_of i0 ops_completed)" = 6

# Packets for no live group (gsync(7), PACKETS FOR NO LIVE GROUP). While a
# group lives, open or lingering after close, its port is its own: a packet
# with another group id is its drop_group. Once it has ended its UDP
# sockets are closed, so the UDP layer counts the next packet to that port
# (Udp NoPorts, Udp6NoPorts) and no gsync counter does. netstats.py noport
# runs the steps in i0 and prints "NAME VALUE" per result.
val() { awk -v k="$1" '$1 == k { print $2 }' <<< "$out"; }
for v in 4 6; do
	if [ $v = 4 ]; then a=$(gs_addr4 i0) c="Udp NoPorts"; else a=$(gs_addr6 i0) c=Udp6NoPorts; fi
	out=$(gs_exec i0 python3 tests/netns/netstats.py noport "$a" $(( 7340 + 2 * v )) 5000)
	grep '^#' <<< "$out"
	gs_ok "IPv$v: a packet with another group id to an open group's port is its drop_group, exactly 1" \
		test "$(val drop_group_socket) $(val drop_group_namespace)" = "1 1"
	gs_ok "IPv$v: after close the group lingers (groups_live +$(val lingering))" test "$(val lingering)" = 1
	gs_ok "IPv$v: such a packet to the lingering group's port is drop_group too" \
		test "$(val drop_group_lingering)" = 1
	gs_ok "IPv$v: the linger ends (groups_live back to what it was)" test "$(val linger_over)" = 1
	gs_ok "IPv$v: one packet to the ended group's port adds exactly 1 to $c (added $(val noports))" \
		test "$(val noports)" = 1
	gs_ok "IPv$v: and changes no line of /proc/net/gsync_stats" test "$(val gsync_unchanged)" = 1
done
# gsyncctl stats shows those counters of the namespace it reads (--netns:
# /proc/net after entering it), on a line that says they are all UDP.
G=userspace/gsyncctl/gsyncctl
[ -x "$G" ] || make -s -C userspace/gsyncctl gsyncctl >/dev/null
np4=$(gs_exec i0 awk '$1 == "Udp:" && $2 ~ /^[0-9]+$/ { print $3; exit }' /proc/net/snmp)
np6=$(gs_exec i0 awk '$1 == "Udp6NoPorts" { print $2 }' /proc/net/snmp6)
got=$($G --netns "$(gs_ns i0)" stats --json |
	python3 -c 'import json, sys; u = json.load(sys.stdin)["udp"]; print(u["UdpNoPorts"], u["Udp6NoPorts"])')
gs_ok "gsyncctl --netns stats --json: i0's UdpNoPorts and Udp6NoPorts ($got; /proc/net/snmp*: $np4 $np6)" \
	test -n "$np4" -a "$got" = "$np4 $np6" -a "${np4:-0}" -ge 1 -a "${np6:-0}" -ge 1
gs_ok "gsyncctl --netns stats: the line says all UDP, not only gsync" bash -c \
	"$G --netns $(gs_ns i0) stats | grep -qx 'udp (all UDP of the namespace, not only gsync): UdpNoPorts $np4 .*'"
gs_islands_down
rm -rf "$tmp"
exit $GS_FAILED
