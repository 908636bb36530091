#!/usr/bin/env bash
# Clique groups (GSYNC_SCHF_CLIQUE_GROUPS) on nine islands behind the
# snooping WAN bridge: a rank joins the group of each of its cliques when
# the schedule loads and leaves it when no schedule it runs needs it
# (cgroups.py reads the island's memberships), and grids whose rounds have
# several multicast cliques deliver to each island only its own cliques'
# traffic: not one packet dropped as another clique's (drop_clique), IPv4
# and IPv6, results exact.
. "$(dirname "$0")/lib.sh"
tmp=$(mktemp -d)
gs_islands_up 9
gs_impair delay 5ms 1ms
sched() { python3 tests/netns/gsched.py "$@"; }

# ---- memberships follow the loaded schedules ----------------------------------
gs_exec i0 python3 tests/netns/cgroups.py --members "$(gs_members 4 7330)" \
	--mcast 239.77.12.1:7430 --net 239.77.0.0/16 --base 239.77.13.0 ||
	gs_fail "IPv4 clique group memberships (cgroups.py)"
gs_exec i0 python3 tests/netns/cgroups.py --members "$(gs_members 6 7331)" \
	--mcast '[ff15::77:1]:7431' --net ff15::/16 --base ff15::78:0 ||
	gs_fail "IPv6 clique group memberships (cgroups.py)"

# ---- each island receives only its cliques' multicast -------------------------
sched grid 3 3 --row-pattern multicast --col-pattern rs_multicast --block 16384 \
	--clique-groups -o "$tmp/mc-rs"
sched grid 3 3 --row-pattern multicast --col-pattern aggregator --block 16384 \
	--clique-groups --group-base ff15::79:0 -o "$tmp/mc-agg6"
gs_group "$tmp/v4" "IPv4, multicast rows + reduce-scatter columns, a group per clique" \
	--members "$(gs_members 4 7332)" --mcast 239.77.12.101:7432 --schedule "$tmp/mc-rs" \
	--dtypes fp32,int32 --ops sum,avg --sizes "$(gs_pick 1,5000,70000 1,20000)" \
	--timeout-ms 60000 --check-sample 2000
gs_ok "IPv4: operations ran under the schedule" grep -q 'sched_ops=[1-9]' "$tmp"/v4/rank0
gs_ok "IPv4: no rank received another clique's packets (drop_clique 0)" gs_no_foreign "$tmp/v4"
gs_group "$tmp/v6" "IPv6, multicast rows + aggregator columns, explicit group_base" \
	--members "$(gs_members 6 7333)" --mcast '[ff15::77:101]:7433' --schedule "$tmp/mc-agg6" \
	--dtypes fp32,bf16 --ops sum,max --sizes "$(gs_pick 3,40000 3,9000)" \
	--timeout-ms 60000 --check-sample 2000
gs_ok "IPv6: no rank received another clique's packets (drop_clique 0)" gs_no_foreign "$tmp/v6"

rm -rf "$tmp"
exit $GS_FAILED
