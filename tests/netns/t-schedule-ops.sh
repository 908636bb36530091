#!/usr/bin/env bash
# Schedules in operation on nine islands: switching schedules between
# operations, ranks that disagree on the schedule (EPROTO on every rank),
# the socket options and hostile blobs (sched_api.py), a schedule pushed
# from outside by gsyncctl, and loss repair under a schedule.
. "$(dirname "$0")/lib.sh"
tmp=$(mktemp -d)
gs_sched_nine "$tmp" || gs_fail "nine islands and schedule blobs"
sched() { python3 tests/netns/gsched.py "$@"; }

# ---- switching between operations --------------------------------------------
gs_group "$tmp/sw" "default, then grid at op 5, one clique at 9, default at 13" \
	--members "$(gs_members 4 7301)" --mcast 239.77.9.4:7404 --dtypes fp32 \
	--ops sum,avg --sizes 7,30000 --iters 4 --timeout-ms 60000 --check-sample 2000 \
	--switch "5:$tmp/grid-rs" --switch "9:$tmp/one" --switch 13:default

# ---- ranks that disagree on the schedule --------------------------------------
GS_RANK_ARGS=([0]="--schedule $tmp/one")
for r in 1 2 3 4 5 6 7 8; do GS_RANK_ARGS[r]="--schedule $tmp/grid-rs"; done
gs_group "$tmp/mis" "rank 0 on another schedule: EPROTO everywhere" \
	--members "$(gs_members 4 7302)" --mcast 239.77.9.6:7406 --dtypes fp32 --ops sum \
	--sizes 20000 --expect-status 71 --timeout-ms 20000
GS_RANK_ARGS=()
gs_ok "the disagreement was seen as a mismatch" grep -q 'mismatches=[1-9]' "$tmp"/mis/rank*

# ---- rates carried by the schedule ---------------------------------------------
# A clique's rate_kbit paces its members with no pacing_rate set, and a
# group's pacing_rate caps a faster one. Pacing bounds the time from below
# (never flaky): the first rank to submit receives each other rank's
# 512 KiB no faster than it is sent, less the token bucket's 64 KiB.
slowest_ms() {
	sed -n 's/.* seq 1 .*: \([0-9.]*\) ms status 0$/\1/p' "$1"/rank* | sort -g | tail -1
}
sched clique 9 --pattern multicast --block 65536 --rate-kbit 4000 -o "$tmp/slow"
sched clique 9 --pattern multicast --block 65536 --rate-kbit 80000 -o "$tmp/fast"
gs_group "$tmp/rate" "a clique's rate_kbit (4 Mbit/s) paces it, no pacing_rate set" \
	--members "$(gs_members 4 7306)" --mcast 239.77.9.10:7410 --schedule "$tmp/slow" \
	--dtypes fp32 --ops sum --sizes 131072 --timeout-ms 60000
ms=$(slowest_ms "$tmp/rate")
gs_ok "512 KiB at 500 kB/s took at least 0.9 s (${ms:-?} ms)" \
	awk -v m="${ms:-0}" 'BEGIN { exit !(m >= 900) }'
gs_group "$tmp/cap" "the group's pacing_rate (250 kB/s) caps a faster clique rate" \
	--members "$(gs_members 4 7307)" --mcast 239.77.9.11:7411 --schedule "$tmp/fast" \
	--dtypes fp32 --ops sum --sizes 131072 --timeout-ms 60000 --rate 250000
ms=$(slowest_ms "$tmp/cap")
gs_ok "512 KiB at 250 kB/s took at least 1.8 s (${ms:-?} ms)" \
	awk -v m="${ms:-0}" 'BEGIN { exit !(m >= 1800) }'

# ---- hostile blobs --------------------------------------------------------------
gs_exec i0 python3 tests/netns/sched_api.py --members "$(gs_members 4 7310)" --mcast 239.77.9.7:7407 \
	--good "$tmp/grid-rs" --fuzz "$(gs_pick 3000 500)" || GS_FAILED=1

# ---- pushed from outside with gsyncctl (GSYNC_SCHEDULE_PUSH) -------------------
# Ranks run op 1 under the default schedule and wait before op 2 until the
# grid, pushed into each island by gsyncctl, is in place; op 2 and later
# must then be exact under the grid. An island gets the push only once its
# rank completed op 1: every rank has then submitted op 1 under the default,
# and a push that reached one island before another's first submission
# would have split op 1 between two schedules. The islands are pushed one
# after the other, each once its rank is done (on the debug kernel that
# takes minutes for nine): ranks wait that long, and so do their peers.
(gs_group "$tmp/push" "grid pushed by gsyncctl schedule load before op 2" \
	--group 42 --members "$(gs_members 4 7304)" --mcast 239.77.9.9:7409 --dtypes fp32 \
	--ops sum --sizes 5000 --iters 3 --await-push 2 --await-push-s "$(gs_pick 60 1200)" \
	--timeout-ms "$(gs_pick 60000 1200000)" \
	> "$tmp/push.tap"; echo $? > "$tmp/push.rc") &
grp=$!
pushed=0
for id in $(gs_ids); do
	op1_done() { ! kill -0 "$grp" 2>/dev/null || [ "$(gs_proc_sum "$id" ops_completed)" -ge 1 ]; }
	gs_until 900 op1_done || break
	kill -0 "$grp" 2>/dev/null || break
	gs_exec "$id" userspace/gsyncctl/gsyncctl schedule load "$tmp/grid-rs" \
		--group 42 > "$tmp/push.$id.log" 2>&1 && pushed=$((pushed + 1))
done
wait $grp
cat "$tmp/push.tap"
[ "$(cat "$tmp/push.rc")" = 0 ] || GS_FAILED=1
gs_ok "gsyncctl pushed the grid into all 9 islands ($pushed)" test "$pushed" = 9
gs_ok "every rank saw the pushed schedule" \
	test "$(grep -c 'pushed schedule seen' "$tmp"/push/rank*  | awk -F: '{s += $2} END {print s}')" = 9
gs_ok "the later operations ran under it" grep -q 'sched_ops=2' "$tmp"/push/rank0

# ---- loss repair under a schedule ---------------------------------------------
gs_impair delay 10ms 2ms loss 3% reorder 10%
gs_group "$tmp/loss" "3x3 grid under 3% loss and reordering" \
	--members "$(gs_members 4 7305)" --mcast 239.77.9.5:7405 --schedule "$tmp/grid-rs" \
	--dtypes fp32,bf16 --ops sum --sizes "$(gs_pick 5,60000 5,20000)" \
	--iters 2 --timeout-ms 60000 --check-sample 3000
gs_ok "lost chunks were asked for again" grep -q 'nacks_sent=[1-9]' "$tmp"/loss/rank*
gs_ok "and resent" grep -q 'retransmits=[1-9]' "$tmp"/loss/rank*

rm -rf "$tmp"
exit $GS_FAILED
