#!/usr/bin/env bash
# libgsync end to end: the example program (blocking and io_uring modes)
# checks every result against the reference, and gsyncctl reads live
# sockets inside an island. Then many operations in flight on three
# islands: the library's ring and the program's own io_uring.
. "$(dirname "$0")/lib.sh"
ex=userspace/libgsync/examples/allreduce
ctl=userspace/gsyncctl/gsyncctl
[ -x "$ex" ] && [ -x "$ctl" ] || make -s -C userspace/libgsync -C userspace/gsyncctl >/dev/null
tmp=$(mktemp -d)
gs_islands_up 4
members=$(gs_members 4 7000)

run_ranks() { # DESC ARGS...
	local desc=$1 r=0 id pids=()
	shift
	for id in $(gs_ids); do
		gs_exec "$id" "$ex" --rank "$r" --members "$members" --ifname eth0 \
			--timeout-ms 60000 "$@" \
			> "$tmp/$r.out" 2>&1 &
		pids+=($!)
		r=$(( r + 1 ))
	done
	for r in "${!pids[@]}"; do
		if wait "${pids[r]}"; then
			echo "ok - $desc: rank $r $(tail -n 1 "$tmp/$r.out")"
		else
			echo "not ok - $desc: rank $r"
			sed 's/^/# /' "$tmp/$r.out" | tail -n 5
			GS_FAILED=1
		fi
	done
}

run_ranks "blocking, fp32 sum, 1 MiB x 4" --mcast 239.77.2.1:7100 \
	--size 1M --iters 4 --check
run_ranks "io_uring depth 4, bf16 avg, any bit pattern" --mcast 239.77.2.2:7101 \
	--size 256k --dtype bf16 --op avg --data bits --iters 8 --async --depth 4 --check
run_ranks "io_uring, unicast fan-out, int32 max" --unicast --size 100k \
	--dtype int32 --op max --iters 6 --async --check

# gsyncctl against live sockets: hold a joined group open in island i0.
gs_exec i0 "$ex" --rank 0 --members "$members" --mcast 239.77.2.3:7102 \
	--size 4k --iters 1 --timeout-ms 20000 > /dev/null 2>&1 &
sleep 1.5
gs_ok "gsyncctl show lists the joined socket" \
	bash -c "ip netns exec gs-i0 $ctl show | grep -q joined"
gs_ok "gsyncctl stats --json parses" \
	bash -c "ip netns exec gs-i0 $ctl stats --json | python3 -c 'import json,sys; json.load(sys.stdin)'"
ip netns exec gs-i0 "$ctl" show | gs_diag

# ---- many operations in flight ------------------------------------------------
# Three islands 10 ms apart, window 8, depth 16: each rank keeps 8
# operations in flight (the ring refuses a 9th with -EAGAIN until it reaps
# one), sizes cycling per operation, every result checked bit for bit.
# Exact counts from each rank's summary line: operations finished, the most
# in flight, the socket's GSYNC_STATS. Port 7010: i0's gsyncctl holder
# above may still own 7000.
for a in 0 1 2; do
	for b in 0 1 2; do
		[ "$a" = "$b" ] || gs_set_pair "$a" "$b" 10 0
	done
done
members3=$(gs_members 4 7010 i0 i1 i2)
iters=$(gs_pick 40 16)
field() { sed -n "s/.* $1=\([0-9]*\).*/\1/p" "$2"; }
run_inflight() { # DESC ARGS...
	local desc=$1 r id pids=() kmax=0 k f why
	shift
	r=0
	for id in i0 i1 i2; do
		gs_exec "$id" "$ex" --rank "$r" --members "$members3" --ifname eth0 \
			--timeout-ms 60000 --window 8 --depth 16 --iters "$iters" --check "$@" \
			> "$tmp/$r.out" 2>&1 &
		pids+=($!)
		r=$(( r + 1 ))
	done
	for r in 0 1 2; do
		f=$tmp/$r.out
		why=
		wait "${pids[r]}" || why="exit $?"
		[ "$(field ops "$f")" = "$iters" ] || why+=" ops=$(field ops "$f")"
		[ "$(field inflight_max "$f")" = 8 ] || why+=" inflight_max=$(field inflight_max "$f")"
		[ "$(field stats_completed "$f")" = "$iters" ] || why+=" stats_completed=$(field stats_completed "$f")"
		[ "$(field stats_failed "$f")" = 0 ] || why+=" stats_failed=$(field stats_failed "$f")"
		case "$*" in *--async*) [ "$(field refused "$f")" -gt 0 ] || why+=" refused=0" ;; esac
		if [ -z "$why" ]; then
			echo "ok - $desc: rank $r: $iters exact results, 8 in flight"
		else
			echo "not ok - $desc: rank $r:$why"
			sed 's/^/# /' "$f" | tail -n 5
			GS_FAILED=1
		fi
		k=$(field kernel_inflight_max "$f")
		[ "${k:-0}" -le "$kmax" ] || kmax=$k
	done
	# The first rank to submit cannot finish anything before its peers'
	# data crossed 10 ms of WAN, so it holds several operations at once.
	gs_ok "$desc: the kernel held up to $kmax operations of one socket at once" \
		test "$kmax" -ge 2
}
run_inflight "ring, caller's seqs, fp32 sum, 4k/100k/1M/36 bytes" \
	--mcast 239.77.2.4:7103 --async --size 4k,100k,1M,36
run_inflight "ring, library's seqs, bf16 avg, any bit pattern, 64k/2/300k bytes" \
	--mcast 239.77.2.5:7104 --async --auto-seq --dtype bf16 --op avg --data bits \
	--size 64k,2,300k
run_inflight "own io_uring (gsync_prep_*), int32 sum, 1M/4k/250k/12 bytes" \
	--mcast 239.77.2.6:7105 --uring --dtype int32 --size 1M,4k,250k,12
run_inflight "own io_uring, unicast fan-out, fp16 max, 8k/200k bytes" \
	--unicast --uring --dtype fp16 --op max --size 8k,200k
rm -rf "$tmp"
exit $GS_FAILED
