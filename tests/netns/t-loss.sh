#!/usr/bin/env bash
# Loss repair: 5% loss with reordering and duplication on every link; the
# results must still be exact and identical everywhere, and the counters must
# show that repair actually happened.
. "$(dirname "$0")/lib.sh"
tmp=$(mktemp -d)
gs_islands_up 4
gs_impair delay 2ms 1ms loss 5% reorder 20% duplicate 2%
gs_group "$tmp/m" "4 islands, 5% loss + reorder + dup, multicast" \
	--members "$(gs_members 4 7000)" --mcast 239.77.1.2:7100 \
	--dtypes fp32,fp16 --ops sum --sizes "$(gs_pick 1,5000,200000 1,5000,40000)" --iters 2 --check-sample 4000
gs_ok "NACKs were sent under loss" grep -q 'nacks_sent=[1-9]' "$tmp"/m/rank*
gs_ok "chunks were retransmitted under loss" grep -q 'retransmits=[1-9]' "$tmp"/m/rank*
gs_group "$tmp/u" "4 islands, 5% loss + reorder + dup, unicast fan-out" \
	--members "$(gs_members 6 7001)" --dtypes int32,bf16 --ops sum,avg \
	--sizes 7,30000 --iters 2
rm -rf "$tmp"
exit $GS_FAILED
