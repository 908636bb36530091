#!/usr/bin/env bash
# Schedules (GSYNC_SCHEDULE): nine islands on the nine-city delays run a 3x3
# rotating grid (rows by unicast, columns by reduce-scatter + multicast
# all-gather or through an aggregator) and a one-clique schedule; results
# must be exactly what the schedule computes (tests/netns/gsched.py) and the
# same bits on every rank. Also: loss repair under a schedule, switching
# schedules between operations, ranks that disagree on the schedule (EPROTO
# on every rank), hostile blobs, and the time of a large operation against
# gsync-sched's prediction for the emulated link rates.
. "$(dirname "$0")/lib.sh"
tmp=$(mktemp -d)
topo=topologies/nine-city-private.json
islands=$(python3 -c 'import json,sys; print(",".join(i["id"] for i in json.load(open(sys.argv[1]))["islands"]))' "$topo")
rate=$(gs_pick 200 100)
gs_topology_up "$topo" --rate-mbit "$rate"
sched() { python3 tests/netns/gsched.py "$@"; }
sched grid 3 3 --row-pattern unicast --col-pattern rs_multicast --block 16384 \
	-o "$tmp/grid-rs" --json "$tmp/grid-rs.json" --islands "$islands"
sched grid 3 3 --row-pattern multicast --col-pattern aggregator --block 16384 \
	-o "$tmp/grid-agg" --json "$tmp/grid-agg.json" --islands "$islands"
sched clique 9 --pattern multicast --block 65536 \
	-o "$tmp/one" --json "$tmp/one.json" --islands "$islands"
m4=$(gs_members 4 7300)

# ---- exactness ---------------------------------------------------------------
gs_group "$tmp/rs" "3x3 grid, unicast rows + reduce-scatter/multicast columns" \
	--members "$m4" --mcast 239.77.9.1:7400 --schedule "$tmp/grid-rs" \
	--sizes "$(gs_pick 1,1000,50000 1,20000)" --timeout-ms 60000
gs_ok "operations ran under the schedule" grep -q 'sched_ops=[1-9]' "$tmp"/rs/rank0
gs_ok "blocks were reduced one run at a time (reduce_jobs > ops)" \
	awk '/^# stats/ { for (i = 2; i <= NF; i++) { split($i, kv, "="); v[kv[1]] = kv[2] } }
	     END { exit !(v["reduce_jobs"] > v["ops_submitted"]) }' "$tmp"/rs/rank4
gs_group "$tmp/agg" "3x3 grid, multicast rows + aggregator columns" \
	--members "$m4" --mcast 239.77.9.2:7401 --schedule "$tmp/grid-agg" \
	--dtypes fp32,int32 --ops sum,avg --sizes 1,70000 --timeout-ms 60000
gs_group "$tmp/one" "one clique of nine, multicast" \
	--members "$m4" --mcast 239.77.9.3:7402 --schedule "$tmp/one" \
	--dtypes fp32,bf16 --ops sum,max --sizes 3,40000 --timeout-ms 60000

# ---- unicast group: only unicast deliveries -----------------------------------
sched grid 3 3 --row-pattern unicast --col-pattern aggregator --unicast \
	--block 8192 -o "$tmp/grid-u"
gs_group "$tmp/u" "IPv6 unicast group, 3x3 grid with unicast aggregator" \
	--members "$(gs_members 6 7303)" --schedule "$tmp/grid-u" \
	--dtypes fp16,int32 --ops sum,min --sizes 9,30000 --timeout-ms 60000

# ---- switching between operations --------------------------------------------
gs_group "$tmp/sw" "default, then grid at op 5, one clique at 9, default at 13" \
	--members "$m4" --mcast 239.77.9.4:7404 --dtypes fp32 \
	--ops sum,avg --sizes 7,30000 --iters 4 --timeout-ms 60000 \
	--switch "5:$tmp/grid-rs" --switch "9:$tmp/one" --switch 13:default

# ---- ranks that disagree on the schedule --------------------------------------
GS_RANK_ARGS=([0]="--schedule $tmp/one")
for r in 1 2 3 4 5 6 7 8; do GS_RANK_ARGS[r]="--schedule $tmp/grid-rs"; done
gs_group "$tmp/mis" "rank 0 on another schedule: EPROTO everywhere" \
	--members "$m4" --mcast 239.77.9.6:7406 --dtypes fp32 --ops sum \
	--sizes 20000 --expect-status 71 --timeout-ms 20000
GS_RANK_ARGS=()
gs_ok "the disagreement was seen as a mismatch" grep -q 'mismatches=[1-9]' "$tmp"/mis/rank*

# ---- hostile blobs --------------------------------------------------------------
gs_exec 0 python3 tests/netns/sched_api.py --members "$m4" --mcast 239.77.9.7:7407 \
	--good "$tmp/grid-rs" --fuzz "$(gs_pick 3000 500)" || GS_FAILED=1

# ---- time against the model ------------------------------------------------------
# A 4 MiB fp32 sum per schedule (1 MiB on the debug kernel), paced at the emulated access rate; the
# prediction is gsync-sched's for the same schedule, topology and rates.
size=$(gs_pick 1048576 262144)
bytes=$(( size * 4 ))
pace=$(( rate * 1000000 / 8 ))
for s in one grid-rs; do
	gs_group "$tmp/t-$s" "timed $((bytes >> 10)) KiB all-reduce, schedule $s" \
		--members "$m4" --mcast "239.77.9.8:74$((RANDOM % 90 + 10))" \
		--schedule "$tmp/$s" --dtypes fp32 --ops sum --sizes "$size" \
		--iters 2 --rate "$pace" --timeout-ms 120000 --check-sample 2000
	# The second operation: the first one also waits for every rank to start.
	meas=$(sed -n 's/.* seq 2 .*: \([0-9.]*\) ms status 0$/\1/p' "$tmp/t-$s"/rank* |
		sort -g | tail -1)
	pred=$(userspace/sched/gsync-sched simulate "$topo" "$tmp/$s.json" \
		--size "$bytes" --access-gbps "$(echo "$rate" | awk '{print $1 / 1000}')" --json |
		python3 -c 'import json,sys; print(json.load(sys.stdin)["predicted_time_s"] * 1000)')
	ratio=$(awk -v m="$meas" -v p="$pred" 'BEGIN { if (p > 0) printf "%.2f", m / p; else print "inf" }')
	echo "# schedule $s: measured ${meas} ms (slowest rank), predicted ${pred} ms, ratio $ratio"
	gs_ok "schedule $s: measured time within 0.5x..$(gs_pick 4 8)x of the model (${meas} ms vs ${pred} ms)" \
		awk -v r="$ratio" -v hi="$(gs_pick 4 8)" 'BEGIN { exit !(r >= 0.5 && r <= hi) }'
done
# ---- loss repair under a schedule ---------------------------------------------
gs_impair delay 10ms 2ms loss 3% reorder 10%
gs_group "$tmp/loss" "3x3 grid under 3% loss and reordering" \
	--members "$m4" --mcast 239.77.9.5:7405 --schedule "$tmp/grid-rs" \
	--dtypes fp32,bf16 --ops sum --sizes "$(gs_pick 5,60000 5,20000)" \
	--iters 2 --timeout-ms 60000 --check-sample 3000
gs_ok "lost chunks were asked for again" grep -q 'nacks_sent=[1-9]' "$tmp"/loss/rank*
gs_ok "and resent" grep -q 'retransmits=[1-9]' "$tmp"/loss/rank*

rm -rf "$tmp"
exit $GS_FAILED
