#!/usr/bin/env bash
# End-to-end all-reduce over the emulated WAN, driven from Python's socket
# module: every dtype and operator, sizes from 1 element to megabytes,
# IPv4 and IPv6, multicast and unicast fan-out, 2, 4 and 9 islands. Every
# rank checks its result against a reference computed in the test and all
# ranks must hold identical bits.
. "$(dirname "$0")/lib.sh"
tmp=$(mktemp -d)

gs_islands_up 2
gs_group "$tmp/a" "2 islands, IPv4 multicast, every dtype and op" \
	--members "$(gs_members 4 7000)" --mcast 239.77.1.1:7100 --specials \
	--sizes "$(gs_pick 1,2,3,7,100,1000,4099 1,7,1000)"

gs_islands_up 4
gs_group "$tmp/b" "4 islands, IPv6 multicast, fp32/bf16 sum/avg up to 4 MiB" \
	--members "$(gs_members 6 7000)" --mcast '[ff15::77]:7100' \
	--dtypes fp32,bf16 --ops sum,avg --sizes "$(gs_pick 5,65537,1048576 5,65537)" --check-sample 3000

gs_islands_up 9
gs_group "$tmp/c" "9 islands, IPv4 unicast fan-out" \
	--members "$(gs_members 4 7000)" --dtypes fp32,int32,fp16 --ops sum,max \
	--sizes "$(gs_pick 1,333,20000 1,2000)"

gs_group "$tmp/d" "9 islands, IPv6 multicast" \
	--members "$(gs_members 6 7001)" --mcast '[ff15::78]:7101' \
	--dtypes bf16,int32 --ops avg,min --sizes "$(gs_pick 3,10000 3,1000)"
rm -rf "$tmp"
exit $GS_FAILED
