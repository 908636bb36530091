#!/usr/bin/env bash
# Sockets and counters are per network namespace: each island sees only its
# own sockets in /proc/net/gsync and its own counters in /proc/net/gsync_stats.
. "$(dirname "$0")/lib.sh"
n=4
gs_islands_up $n

stat_of() { gs_exec "$1" awk -v k="$2" '$1 == k {print $2}' /proc/net/gsync_stats; }
listed() { gs_exec "$1" tail -n +2 /proc/net/gsync | wc -l; }

# Island k holds k+1 sockets, opened by a process inside its namespace.
declare -a pids
for (( k = 0; k < n; k++ )); do
	gs_ok "island i$k: a holder opened $(( k + 1 )) sockets" gs_hold "i$k" $(( k + 1 ))
	pids[k]=$GS_HOLD_PID
done

for (( k = 0; k < n; k++ )); do
	gs_ok "island i$k lists its $(( k + 1 )) sockets" test "$(listed "i$k")" = $(( k + 1 ))
	gs_ok "island i$k sockets_open = $(( k + 1 ))" test "$(stat_of "i$k" sockets_open)" = $(( k + 1 ))
	gs_ok "island i$k sockets_created = $(( k + 1 ))" test "$(stat_of "i$k" sockets_created)" = $(( k + 1 ))
done
gs_ok "the initial namespace lists none of them" test "$(tail -n +2 /proc/net/gsync | wc -l)" = 0
gs_ok "the initial namespace counts none of them" \
	test "$(awk '$1 == "sockets_open" {print $2}' /proc/net/gsync_stats)" = 0

# Close island 1's sockets only.
gs_ok "island i1's holder closed its sockets and exited cleanly" gs_unhold "${pids[1]}"
gs_ok "closing island i1's sockets empties its list" test "$(listed i1)" = 0
gs_ok "island i1 sockets_open back to 0" test "$(stat_of i1 sockets_open)" = 0
gs_ok "island i1 sockets_created stays 2" test "$(stat_of i1 sockets_created)" = 2
gs_ok "island i2 still lists 3 sockets" test "$(listed i2)" = 3

# Delete a namespace while one of its sockets is open: the namespace lives on
# until the socket closes, then its state goes away without complaint.
ip netns del gs-i3
gs_ok "island i3's process still holds its sockets after netns del" kill -0 "${pids[3]}"
gs_ok "the other holders, i3's in a deleted namespace too, exited cleanly" \
	gs_unhold "${pids[0]}" "${pids[2]}" "${pids[3]}"
gs_ok "no socket of any island is left open" \
	test "$(for k in 0 1 2; do stat_of "i$k" sockets_open; done | sort -u)" = 0
exit $GS_FAILED
