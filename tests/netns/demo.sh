#!/usr/bin/env bash
# make demo, inside the test VM: nine islands on the private nine-city
# topology (per-pair latencies from topologies/nine-city-private.json,
# access links capped at 100 Mbit/s so TCG keeps up), one multicast group,
# all-reduces checked bit for bit, then what gsyncctl shows.
. "$(dirname "$0")/lib.sh"
topo=${DEMO_TOPOLOGY:-topologies/nine-city-private.json}
ex=userspace/libgsync/examples/allreduce
echo "== islands of $topo (one-way latency, ms)"
gs_topology_up "$topo" --rate-mbit 100
python3 tests/netns/topo.py "$topo" | awk '
	$1 == "island" { id[$2] = $3; n++ }
	$1 == "delay" { d[$2, $3] = $4 }
	END {
		printf "%6s", ""; for (j = 0; j < n; j++) printf "%8s", id[j]; print ""
		for (i = 0; i < n; i++) {
			printf "%6s", id[i]
			for (j = 0; j < n; j++) printf "%8s", i == j ? "-" : sprintf("%.1f", d[i, j])
			print ""
		}
	}'
members=$(gs_members 4 7000)
k=$(gs_ids | wc -l)
# gsync has no congestion control: every island receives from k-1 senders
# through its own access link, so each sender is paced to 1/(k-1) of it
# (less header overhead), or the receivers' links overflow.
pace=$(( 100 * 1000000 / 8 * 90 / 100 / (k - 1) ))
echo
echo "== $k ranks, one multicast clique: 5 all-reduces of 1 MiB fp32 (sum), checked"
echo "   senders paced to $pace bytes/s each"
r=0
for id in $(gs_ids); do
	gs_exec "$id" "$ex" --rank "$r" --members "$members" --mcast 239.77.9.1:7100 \
		--ifname eth0 --size 1M --iters 5 --check --async --timeout-ms 30000 \
		--pacing-rate "$pace" > "/tmp/demo.$r" 2>&1 &
	r=$(( r + 1 ))
done
fail=0
wait || fail=1
r=0
for id in $(gs_ids); do
	printf '%-4s %s\n' "$id" "$(tail -n 1 "/tmp/demo.$r")"
	grep -q 'result=ok' "/tmp/demo.$r" || { fail=1; sed 's/^/     /' "/tmp/demo.$r"; }
	r=$(( r + 1 ))
done
echo
echo "== gsyncctl in AMS while a group is joined"
gs_exec AMS "$ex" --rank 0 --members "$members" --mcast 239.77.9.2:7101 \
	--ifname eth0 --size 4k --iters 1 --timeout-ms 5000 > /dev/null 2>&1 &
for _ in $(seq 100); do
	gs_exec AMS grep -q joined /proc/net/gsync && break
	sleep 0.1
done
gs_exec AMS userspace/gsyncctl/gsyncctl show
wait
exit $fail
