#!/usr/bin/env bash
# Schedules (GSYNC_SCHEDULE) on nine islands: a 3x3 rotating grid (rows by
# unicast or multicast, columns by reduce-scatter + multicast all-gather or
# through an aggregator) and a one-clique schedule; results must be exactly
# what the schedule computes (tests/netns/gsched.py) and the same bits on
# every rank, also in a unicast IPv6 group. t-schedule-ops.sh covers
# switching, disagreement, the socket options, pushing and loss;
# t-schedule-wan.sh runs schedules on the nine-city WAN and compares their
# time with the model.
. "$(dirname "$0")/lib.sh"
tmp=$(mktemp -d)
gs_sched_nine "$tmp" || gs_fail "nine islands and schedule blobs"
sched() { python3 tests/netns/gsched.py "$@"; }

# ---- exactness ---------------------------------------------------------------
gs_group "$tmp/rs" "3x3 grid, unicast rows + reduce-scatter/multicast columns" \
	--members "$(gs_members 4 7321)" --mcast 239.77.9.1:7400 --schedule "$tmp/grid-rs" \
	--dtypes fp32,bf16,int32 --ops sum,avg,max --sizes "$(gs_pick 1,1000,20000 1,5000)" --timeout-ms 60000 --check-sample 2000
gs_ok "operations ran under the schedule" grep -q 'sched_ops=[1-9]' "$tmp"/rs/rank0
gs_ok "blocks were reduced one run at a time (reduce_jobs > ops)" \
	awk '/^# stats/ { for (i = 2; i <= NF; i++) { split($i, kv, "="); v[kv[1]] = kv[2] } }
	     END { exit !(v["reduce_jobs"] > v["ops_submitted"]) }' "$tmp"/rs/rank4
gs_group "$tmp/agg" "3x3 grid, multicast rows + aggregator columns" \
	--members "$(gs_members 4 7322)" --mcast 239.77.9.2:7401 --schedule "$tmp/grid-agg" \
	--dtypes fp32,int32 --ops sum,avg --sizes 1,70000 --timeout-ms 60000 --check-sample 2000
gs_ok "a group per clique: no rank received another clique's packets" gs_no_foreign "$tmp/agg"
gs_group "$tmp/out-one" "one clique of nine, multicast" \
	--members "$(gs_members 4 7323)" --mcast 239.77.9.3:7402 --schedule "$tmp/one" \
	--dtypes fp32,bf16 --ops sum,max --sizes 3,40000 --timeout-ms 60000 --check-sample 2000

# ---- unicast group: only unicast deliveries -----------------------------------
sched grid 3 3 --row-pattern unicast --col-pattern aggregator --unicast \
	--block 8192 -o "$tmp/grid-u"
gs_group "$tmp/u" "IPv6 unicast group, 3x3 grid with unicast aggregator" \
	--members "$(gs_members 6 7303)" --schedule "$tmp/grid-u" \
	--dtypes fp16,int32 --ops sum,min --sizes 9,30000 --timeout-ms 60000 --check-sample 2000

# ---- an aggregator that contributes nothing (a PoP) -----------------------------
# Rank 8 stands for a PoP: idle in the schedule, it sums the other eight
# ranks' buffers and multicasts the result; its own buffer must not count.
sched clique 9 --pattern aggregator --aggregator 8 --idle 8 --block 16384 -o "$tmp/pop"
gs_group "$tmp/out-pop" "aggregator at an idle rank (PoP), 8 contributors" \
	--members "$(gs_members 4 7324)" --mcast 239.77.9.10:7410 --schedule "$tmp/pop" \
	--dtypes fp32,int32 --ops sum,avg --sizes 3,40000 --timeout-ms 60000 --check-sample 2000

rm -rf "$tmp"
exit $GS_FAILED
