#!/usr/bin/env bash
# Record a real gsync capture in the test VM for the dissector's tests:
#
#   make -s && flock /tmp/gsync-vm.lock tests/vm/run --timeout 900 \
#       --islands 4 --out build/cap -- wireshark/tests/vm-capture.sh
#   cp build/cap/vm-capture.pcap wireshark/tests/
#   wireshark/tests/run --update     (then review the golden diff)
#
# Record it again whenever the wire format changes: the dissector's tests
# flag every packet of an old wire version (gsync.version.old).
#
# Captures the emulated WAN's bridge (every island's traffic, multicast
# once) with dumpcap, 400 bytes per packet, while four islands run:
# IPv4 multicast fp32 sum with 10% loss (NACK, POLL, STATUS, retransmits),
# IPv6 multicast bf16 avg with 10% loss (NACK and retransmits over IPv6
# too), a dtype mismatch (ABORT) over IPv4 and IPv6,
# REPORTs of the adaptive rate throughout, and a 2x2 grid
# schedule with reduce-scatter columns (steps, schedule tags, partial
# values). Writes $GSYNC_OUT/vm-capture.pcap.
. "$(dirname "$0")/../../tests/netns/lib.sh"
out=${GSYNC_OUT:-/tmp}/vm-capture.pcap
tmp=$(mktemp -d)
[ "$(gs_ids | wc -l)" = 4 ] || { echo "vm-capture: needs --islands 4" >&2; exit 2; }

ip netns exec gs-wan dumpcap -i br0 -f udp -s 400 -P -w "$tmp/cap.pcap" 2> "$tmp/dumpcap.log" &
cap=$!
# dumpcap says "Capturing on 'br0'" once the capture runs.
for _ in $(seq 100); do grep -q "Capturing on" "$tmp/dumpcap.log" && break; sleep 0.1; done
grep -q "Capturing on" "$tmp/dumpcap.log" || { cat "$tmp/dumpcap.log" >&2; exit 1; }

gs_impair loss 10%
gs_group "$tmp/a" "IPv4 multicast, 10% loss" --members "$(gs_members 4 7000)" \
	--mcast 239.77.9.1:7100 --dtypes fp32 --ops sum --sizes 100,3000 --repair-ms 20
gs_group "$tmp/b" "IPv6 multicast, 10% loss" --members "$(gs_members 6 7002)" \
	--mcast '[ff15::79]:7102' --dtypes bf16 --ops avg --sizes 700,3000 --repair-ms 20
gs_impair loss 0%
GS_RANK_ARGS=("--dtypes fp32" "--dtypes int32" "--dtypes fp32" "--dtypes fp32")
gs_group "$tmp/c" "dtype mismatch: EPROTO" --members "$(gs_members 4 7004)" \
	--mcast 239.77.9.3:7104 --ops sum --sizes 100 --timeout-ms 3000 --expect-status 71
gs_group "$tmp/c6" "dtype mismatch over IPv6: EPROTO" --members "$(gs_members 6 7008)" \
	--mcast '[ff15::7a]:7108' --ops sum --sizes 100 --timeout-ms 3000 --expect-status 71
GS_RANK_ARGS=()
python3 tests/netns/gsched.py grid 2 2 --row-pattern multicast --col-pattern rs_multicast \
	--block 4096 -o "$tmp/grid.gsched" > /dev/null
gs_group "$tmp/d" "2x2 grid schedule" --members "$(gs_members 4 7006)" \
	--mcast 239.77.9.4:7106 --dtypes fp32 --ops sum --sizes 3000 --schedule "$tmp/grid.gsched"

kill -INT "$cap"
wait "$cap"
cp "$tmp/cap.pcap" "$out"
echo "vm-capture: $(capinfos -c "$out" 2>/dev/null | sed -n 's/.*packets: *//p') packets in $out"
rm -rf "$tmp"
exit $GS_FAILED
