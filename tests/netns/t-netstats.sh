#!/usr/bin/env bash
# /proc/net/gsync_stats keeps the namespace's totals over every group it
# has had: operations and drops are still counted there after the sockets
# that counted them have closed, exactly once, and only in their namespace.
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
gs_islands_down
rm -rf "$tmp"
exit $GS_FAILED
