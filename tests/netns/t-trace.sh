#!/usr/bin/env bash
# Tracepoints (kmod/trace.h), recorded in a tracefs instance of our own:
# one operation is submitted, then completed, with its seq, size and
# status; a schedule switch comes between the operations it separates;
# under loss the NACK, retransmit and drop events of a group agree one for
# one with the counters of /proc/net/gsync_stats, and repairs begin while
# a long stream still flows; a dtype mismatch ends
# with status -EPROTO; an offloaded reduction is dispatched to the agent
# and completed by it, or falls back to the CPU when the agent fails it;
# perf record -e 'gsync:*' records the same operation events.
# check-on: qemu (perf events, which UML has none of)
. "$(dirname "$0")/lib.sh"
tmp=$(mktemp -d)
T=/sys/kernel/tracing
I=$T/instances/gsync-t-trace
mountpoint -q "$T" || mount -t tracefs tracefs "$T" 2>/dev/null
if [ ! -d "$T/events/gsync" ]; then
	gs_fail "tracefs has gsync events ($T/events/gsync; a kernel without CONFIG_TRACING?)"
	exit 1
fi
[ ! -d "$I" ] || rmdir "$I"
mkdir "$I" || { gs_fail "create trace instance $I"; exit 1; }
apid=
trap '[ -z "$apid" ] || kill "$apid"; echo 0 > "$I/events/gsync/enable"; rmdir "$I"' EXIT
# One clock for all CPUs: events of one rank come from several of them.
echo global > "$I/trace_clock"
echo 8192 > "$I/buffer_size_kb"
echo 1 > "$I/events/gsync/enable"
gs_ok "every gsync event is on in the instance" \
	test "$(cat "$I/events/gsync/enable")" = 1

# trace_start: empty the instance's buffer (and its loss counters), record.
trace_start() {
	echo 0 > "$I/tracing_on"
	: > "$I/trace"
	echo 1 > "$I/tracing_on"
}
# trace_stop FILE: stop, and keep each gsync event as "NAME: FIELDS..."
# (e.g. "gsync_op_submit: group=0x7401 rank=0 seq=1 bytes=12000 ...");
# report events the ring buffer lost.
trace_stop() {
	local lost
	echo 0 > "$I/tracing_on"
	grep -o 'gsync_[a-z_]*: group=.*' "$I/trace" > "$1"
	lost=$(cat "$I"/per_cpu/cpu*/stats |
		awk '/^(overrun|commit overrun|dropped events):/ {n += $NF} END {print n + 0}')
	gs_ok "the trace buffer lost no event ($lost lost, $(wc -l < "$1") recorded)" \
		test "$lost" = 0
}
# ops FILE GROUP RANK: the operation and schedule events of one rank, a
# line each: NAME seq=N and the fields that matter.
ops() {
	awk -v g="group=$2" -v r="rank=$3" '$2 != g || $3 != r { next }
		$1 == "gsync_op_submit:" { print "submit", $4, $5, $8 }
		$1 == "gsync_op_complete:" { print "complete", $4, $5, $6 }
		$1 == "gsync_schedule_switch:" { print "switch", $4, $5, $6, $7 }' "$1"
}
# count FILE EVENT GROUP RANK [FIELD=VALUE]: how many EVENTs of one rank.
count() {
	awk -v e="$2:" -v g="group=$3" -v r="rank=$4" -v f="${5:-}" '
		$1 == e && $2 == g && $3 == r {
			if (f == "") { n++; next }
			for (i = 4; i <= NF; i++) if ($i == f) { n++; next }
		}
		END { print n + 0 }' "$1"
}
hex() { printf '0x%x' "$1"; }
stat_of() { gs_exec "$1" awk -v k="$2" '$1 == k {print $2}' /proc/net/gsync_stats; }
no_groups() {
	local id
	for id in $(gs_ids); do
		[ "$(stat_of "$id" groups_live)" = 0 ] || return 1
	done
}
nranks=3
gs_islands_up $nranks

# ---- one operation: submit, then complete --------------------------------
g1=29697
trace_start
gs_group "$tmp/one" "one all-reduce, 3 islands" --group $g1 \
	--members "$(gs_members 4 7400)" --mcast 239.77.40.1:7401 \
	--dtypes fp32 --ops sum --sizes 3000
trace_stop "$tmp/ev.one"
for (( r = 0; r < nranks; r++ )); do
	got=$(ops "$tmp/ev.one" "$(hex $g1)" $r)
	want="submit seq=1 bytes=12000 sched=0x0000000000000000
complete seq=1 bytes=12000 status=0"
	gs_ok "rank $r: seq 1 submitted, then completed with status 0" test "$got" = "$want"
	[ "$got" = "$want" ] || printf '%s\n' "$got" | gs_diag
	us=$(awk -v g="group=$(hex $g1)" -v r="rank=$r" \
		'$1 == "gsync_op_complete:" && $2 == g && $3 == r { sub("duration_us=", "", $7); print $7 }' \
		"$tmp/ev.one")
	ms=$(sed -n 's/.* seq 1 fp32 sum n=3000: \([0-9.]*\) ms status 0$/\1/p' "$tmp/one/rank$r")
	# The rank timed sendmsg() to recvmsg(): it contains submit to complete.
	gs_ok "rank $r: duration ${us:-?} us is within the rank's ${ms:-?} ms" \
		awk -v us="${us:-0}" -v ms="${ms:-0}" 'BEGIN { exit !(us > 0 && us <= ms * 1000 + 1000) }'
done

# ---- perf sees the same events ---------------------------------------------
# What an operator runs: perf record -e 'gsync:*'. perf starts with its
# events disabled and is switched on and off through its control fifo,
# each step acknowledged, so nothing depends on how long perf takes to
# start; then each rank's submit and complete are in perf script's output.
g1p=29703
pdir=$tmp/perf
mkdir -p "$pdir"
mkfifo "$pdir/ctl" "$pdir/ack"
exec {pctl}<>"$pdir/ctl" {pack}<>"$pdir/ack"
# perf_ctl CMD: send enable, disable or stop; true once perf acknowledged it.
perf_ctl() {
	local a
	echo "$1" >&"$pctl"
	read -r -t 60 -u "$pack" a && [ "$a" = ack ]
}
if [ ! -e /proc/sys/kernel/perf_event_paranoid ]; then
	echo "ok - perf record sees gsync's events # SKIP this kernel has no perf events (UML)"
elif ! command -v perf >/dev/null; then
	gs_fail "perf is installed (linux-perf, tests/deps)"
else
	perf record -q -a -e 'gsync:gsync_op_submit,gsync:gsync_op_complete' -D -1 \
		--control "fifo:$pdir/ctl,$pdir/ack" -o "$pdir/data" \
		> "$pdir/log" 2>&1 &
	ppid_=$!
	gs_ok "perf record enabled gsync:gsync_op_submit and gsync:gsync_op_complete" perf_ctl enable
	gs_group "$tmp/perfop" "one all-reduce under perf record" --group $g1p \
		--members "$(gs_members 4 7412)" --mcast 239.77.40.7:7413 \
		--dtypes fp32 --ops sum --sizes 3000
	perf_ctl disable || gs_fail "perf acknowledged disable"
	perf_ctl stop || gs_fail "perf acknowledged stop"
	wait "$ppid_"
	gs_ok "perf record exited cleanly" test $? = 0
	perf script -i "$pdir/data" -F event,trace 2> "$pdir/script.err" |
		grep -o 'gsync:gsync_op_[a-z]*: group=.*' > "$pdir/ev" || true
	for (( r = 0; r < nranks; r++ )); do
		got=$(awk -v g="group=$(hex $g1p)" -v r="rank=$r" '$2 == g && $3 == r { print $1, $4, $5 }' "$pdir/ev")
		want="gsync:gsync_op_submit: seq=1 bytes=12000
gsync:gsync_op_complete: seq=1 bytes=12000"
		gs_ok "perf script: rank $r's seq 1 submitted, then completed" test "$got" = "$want"
		[ "$got" = "$want" ] || { printf '%s\n' "$got"; cat "$pdir/log" "$pdir/script.err"; } | gs_diag
	done
fi
exec {pctl}>&- {pack}>&-

# ---- a schedule switch between two operations ---------------------------
g2=29698
python3 tests/netns/gsched.py clique $nranks --pattern multicast -o "$tmp/one.gsched" ||
	gs_fail "schedule blob"
trace_start
gs_group "$tmp/sw" "two all-reduces, a schedule from the second" --group $g2 \
	--members "$(gs_members 4 7402)" --mcast 239.77.40.2:7403 \
	--dtypes fp32 --ops sum --sizes 3000,5 --switch "2:$tmp/one.gsched"
trace_stop "$tmp/ev.sw"
for (( r = 0; r < nranks; r++ )); do
	got=$(ops "$tmp/ev.sw" "$(hex $g2)" $r)
	tag=$(printf '%s\n' "$got" | awk '$1 == "switch" { print $3 }')
	want="submit seq=1 bytes=12000 sched=0x0000000000000000
complete seq=1 bytes=12000 status=0
switch seq=2 $tag rounds=1 old=0x0000000000000000
submit seq=2 bytes=20 $tag
complete seq=2 bytes=20 status=0"
	gs_ok "rank $r: the schedule switched at seq 2, between the operations (${tag:-no switch})" \
		test "$got" = "$want" -a -n "$tag" -a "$tag" != sched=0x0000000000000000
	[ "$got" = "$want" ] || printf '%s\n' "$got" | gs_diag
done

# ---- under loss: events and counters agree --------------------------------
# Every island's group of this run has ended (groups_live 0) before the
# counters are read, so both cover its whole life, lingering included.
g3=29699
gs_until 120 no_groups || gs_fail "the earlier groups ended"
for id in $(gs_ids); do
	gs_exec "$id" cat /proc/net/gsync_stats > "$tmp/before.$id"
done
gs_impair delay 2ms 1ms loss 5% duplicate 2%
trace_start
gs_group "$tmp/loss" "3 islands, 5% loss + dup" --group $g3 \
	--members "$(gs_members 4 7404)" --mcast 239.77.40.3:7405 \
	--dtypes fp32 --ops sum --sizes "$(gs_pick 100000,30000 20000,3000)"
gs_ok "every group of the lossy run ended" gs_until "$(gs_pick 120 600)" no_groups
trace_stop "$tmp/ev.loss"
gs_impair delay 0ms
before() { awk -v k="$2" '$1 == k {print $2}' "$tmp/before.$1"; }
delta() { echo $(( $(stat_of "$1" "$2") - $(before "$1" "$2") )); }
drops() { awk '$1 ~ /^drop_/ { n += $2 } END { print n + 0 }' "$@"; }	# [FILE]
r=0 nacks=0 rtx=0
for id in $(gs_ids); do
	G=$(hex $g3)
	for pair in nack_send:nacks_sent nack_recv:nacks_received retransmit:retransmits; do
		ev=${pair%%:*} ctr=${pair#*:}
		n=$(count "$tmp/ev.loss" "gsync_$ev" "$G" $r)
		d=$(delta "$id" "$ctr")
		gs_ok "rank $r: $n gsync_$ev events, $ctr +$d" test "$n" = "$d"
		[ "$ev" != nack_send ] || nacks=$(( nacks + n ))
		[ "$ev" != retransmit ] || rtx=$(( rtx + n ))
	done
	n=$(count "$tmp/ev.loss" gsync_retransmit "$G" $r dest=-1)
	d=$(delta "$id" mcast_retransmits)
	gs_ok "rank $r: $n multicast gsync_retransmit events, mcast_retransmits +$d" test "$n" = "$d"
	n=$(count "$tmp/ev.loss" gsync_drop "$G" $r)
	d=$(( $(gs_exec "$id" cat /proc/net/gsync_stats | drops) - $(drops "$tmp/before.$id") ))
	gs_ok "rank $r: $n gsync_drop events, drop_* +$d" test "$n" = "$d"
	r=$(( r + 1 ))
done
gs_ok "loss was repaired: NACKs ($nacks) and retransmissions ($rtx) were traced" \
	test "$nacks" -gt 0 -a "$rtx" -gt 0

# ---- repair runs alongside the stream -----------------------------------------
# A gap that later chunks passed a repair interval ago is lost: it is asked
# for, and resent, while the stream still flows, not only after the
# sender's POLL. The ranks each send 1 MB paced at 500 kB/s (2 s) under 2%
# loss, with a repair interval of 100 ms (no stall of the guest passes for
# one); the first retransmission must come long before either rank
# completes. Asked for after the POLL, it would come a round trip before.
g5=29705
gs_impair delay 2ms loss 2%
trace_start
gs_group "$tmp/flow" "$nranks islands, 2% loss, a 2 s stream each" --group $g5 \
	--members "$(gs_members 4 7420)" --mcast 239.77.40.9:7422 \
	--dtypes fp32 --ops sum --sizes 250000 --rate 500000 --repair-ms 100 \
	--timeout-ms 30000
echo 0 > "$I/tracing_on"
gs_impair delay 0ms
# Milliseconds from group G's first gsync_retransmit to its first
# gsync_op_complete (trace timestamps, global clock); -1 if either is
# missing.
lead=$(awk -v g="group=$(hex $g5)" '
	{
		for (i = 1; i < NF - 1; i++)
			if ($(i + 1) ~ /^gsync_[a-z_]*:$/ && $(i + 2) == g)
				break
		if (i >= NF - 1)
			next
		ts = $i
		sub(/:$/, "", ts)
	}
	$(i + 1) == "gsync_retransmit:" && rtx == "" { rtx = ts }
	$(i + 1) == "gsync_op_complete:" && done == "" { done = ts }
	END { if (rtx != "" && done != "") printf "%d", (done - rtx) * 1000; else print -1 }' \
	"$I/trace")
gs_ok "repairs began while the streams flowed: ${lead} ms before the first completion (>= 1000)" \
	test "$lead" -ge 1000

# ---- a failed operation ends with its errno ---------------------------------
g4=29700
trace_start
GS_RANK_ARGS=("--dtypes fp32" "--dtypes int32" "--dtypes fp32")
gs_group "$tmp/mm" "a dtype mismatch fails the operation with EPROTO" --group $g4 \
	--members "$(gs_members 4 7406)" --mcast 239.77.40.4:7407 --ops sum \
	--sizes 100 --timeout-ms 3000 --expect-status 71
GS_RANK_ARGS=()
trace_stop "$tmp/ev.mm"
for (( r = 0; r < nranks; r++ )); do
	got=$(ops "$tmp/ev.mm" "$(hex $g4)" $r)
	want="submit seq=1 bytes=400 sched=0x0000000000000000
complete seq=1 bytes=400 status=-71"
	gs_ok "rank $r: seq 1 submitted, then ended with status -71 (EPROTO)" test "$got" = "$want"
	[ "$got" = "$want" ] || printf '%s\n' "$got" | gs_diag
done

# ---- offload: dispatched to the agent, or back to the CPU -------------------
agent=userspace/offloadd/build/gsync-offloadd
params=/sys/module/gsync/parameters
[ -x "$agent" ] || make -s -C userspace/offloadd build/gsync-offloadd >/dev/null 2>&1
registered() { grep -q '^agent_registered 1$' /proc/driver/gsync_offload; }
# offload FILE GROUP RANK: one rank's operation and offload events; the
# bytes dispatched are summed per job and shown with the job's completion.
offload() {
	awk -v g="group=$2" -v r="rank=$3" '$2 != g || $3 != r { next }
		$1 == "gsync_op_submit:" { print "submit", $4, $5 }
		$1 == "gsync_offload_dispatch:" {
			b = $8; sub("bytes=", "", b)
			if (!($5 in sent)) print "dispatch", $4
			sent[$5] += b
		}
		$1 == "gsync_offload_fallback:" {
			s = "fallback " $4 " " $6 " " $7 " " $8
			if (!($5 in sent))
				s = s " (another job)"
			print s
		}
		$1 == "gsync_offload_complete:" {
			print "offload_complete", $4, $6, $7, $8, "dispatched=" sent[$5] + 0
		}
		$1 == "gsync_op_complete:" { print "complete", $4, $5, $6 }' "$1"
}
if [ ! -x "$agent" ] || [ ! -c /dev/gsync-offload ] || [ ! -r /proc/driver/gsync_offload ]; then
	gs_fail "offload prerequisites: agent $agent, /dev/gsync-offload"
else
	engine=$(cat "$params/engine")
	timeout_ms=$(cat "$params/offload_timeout_ms")
	echo auto > "$params/engine"
	# The agent must not miss a deadline on a slow kernel: no fallback
	# by timeout in the first run.
	gs_pick 10000 60000 > "$params/offload_timeout_ms"
	for run in ok fail; do
		# run, group id, port, multicast group, agent arguments
		case $run in
		ok) gr=29701 port=7408 mc=239.77.40.5:7409 args=() ;;
		fail) gr=29702 port=7410 mc=239.77.40.6:7411 args=(--fail-every 1) ;;
		esac
		"$agent" -b sim -s 16 -S 256k -l "$tmp/agent.$run.log" "${args[@]}" &
		apid=$!
		gs_ok "agent registers (sim backend${args[*]:+, ${args[*]}})" gs_until 30 registered
		trace_start
		gs_group "$tmp/off.$run" "offloaded all-reduce ($run)" --group "$gr" \
			--members "$(gs_members 4 "$port")" --mcast "$mc" \
			--dtypes fp32 --ops sum --sizes 3000
		trace_stop "$tmp/ev.off.$run"
		kill -TERM "$apid"
		wait "$apid"
		apid=
		for (( r = 0; r < nranks; r++ )); do
			got=$(offload "$tmp/ev.off.$run" "$(hex "$gr")" $r)
			if [ $run = ok ]; then
				want="submit seq=1 bytes=12000
dispatch seq=1
offload_complete seq=1 bytes=12000 by=agent status=0 dispatched=12000
complete seq=1 bytes=12000 status=0"
				desc="dispatched to the agent, completed by it"
			else
				want="submit seq=1 bytes=12000
dispatch seq=1
fallback seq=1 bytes=12000 committed=0 reason=agent_error
offload_complete seq=1 bytes=12000 by=cpu status=0 dispatched=12000
complete seq=1 bytes=12000 status=0"
				desc="dispatched, failed by the agent, computed by the CPU"
			fi
			gs_ok "rank $r: seq 1 $desc" test "$got" = "$want"
			[ "$got" = "$want" ] || printf '%s\n' "$got" | gs_diag
		done
	done
	echo "$engine" > "$params/engine"
	echo "$timeout_ms" > "$params/offload_timeout_ms"
fi
rm -rf "$tmp"
exit $GS_FAILED
