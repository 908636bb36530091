#!/usr/bin/env bash
# A live rank is never timed out. In a multi-round schedule a rank can wait
# in an early round far longer than op_timeout_ms while its later-round
# partners hear nothing from it; they probe it and it must answer. And a
# rank whose operation is over must go on serving a slower peer the data
# it is still sending it, however long after op_timeout_ms that is.
#
# The setting: a 2x2 grid (rows unicast, then columns rs_multicast), rank 1
# paced so that what it sends its row partner, rank 0, trickles in over
# several timeouts. Ranks 1 and 3 finish first (rank 1 sends its later
# rounds before its first, as the send path pipelines); ranks 0 and 2 wait
# for rank 1's first round, block by block.
. "$(dirname "$0")/lib.sh"
tmp=$(mktemp -d)
gs_islands_up 4

# gs_ms DIR RANK: how long RANK's first operation took (ms, integer).
gs_ms() { sed -n 's/.*seq 1 fp32 sum .*: \([0-9]*\)\.[0-9] ms status 0$/\1/p' "$1/rank$2"; }
# gs_no_failure DIR: no rank counted a failed operation or a timeout.
gs_no_failure() { ! grep -h '^# stats' "$1"/rank* | grep -qE ' (ops_failed|timeouts)='; }
# gs_waited DIR CASE MS: no failure counted, and ranks 0 and 2 (the ones
# that wait for rank 1) took MS or more, so the wait outlasted the timeout.
gs_waited() {
	local r ms
	gs_ok "$2: no failure or timeout counted" gs_no_failure "$1"
	for r in 0 2; do
		ms=$(gs_ms "$1" "$r")
		gs_ok "$2: rank $r waited $3 ms or more (${ms:-no} ms)" test "${ms:-0}" -ge "$3"
	done
}

# 1. Streams that have not started. Rank 0 holds no block of the column
# round until rank 1's whole row stream is in (8 blocks at 250 kB/s, after
# rank 1's own column rounds: about twice 2 s), so rank 2 hears nothing of
# its column streams from rank 0 for several op_timeout_ms of 1 s.
to=$(gs_pick 1000 5000)
python3 tests/netns/gsched.py grid 2 2 -o "$tmp/grid" >/dev/null
GS_RANK_ARGS=("" "--rate $(gs_pick 250000 50000)")
gs_group "$tmp/a" "waiting in round 1 for 4 timeouts, no rank is timed out" \
	--members "$(gs_members 4 7000)" --mcast 239.77.2.1:7100 --dtypes fp32 \
	--ops sum --sizes 131072 --timeout-ms "$to" --schedule "$tmp/grid"
gs_waited "$tmp/a" "streams not started" $((3 * to))

# 2. Streams that stopped. With 16 KiB blocks at 16 kB/s and op_timeout_ms
# 400, rank 1's row stream to rank 0 begins, then stops for seconds while
# rank 1 sends its column rounds, and each of rank 0's column streams to
# rank 2 begins, then waits about a second per block of it: streams with
# nothing missing below the highest chunk received, silent for several
# timeouts.
to=$(gs_pick 400 2000)
python3 tests/netns/gsched.py grid 2 2 --block 16384 -o "$tmp/grid16" >/dev/null
GS_RANK_ARGS=("" "--rate $(gs_pick 16384 4096)")
gs_group "$tmp/b" "streams stopped for several timeouts, no rank is timed out" \
	--members "$(gs_members 4 7001)" --mcast 239.77.2.2:7101 --dtypes fp32 \
	--ops sum --sizes 16384 --timeout-ms "$to" --schedule "$tmp/grid16"
GS_RANK_ARGS=()
gs_waited "$tmp/b" "streams that stopped" $((10 * to))
rm -rf "$tmp"
exit $GS_FAILED
