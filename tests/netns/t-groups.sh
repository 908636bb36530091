#!/usr/bin/env bash
# Many concurrent groups on the same islands: different ports and group
# addresses, IPv4 and IPv6, multicast and unicast, all at once; each must
# come out exact and independent of the others.
. "$(dirname "$0")/lib.sh"
tmp=$(mktemp -d)
gs_islands_up 4
declare -a pids descs
run() { # DESC ARGS...
	local d=$1
	shift
	( gs_group "$tmp/$((${#pids[@]}))" "$d" "$@" > "$tmp/tap.${#pids[@]}" ) &
	pids+=($!)
}
run "group 1 (IPv4 multicast)" --group 1 --members "$(gs_members 4 7400)" \
	--mcast 239.77.4.1:7500 --dtypes fp32 --ops sum --sizes "$(gs_pick 1000,30000 1000,5000)" --iters 2
run "group 2 (IPv4 multicast)" --group 2 --members "$(gs_members 4 7401)" \
	--mcast 239.77.4.2:7501 --dtypes int32 --ops max --sizes "$(gs_pick 777,30000 777,5000)" --iters 2
run "group 3 (IPv6 multicast)" --group 3 --members "$(gs_members 6 7402)" \
	--mcast '[ff15::4:3]:7502' --dtypes bf16 --ops avg --sizes "$(gs_pick 5,40000 5,5000)" --iters 2
run "group 4 (IPv4 unicast)" --group 4 --members "$(gs_members 4 7403)" \
	--dtypes fp16 --ops sum --sizes "$(gs_pick 64,10000 64,3000)" --iters 2
run "group 5 (same group id as 1, other port)" --group 1 --members "$(gs_members 4 7404)" \
	--mcast 239.77.4.1:7504 --dtypes fp32 --ops min --sizes "$(gs_pick 100,20000 100,4000)" --iters 2
for p in "${pids[@]}"; do wait "$p"; done
cat "$tmp"/tap.*
grep -q '^not ok' "$tmp"/tap.* && GS_FAILED=1
gs_ok "all 20 sockets are gone afterwards" \
	bash -c '! grep -q . <(for n in $(ip netns list | awk "/gs-i/ {print \$1}"); do ip netns exec $n tail -n +2 /proc/net/gsync; done)'
rm -rf "$tmp"
exit $GS_FAILED
