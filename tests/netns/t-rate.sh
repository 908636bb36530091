#!/usr/bin/env bash
# The adaptive sending rate (kmod/rate.c): with no pacing_rate set, the
# ranks of a group find their share of a bottleneck nobody told them of,
# and follow it when it shrinks.
#
# Four islands 20 ms apart (each way), every island's download capped at
# DOWN Mbit/s, with the deep queues of the emulation (netem holds 100000
# packets: congestion shows as delay long before it drops anything). Every
# rank multicasts its buffer to the three others, so each download carries
# three streams, and a rank's fair share is DOWN/3. The checks are on the
# rate each rank settled at (the median of its GSYNC_INFO send_rate
# after each of its later operations), never on time: within 0.5x..1.5x of the share it should find,
# backed off at least once (it found the limit), and no storm of repairs.
# Times are printed against the same group paced by hand at the share.
# Last, net.gsync.max_rate caps both kinds of rate.
# On the debug and KCSAN kernels the guest's CPU, not the links, limits
# the rate: the rate checks are skipped there, the results still checked.
# check-on: qemu (timing: rate shares and convergence are judged on the fast kernel)
. "$(dirname "$0")/lib.sh"
tmp=$(mktemp -d)
n=4
down=$(gs_pick 40 16)			# Mbit/s into each island
gs_wan_up
for (( k = 0; k < n; k++ )); do
	gs_add_island "$k" "i$k" 0 "$down"
done
for (( s = 0; s < n; s++ )); do
	for (( d = 0; d < n; d++ )); do
		[ "$s" = "$d" ] || gs_set_pair "$s" "$d" 20 0
	done
done
share=$(( down * 1000000 / 8 / (n - 1) ))	# bytes/s per sender
size=$(gs_pick 262144 65536)			# fp32 elements
iters=$(gs_pick 12 6)

# rate_from DIR RANK FROM: the median of the send_rates after the rank's
# operations FROM and later (one sample would catch the sawtooth of the
# rate anywhere between a backoff and the next).
rate_from() {
	sed -n 's/^# rate seq \([0-9]*\) send_rate \([0-9]*\) .*/\1 \2/p' "$1/rank$2" |
		awk -v a="$3" '$1 >= a { print $2 }' | sort -g |
		awk '{ v[NR] = $1 } END { if (NR) print v[int((NR + 1) / 2)] }'
}
stat_of() { grep '^# stats' "$1/rank$2" | grep -o "\b$3=[0-9]*" | cut -d= -f2 | head -1; }
median_ms() {
	sed -n 's/.* seq \([0-9]*\) .*: \([0-9.]*\) ms status 0$/\1 \2/p' "$1"/rank* |
		awk -v from="$2" '$1 >= from { print $2 }' | sort -g |
		awk '{ v[NR] = $1 } END { if (NR) print v[int((NR + 1) / 2)]; else print 0 }'
}
# near DIR WANT FROM: every rank's rate from operation FROM on within
# 0.5x..1.5x of WANT.
near() {
	local r v bad=0
	for (( r = 0; r < n; r++ )); do
		v=$(rate_from "$1" "$r" "$3")
		echo "# rank $r: median send_rate from op $3 ${v:-?} B/s, want $2 (0.5x..1.5x)"
		[ -n "$v" ] && [ $(( v * 2 )) -ge "$2" ] && [ $(( v * 2 )) -le $(( $2 * 3 )) ] ||
			bad=1
	done
	return $bad
}
# backed DIR: every rank's adaptive rate backed off at least once, and its
# receivers reported.
backed() {
	local r
	for (( r = 0; r < n; r++ )); do
		[ "$(stat_of "$1" "$r" rate_decreases)" -ge 1 ] 2>/dev/null || return 1
		[ "$(stat_of "$1" "$r" reports_received)" -ge 1 ] 2>/dev/null || return 1
	done
}
# calm DIR: retransmissions at most 5% of the packets sent, on every rank.
calm() {
	local r x t
	for (( r = 0; r < n; r++ )); do
		x=$(stat_of "$1" "$r" retransmits) t=$(stat_of "$1" "$r" tx_packets)
		echo "# rank $r: ${x:-0} retransmits of ${t:-0} packets sent"
		[ $(( ${x:-0} * 20 )) -le "${t:-0}" ] || return 1
	done
}

# per_op DIR: each operation's time and the send_rate after it, per rank.
per_op() {
	local r
	for (( r = 0; r < n; r++ )); do
		sed -n 's/.* seq \([0-9]*\) .*: \([0-9.]*\) ms status 0$/\1 \2/p' "$1/rank$r" > "$tmp/t$r"
		sed -n 's/^# rate seq \([0-9]*\) send_rate \([0-9]*\) .*/\1 \2/p' "$1/rank$r" > "$tmp/s$r"
		echo "# rank $r seq:ms/rate:$(awk 'NR == FNR { t[$1] = $2; next }
			{ printf " %s:%.0f/%.2fM", $1, t[$1], $2 / 1e6 }' "$tmp/t$r" "$tmp/s$r")"
	done
}

# rate_ok DESC CMD...: gs_ok on the fast kernel, a SKIP on the others.
rate_ok() {
	if [ "${VM_PROFILE:-fast}" = fast ]; then
		gs_ok "$@"
	else
		"${@:2}" > /dev/null 2>&1
		echo "ok - $1 # SKIP ${VM_PROFILE} kernel: the guest's CPU is the bottleneck"
	fi
}

m4=$(gs_members 4 7800)
gs_group "$tmp/a" "no pacing set: $iters all-reduces of $(( size * 4 >> 10 )) KiB" \
	--members "$m4" --mcast 239.77.12.1:7900 --dtypes fp32 --ops sum \
	--sizes "$size" --iters "$iters" --timeout-ms 60000 --check-sample 1000
rate_ok "no pacing set: every rank settles near its share of the download" \
	near "$tmp/a" "$share" $(( iters / 2 + 1 ))
rate_ok "no pacing set: every rank backed off on its receivers' reports" backed "$tmp/a"
rate_ok "no pacing set: retransmissions stay under 5% of packets" calm "$tmp/a"
grep -h '^# stats' "$tmp"/a/rank* | gs_diag
per_op "$tmp/a"

gs_group "$tmp/p" "paced by hand at the share: $iters all-reduces" \
	--members "$m4" --mcast 239.77.12.2:7901 --dtypes fp32 --ops sum \
	--sizes "$size" --iters "$iters" --timeout-ms 60000 --check-sample 1000 \
	--rate "$share"
from=$(( iters / 2 + 1 ))
ma=$(median_ms "$tmp/a" "$from") mp=$(median_ms "$tmp/p" "$from")
echo "# median operation from seq $from: adaptive $ma ms, paced by hand $mp ms," \
	"ratio $(awk -v a="$ma" -v p="$mp" 'BEGIN { if (p > 0) printf "%.2f", a / p; else print "nan" }')"

# The bottleneck shrinks to a quarter before operation HALF+1: rank 0
# narrows every download, between two of its operations. Four more
# operations than above run after the cut (each takes four times longer),
# so that the rates are judged after they had time to even out between
# the senders, on the last ITERS/2 operations.
half=$(( iters / 2 ))
biters=$(( iters + 4 ))
low=$(( down / 4 ))
cat > "$tmp/narrow" <<EOF
#!/bin/sh
for k in \$(seq 0 $(( n - 1 ))); do
	tc -n gs-wan class change dev p\$k parent 1: classid 1:1 htb rate ${low}mbit burst 64kb quantum 60000 || exit 1
done
EOF
chmod +x "$tmp/narrow"
GS_RANK_ARGS[0]="--exec-before=$(( half + 1 )):$tmp/narrow"
gs_group "$tmp/b" "download cut to $low Mbit/s after op $half" \
	--members "$m4" --mcast 239.77.12.3:7902 --dtypes fp32 --ops sum \
	--sizes "$size" --iters "$biters" --timeout-ms 60000 --check-sample 1000
unset 'GS_RANK_ARGS[0]'
rate_ok "download cut: every rank follows it down to its new share" \
	near "$tmp/b" $(( share / 4 )) $(( biters - half + 1 ))
rate_ok "download cut: retransmissions stay under 5% of packets" calm "$tmp/b"
grep -h '^# rank 0: before op' "$tmp"/b/rank0 | gs_diag
per_op "$tmp/b"
for (( k = 0; k < n; k++ )); do
	tc -n gs-wan class change dev "p$k" parent 1: classid 1:1 htb rate "${down}mbit" \
		burst 64kb quantum 60000
done

# Two groups on the same islands, so every download is shared by both:
# group c runs alone at first, and group d starts as c begins operation 4,
# from the rate of a new socket. Each should get half of what c had alone.
# Compared: the median send_rate over c's operations 7..11 and d's 4..8,
# which run at the same time. (d measures queues from the base round trip
# c found, kmod/rate.c: from its own samples it would take c's standing
# queue for part of the path and crowd c out.)
rates() {	# DIR FROM TO: the send_rates of every rank, ops FROM..TO
	sed -n 's/^# rate seq \([0-9]*\) send_rate \([0-9]*\) .*/\1 \2/p' "$1"/rank* |
		awk -v a="$2" -v b="$3" '$1 >= a && $1 <= b { print $2 }'
}
median() { sort -g | awk '{ v[NR] = $1 } END { if (NR) print v[int((NR + 1) / 2)]; else print 0 }'; }
GS_RANK_ARGS[0]="--exec-before=4:$tmp/c4.sh"
printf '#!/bin/sh\ntouch %s\n' "$tmp/c4" > "$tmp/c4.sh"
chmod +x "$tmp/c4.sh"
gs_group "$tmp/c" "two groups: c, $(( iters + 2 )) operations" \
	--members "$m4" --mcast 239.77.12.4:7903 --dtypes fp32 --ops sum \
	--sizes "$size" --iters $(( iters + 2 )) --timeout-ms 60000 --check-sample 1000 \
	> "$tmp/c.tap" 2>&1 &
cpid=$!
unset 'GS_RANK_ARGS[0]'
gs_until 300 test -e "$tmp/c4" || gs_fail "two groups: c reached operation 4"
gs_group "$tmp/d" "two groups: d, $(( iters - 4 )) operations alongside c" \
	--members "$(gs_members 4 7810)" --mcast 239.77.12.5:7904 --dtypes fp32 --ops sum \
	--sizes "$size" --iters $(( iters - 4 )) --timeout-ms 60000 --check-sample 1000
wait "$cpid" || GS_FAILED=1
cat "$tmp/c.tap"
rc_=$(rates "$tmp/c" 7 11 | median) rd=$(rates "$tmp/d" 4 8 | median)
echo "# two groups: median send_rate c $rc_ B/s (ops 7..11), d $rd B/s (ops 4..8)"
fair() { [ "$rc_" -gt 0 ] && [ "$rd" -gt 0 ] &&
	[ $(( rc_ * 10 )) -le $(( rd * 13 )) ] && [ $(( rd * 10 )) -le $(( rc_ * 13 )) ]; }
rate_ok "two groups sharing every download get shares within 30% of each other" fair
per_op "$tmp/c"
per_op "$tmp/d"

# The administrator's cap: net.gsync.max_rate at half the share in every
# island. A group paced by hand at twice the share must report the cap as
# its rate after every operation, and one with no pacing set never more
# than the cap (less if it backed off); both must take at least the time
# their buffer needs at the cap (a lower bound: a slow guest only adds).
cap=$(( share / 2 ))
# Garbage and values out of range are refused, and change nothing.
sysctl_refused() {
	local v before
	before=$(gs_exec i0 cat /proc/sys/net/gsync/max_rate)
	for v in 0 32767 $(( (1 << 40) + 1 )) abc -5; do
		echo "$v" | gs_exec i0 tee /proc/sys/net/gsync/max_rate > /dev/null 2>&1 &&
			{ echo "# max_rate $v accepted"; return 1; }
	done
	test "$(gs_exec i0 cat /proc/sys/net/gsync/max_rate)" = "$before" &&
		test "$before" = $(( 1 << 40 ))
}
gs_ok "net.gsync.max_rate refuses 0, below 32768, above 2^40 and garbage" sysctl_refused
for (( k = 0; k < n; k++ )); do
	echo "$cap" | gs_exec "i$k" tee /proc/sys/net/gsync/max_rate > /dev/null
done
capped() {	# DIR exact|atmost: send_rates against the cap, and times
	local r v bad=0 got least
	least=$(( size * 4 * 1000 * 9 / 10 / cap ))	# ms, 90%
	for (( r = 0; r < n; r++ )); do
		got=$(sed -n 's/^# rate seq [0-9]* send_rate \([0-9]*\) .*/\1/p' "$1/rank$r" | sort -u | tr '\n' ' ')
		echo "# rank $r: send_rates ${got:-none}; operations (ms, want >= $least):" \
			"$(sed -n 's/.* seq [0-9]* .*: \([0-9.]*\) ms status 0$/\1/p' "$1/rank$r" | tr '\n' ' ')"
		[ -n "$got" ] || bad=1
		if [ "$2" = exact ]; then
			[ "$got" = "$cap " ] || bad=1
		else
			for v in $got; do [ "$v" -gt 0 ] && [ "$v" -le "$cap" ] || bad=1; done
		fi
		sed -n 's/.* seq [0-9]* .*: \([0-9.]*\) ms status 0$/\1/p' "$1/rank$r" |
			awk -v l="$least" '$1 < l { bad = 1 } END { exit bad }' || bad=1
	done
	return $bad
}
gs_group "$tmp/e" "net.gsync.max_rate $cap: no pacing set, 3 operations" \
	--members "$m4" --mcast 239.77.12.6:7905 --dtypes fp32 --ops sum \
	--sizes "$size" --iters 3 --timeout-ms 60000 --check-sample 1000
gs_ok "net.gsync.max_rate caps the adaptive rate" capped "$tmp/e" atmost
gs_group "$tmp/f" "net.gsync.max_rate $cap: paced by hand at $(( share * 2 )), 3 operations" \
	--members "$m4" --mcast 239.77.12.7:7906 --dtypes fp32 --ops sum \
	--sizes "$size" --iters 3 --timeout-ms 60000 --check-sample 1000 \
	--rate $(( share * 2 ))
gs_ok "net.gsync.max_rate caps a rate set by hand" capped "$tmp/f" exact
rm -rf "$tmp"
exit $GS_FAILED
