#!/usr/bin/env bash
# An attacker on island i2 forges well-formed packets with the source
# address of rank 1 (a raw socket) at rank 0 of a 2-rank group. Without
# authentication (issue #11) they cannot all be refused; each may only
# touch the operation (and the peer) it names, is counted, and ends in a
# prompt, documented status, never a hang (docs/transport.md, "Forged
# packets"). Operations 1..8, each checked exactly on both ranks:
#   1 no forgery: exact
#   2 forged STATUS: rank 0 frees its data early; rank 1, which lost it,
#     is answered with ABORT and fails with ECONNABORTED (not a hang)
#   3 forged DATA with the stream's chunking: rank 0 sums the forged
#     values (the corruption authentication removes), rank 1 is exact
#   4 forged DATA with another chunking: rank 0 fails with EPROTO at the
#     real data (a mismatch), not at the timeout
#   5 forged POLL with another chunking: does not pin the stream's
#     chunking: exact on both
#   6 ten forged NACKs for everything: nacks_received +10, at most 4x the
#     operation's chunks resent, the 6 over that cap counted
#     (drop_ratelimit +6); exact on both
#   7 forged ABORT for a future operation: that operation fails on both
#     ranks with the forged status (ECONNRESET)
#   8 no forgery: exact
#   9 a flood of forged NACKs for a chunk a paced rank 0 has not sent yet,
#     then rank 0 closes with operation 9 in flight (rank 1 submits it
#     after the close, so rank 0 has not completed it): the STATUS answers to
#     rank 1 take at most its share of rank 0's control queue, so the
#     ABORT of the close is still queued and rank 1 fails with ECONNRESET
#     (without the share the answers fill the queue, the ABORT is refused,
#     and rank 1 learns only from answers to later forged NACKs,
#     ECONNABORTED, or by timing out)
. "$(dirname "$0")/lib.sh"
tmp=$(mktemp -d)
gs_islands_up 3
a0=$(gs_addr4 i0)
a1=$(gs_addr4 i1)
port=7500
grp=41
members="$a0:$port,$a1:$port"
. "$(dirname "$0")/spoof-pair.sh"
spoof_pair_start "$grp" "$members"
forge() {	# forge KIND SEQ N [CB [COUNT]]
	gs_exec i2 python3 tests/netns/spoof.py forge "$1" "$a1:$port" "$a0:$port" \
		"$grp" "$2" "$3" "${4:-$cb}" "${5:-1}" > /dev/null
}
i0_mem() { gs_exec i0 awk '$1 == "mem_bytes" {print $2}' /proc/net/gsync_stats; }
wait_i0_freed() {
	local _
	for _ in $(seq 1000); do
		[ "$(i0_mem)" = 0 ] && return 0
		sleep 0.02
	done
	return 1
}
p1_loss() { tc -n gs-wan qdisc replace dev p1 parent 1:2 handle 2: netem limit 100000 "$@"; }
mac() { ip -n "$(gs_ns "$1")" -br link show eth0 | awk '{print $3}'; }
# While i1 hears nothing, ARP to and from it must not be needed: a
# neighbour entry going stale (the debug kernel is slow enough) would
# keep rank 1's data from leaving. Pin both entries.
ip -n "$(gs_ns i1)" neigh replace "$a0" lladdr "$(mac i0)" dev eth0 nud permanent
ip -n "$(gs_ns i0)" neigh replace "$a1" lladdr "$(mac i1)" dev eth0 nud permanent

read -r l0 <&4
read -r l1 <&6
gs_ok "both ranks joined ($l0, $l1)" test "$l0 $l1" = "joined joined"
ask 1 chunk
cb=${ans#chunk_bytes }
n=256			# 1 KiB: one chunk
m=$cb			# 4 chunks of cb bytes
echo "# chunk_bytes $cb; operations of $n and $m elements"

# 1. no forgery
ask 0 submit 1 $n; ask 1 submit 1 $n
expect 0 "result 1 0 match" "op 1: rank 0 exact" collect 1 $n
expect 1 "result 1 0 match" "op 1: rank 1 exact" collect 1 $n

# 2. forged STATUS while rank 1 cannot hear rank 0
p1_loss loss 100%
ask 0 submit 2 $n
forge status 2 $n
ask 1 submit 2 $n
expect 0 "result 2 0 match" "op 2: rank 0 completes" collect 2 $n
gs_ok "op 2: rank 0 freed its data on the forged STATUS (mem_bytes 0)" wait_i0_freed
p1_loss
expect 1 "result 2 103 match" "op 2: rank 1 is told (ECONNABORTED), not left to time out" \
	collect 2 $n

# 3. forged DATA with the right chunking, before rank 1's own
rx=$(val 0 rx_packets)
dup=$(val 0 drop_dup)
ask 0 submit 3 $n
forge data 3 $n
expect 0 "reached rx_packets $(( rx + 1 ))" "op 3: rank 0 took the forged chunk" \
	wait rx_packets $(( rx + 1 ))
ask 1 submit 3 $n
expect 0 "result 3 0 match" "op 3: rank 0's result is its input plus the forged values" \
	collect 3 $n 1.0
expect 1 "result 3 0 match" "op 3: rank 1 exact" collect 3 $n
expect 0 "reached drop_dup $(( dup + 1 ))" "op 3: rank 1's real chunk counted as a duplicate" \
	wait drop_dup $(( dup + 1 ))

# 4. forged DATA with half the chunk size, then the real stream
mis=$(val 0 mismatches)
ask 0 submit 4 $m
forge data 4 $m $(( cb / 2 ))
ask 0 wait rx_packets $(( rx + 2 ))
ask 1 submit 4 $m
expect 0 "result 4 71 match" "op 4: rank 0 fails with EPROTO at the real data" collect 4 $m
expect 1 "result 4 0 match" "op 4: rank 1 (complete at submit) is exact" collect 4 $m
expect 0 "mismatches $(( mis + 1 ))" "op 4: one mismatch counted" get mismatches

# 5. forged POLL with half the chunk size, before any DATA of rank 1
ask 0 submit 5 $m
forge poll 5 $m $(( cb / 2 ))
ask 1 submit 5 $m
expect 0 "result 5 0 match" "op 5: rank 0 exact (the POLL did not set the chunking)" collect 5 $m
expect 1 "result 5 0 match" "op 5: rank 1 exact" collect 5 $m
expect 0 "mismatches $(( mis + 1 ))" "op 5: no mismatch" get mismatches

# 6. ten forged NACKs for all of operation 6
nr=$(val 0 nacks_received)
rl=$(val 0 drop_ratelimit)
rt=$(val 0 retransmits)
ask 0 submit 6 $m
forge nack 6 $m "$cb" 10
expect 0 "reached nacks_received $(( nr + 10 ))" "op 6: rank 0 read the 10 NACKs" \
	wait nacks_received $(( nr + 10 ))
expect 0 "drop_ratelimit $(( rl + 6 ))" "op 6: the 6 NACKs over 4x the chunks were refused" \
	get drop_ratelimit
ask 1 submit 6 $m
expect 0 "result 6 0 match" "op 6: rank 0 exact" collect 6 $m
expect 1 "result 6 0 match" "op 6: rank 1 exact" collect 6 $m
rt2=$(val 0 retransmits)
gs_ok "op 6: rank 0 resent at most 4 x 4 chunks ($(( rt2 - rt )))" test $(( rt2 - rt )) -le 16

# 7. forged ABORT for operation 7 before either rank submitted it
forge abort 7 $n
ask 0 submit 7 $n
ask 1 submit 7 $n
expect 0 "result 7 104 match" "op 7: rank 0 fails with the forged ECONNRESET" collect 7 $n
expect 1 "result 7 104 match" "op 7: rank 1 is told the same" collect 7 $n

# 8. no forgery
ask 0 submit 8 $n; ask 1 submit 8 $n
expect 0 "result 8 0 match" "op 8: rank 0 exact" collect 8 $n
expect 1 "result 8 0 match" "op 8: rank 1 exact" collect 8 $n

# 9. a NACK flood while rank 0 closes
big=262144		# 1 MiB: at 2000 B/s its last chunk leaves after ~8 min
nr=$(val 0 nacks_received)
expect 0 "rate 2000" "op 9: rank 0 paced at 2000 B/s" rate 2000
ask 0 submit 9 $big	# rank 1 submits after the close: rank 0 waits for it
mkfifo "$tmp/flood"
# The flood must not hold the ranks' pipes open: rank 0 closes on EOF.
gs_exec i2 python3 tests/netns/spoof.py flood nack-tail "$a1:$port" "$a0:$port" \
	"$grp" 9 $big "$cb" < "$tmp/flood" > "$tmp/flooded" 2>&1 3>&- 4<&- 5>&- 6<&- &
pf=$!
exec 7> "$tmp/flood"
# 2000 STATUS answers (96 bytes each) against ~20 a second of pacing:
# without the share, the queue (1024) has filled.
ask 0 atleast nacks_received $(( nr + 2000 ))
gs_ok "op 9: rank 0 read 2000 forged NACKs or more ($ans)" test "${ans%% *}" = reached
exec 3>&-		# rank 0 closes, operation 9 in flight, the flood going on
wait "$p0" || gs_fail "rank 0 exited cleanly"
exec 7>&-		# and only then the flood stops
wait "$pf" || gs_fail "the flood ran ($(cat "$tmp/flooded"))"
echo "# $(cat "$tmp/flooded")"
ask 1 submit 9 $big
expect 1 "result 9 104 match" "op 9: rank 1 is told of the close (ECONNRESET) through the flood" \
	collect 9 $big

exec 5>&-
wait "$p1" || gs_fail "rank 1 exited cleanly"
cat <&4 | gs_diag
cat <&6 | gs_diag
exec 4<&- 6<&-
rm -rf "$tmp"
exit $GS_FAILED
