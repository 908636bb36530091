#!/usr/bin/env bash
# libgsync end to end: the example program (blocking and io_uring modes)
# checks every result against the reference, and gsyncctl reads live
# sockets inside an island.
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
rm -rf "$tmp"
exit $GS_FAILED
