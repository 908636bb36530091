#!/usr/bin/env bash
# Loss repair: 5% loss with reordering and duplication on every link; the
# results must still be exact and identical everywhere, and the counters must
# show that repair actually happened. Without loss, on long links, nothing
# is repaired.
# check-on: qemu (timing: backoffs for loss are counted on the fast kernel)
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

# No loss, but 400 ms between islands: longer than the 16 repair intervals
# (320 ms) after which receivers used to ask a stream they had heard
# nothing from for everything, making its sender resend what was in
# flight. A stream is asked for only once data or its sender's POLL has
# arrived, so with nothing lost nothing is asked for or sent again.
gs_impair delay 400ms
gs_group "$tmp/far" "no loss, 400 ms apart, multicast" \
	--members "$(gs_members 4 7002)" --mcast 239.77.1.3:7102 \
	--dtypes fp32 --ops sum --sizes 30000 --iters 2 --timeout-ms 20000
n=$(gs_stats_sum "$tmp/far" nacks_sent) x=$(gs_stats_sum "$tmp/far" retransmits)
gs_ok "no loss, 400 ms apart: no NACK, no retransmission ($n NACKs, $x retransmits)" \
	test "$n $x" = "0 0"
[ "$n $x" = "0 0" ] || grep -H '^# stats' "$tmp"/far/rank* | gs_diag

# Random loss under the backoff threshold (20%) is repaired, not slowed
# for. The REPORTs' arrived and lost counts must be of the same chunks:
# when arrivals were counted as they came, the report after a stream
# ended set its last stretch's losses against the few repairs arriving
# then, read 10% as over 20%, and every rank backed off for loss every few
# operations (2-4 times in 8). Backoffs for a queue are not this test's:
# a guest short of CPU (the debug kernel; a busy host) builds queues the
# rate rightly backs off for (35 in one CI run on a busy host), so only
# rate_loss_decreases is held to 0. On the debug kernel the guest is so
# slow that the adaptive rate grows far past what it can receive, and
# bursts overflow receive buffers: real loss over 20% (11 backoffs for
# loss in 2 operations, retransmissions 23% of packets), so there it is
# only reported. (With both host cores kept busy the fast kernel saw 37
# backoffs, 4 of them for loss: rounds with few chunks judged exceed 20%
# by chance at 10% loss. The check needs a host with CPU to spare.)
gs_impair delay 5ms loss 10%
gs_group "$tmp/ten" "10% random loss, 1 MiB multicast all-reduces" \
	--members "$(gs_members 4 7003)" --mcast 239.77.1.4:7104 \
	--dtypes fp32 --ops sum --sizes 262144 --iters "$(gs_pick 8 2)" \
	--timeout-ms 60000 --check-sample 1000 --inputs-first --check-at-end
# (A counter the kernel lacked would read 0: see that it has it.)
gs_ok "the kernel counts rate decreases for loss apart" \
	grep -q '^rate_loss_decreases [0-9]' /proc/net/gsync_stats
d=$(gs_stats_sum "$tmp/ten" rate_loss_decreases)
q=$(gs_stats_sum "$tmp/ten" rate_decreases)
if [ "${VM_PROFILE:-fast}" = fast ]; then
	gs_ok "10% random loss: no rank cut its rate for loss ($d for loss, $q in all)" test "$d" = 0
	[ "$d" = 0 ] || grep -H -e '^# stats' -e '^# rate' "$tmp"/ten/rank* | gs_diag
else
	echo "# 10% random loss: $d rate decreases for loss, $q in all (not checked on the $VM_PROFILE kernel)"
fi
rm -rf "$tmp"
exit $GS_FAILED
