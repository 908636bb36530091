#!/usr/bin/env bash
# Keyed groups (GSYNC_KEY; docs/security.md).
#  1. the socket options (keyed_api.py): errors, the key never readable,
#     fingerprints, rotations, the administrator's push, require_auth
#  2. exact, bit-identical results keyed, in both modes, IPv4 and IPv6,
#     multicast and unicast, under a schedule with an aggregator, under
#     5% loss + 20% reordering, and with the key rotated every few
#     operations under that loss
#  3. an attacker on island i2 that spoofs rank 1's address (spoof.py, the
#     forger that t-spoof.sh shows corrupting an unkeyed group) against a
#     keyed 2-rank group: forged DATA (plain, or laid out as sealed with
#     a tag the forger cannot make), STATUS, POLL, NACK, ABORT change
#     nothing and are counted as drop_auth (drop_epoch for an epoch
#     nobody holds), exactly; rank 1's genuine
#     packets captured on the WAN and replayed are drop_replay, exactly,
#     and once the key was rotated, drop_epoch
#  4. t-hostile's fuzzer from rank 1's endpoint at a keyed rank: every
#     packet dropped, nothing taken
#  5. a rank with another key, and a rank without one: the operation
#     fails with EKEYREJECTED everywhere, and both sides count drop_auth
. "$(dirname "$0")/lib.sh"
tmp=$(mktemp -d)
gs_islands_up 3
key() { od -An -tx1 -N32 /dev/urandom | tr -d ' \n'; }
k1=$(key) k2=$(key) k3=$(key) kx=$(key)

# 1. the socket options
gs_exec i0 python3 tests/netns/keyed_api.py > "$tmp/api" 2>&1
rc=$?
cat "$tmp/api"
[ "$rc" = 0 ] || GS_FAILED=1

# 2. exact results
gs_impair delay 2ms 1ms loss 5% reorder 20%
gs_group "$tmp/enc4" "ENCRYPT, IPv4 multicast, 5% loss + reorder" \
	--members "$(gs_members 4 7700)" --mcast 239.77.7.1:7701 --key "encrypt:1:$k1" \
	--dtypes fp32,bf16 --ops sum --sizes "$(gs_pick 1,5000,60000 1,5000,20000)"
gs_group "$tmp/auth6" "AUTH, IPv6 unicast, 5% loss + reorder" \
	--members "$(gs_members 6 7702)" --key "auth:1:$k1" \
	--dtypes fp32,int32 --ops sum,max --sizes 7,30000
gs_group "$tmp/enc6m" "ENCRYPT, IPv6 multicast, 5% loss + reorder" \
	--members "$(gs_members 6 7703)" --mcast "[ff0e::77:7]:7704" --key "encrypt:3:$k2" \
	--dtypes fp16 --ops sum --sizes 20000
python3 tests/netns/gsched.py clique 3 --pattern aggregator --block 16384 -o "$tmp/agg" ||
	gs_fail "aggregator schedule blob"
for mode in auth encrypt; do
	gs_group "$tmp/agg-$mode" "$mode, a schedule with an aggregator, 5% loss + reorder" \
		--members "$(gs_members 4 7710)" --mcast 239.77.7.2:7711 --key "$mode:1:$k1" \
		--schedule "$tmp/agg" --dtypes fp32 --ops sum,avg --sizes 9000,50000
done
for d in enc4 auth6 enc6m agg-auth agg-encrypt; do
	want="# key mode $(case $d in auth*|agg-auth) echo 1;; *) echo 2;; esac)"
	gs_ok "$d: every rank keyed, as set" test "$(grep -l "^$want " "$tmp/$d"/rank* | wc -l)" = 3
done
n=$(gs_stats_sum "$tmp/enc4" nacks_sent) x=$(gs_stats_sum "$tmp/enc4" retransmits)
gs_ok "ENCRYPT under loss: repairs happened ($n NACKs, $x retransmits), sealed too" \
	test "$n" -gt 0 -a "$x" -gt 0
# Rotations every 4 operations, each installed 2 operations ahead.
gs_group "$tmp/rot" "ENCRYPT, rotated at ops 5, 9, 13 under 5% loss + reorder" \
	--members "$(gs_members 4 7720)" --mcast 239.77.7.3:7721 --key "encrypt:1:$k1" \
	--rotate "3:5:2:$k2" --rotate "7:9:3:$k3" --rotate "11:13:4:$k1" \
	--dtypes fp32,int32 --ops sum --sizes 3000,20000 --iters 4
gs_ok "rotation: every rank sends with epoch 4 at the end" \
	test "$(grep -l '^# key mode 2 epoch 4 ' "$tmp/rot"/rank* | wc -l)" = 3
for d in enc4 auth6 enc6m agg-auth agg-encrypt rot; do
	a=$(gs_stats_sum "$tmp/$d" drop_auth) e=$(gs_stats_sum "$tmp/$d" drop_epoch)
	gs_ok "$d: no packet refused for its key ($a auth, $e epoch drops)" test "$a $e" = "0 0"
done
gs_impair

# 3. the spoofing attacker against a keyed group
a0=$(gs_addr4 i0)
a1=$(gs_addr4 i1)
port=7730
grp=43
members="$a0:$port,$a1:$port"
. "$(dirname "$0")/spoof-pair.sh"
spoof_pair_start "$grp" "$members" "encrypt:1:$k1"
forge() {	# forge KIND SEQ N [COUNT]
	gs_exec i2 python3 tests/netns/spoof.py forge "$1" "$a1:$port" "$a0:$port" \
		"$grp" "$2" "$3" "$cb" "${4:-1}" > /dev/null
}
op() {	# op SEQ N: both submit, both exact
	ask 0 submit "$1" "$2"; ask 1 submit "$1" "$2"
	expect 0 "result $1 0 match" "op $1: rank 0 exact" collect "$1" "$2"
	expect 1 "result $1 0 match" "op $1: rank 1 exact" collect "$1" "$2"
}
read -r l0 <&4
read -r l1 <&6
gs_ok "keyed pair joined ($l0, $l1)" test "$l0 $l1" = "joined joined"
ask 1 chunk
cb=${ans#chunk_bytes }
n=256
m=$cb		# 4 chunks
echo "# chunk_bytes $cb"

# Rank 1's genuine packets to rank 0 during op 1, from the WAN's port p1.
mkfifo "$tmp/cap"
gs_wan_exec() { ip netns exec gs-wan "$@"; }
gs_wan_exec python3 tests/netns/spoof.py capture p1 "$a1:$port" "$a0:$port" "$tmp/pkts" \
	< "$tmp/cap" > "$tmp/captured" 2>&1 3>&- 4<&- 5>&- 6<&- &
pc=$!
exec 7> "$tmp/cap"
for _ in $(seq 500); do grep -q capturing "$tmp/captured" && break; sleep 0.02; done
op 1 $m
exec 7>&-
wait "$pc" || gs_fail "capture ran ($(cat "$tmp/captured"))"
ncap=$(sed -n 's/^captured //p' "$tmp/captured")
gs_ok "captured rank 1's packets of op 1 (${ncap:-none})" test "${ncap:-0}" -gt 0

auth=$(val 0 drop_auth)
rx=$(val 0 rx_packets)
nr=$(val 0 nacks_received)
rt=$(val 0 retransmits)
# forged DATA before rank 1's own: with no key, rank 0 would sum it
ask 0 submit 2 $n
forge data 2 $n
expect 0 "reached drop_auth $(( auth + 1 ))" "op 2: forged DATA dropped as auth" \
	wait drop_auth $(( auth + 1 ))
# ... and laid out as sealed, with a tag the forger cannot compute
forge sealed-data 2 $n
expect 0 "reached drop_auth $(( auth + 2 ))" "op 2: forged sealed DATA does not open: auth" \
	wait drop_auth $(( auth + 2 ))
ep=$(val 0 drop_epoch)
forge sealed-epoch 2 $n
expect 0 "reached drop_epoch $(( ep + 1 ))" "op 2: forged DATA of an epoch nobody holds: epoch" \
	wait drop_epoch $(( ep + 1 ))
expect 0 "rx_packets $rx" "op 2: forged DATA not taken" get rx_packets
ask 1 submit 2 $n
expect 0 "result 2 0 match" "op 2: rank 0 exact" collect 2 $n
expect 1 "result 2 0 match" "op 2: rank 1 exact" collect 2 $n
# forged STATUS, POLL, ten NACKs, ABORT for op 3; ABORT for op 4
ask 0 submit 3 $m
forge status 3 $m
forge poll 3 $m
forge nack 3 $m 10
forge abort 3 $m
forge abort 4 $n
expect 0 "reached drop_auth $(( auth + 16 ))" "ops 3-4: 14 forged control packets dropped as auth" \
	wait drop_auth $(( auth + 16 ))
expect 0 "nacks_received $nr" "ops 3-4: no forged NACK read" get nacks_received
ask 1 submit 3 $m
expect 0 "result 3 0 match" "op 3: rank 0 exact" collect 3 $m
expect 1 "result 3 0 match" "op 3: rank 1 exact" collect 3 $m
op 4 $n
expect 0 "retransmits $rt" "ops 2-4: nothing retransmitted for the forgeries" get retransmits

# replays of op 1's genuine packets
rep=$(val 0 drop_replay)
rx=$(val 0 rx_packets)
gs_exec i2 python3 tests/netns/spoof.py replay "$a1:$port" "$a0:$port" "$tmp/pkts" | gs_diag
expect 0 "reached drop_replay $(( rep + ncap ))" "replayed: all $ncap dropped as replays" \
	wait drop_replay $(( rep + ncap ))
op 5 $n

# gsyncctl: the fingerprint of the key file is the group's; then the
# administrator rotates both ranks to epoch 2 from op 7 (GSYNC_KEY_PUSH)
G=userspace/gsyncctl/gsyncctl
[ -x "$G" ] || make -s -C userspace/gsyncctl gsyncctl >/dev/null
keyfile() {	# keyfile HEX FILE: a key file (base64, 0600) of secret HEX
	python3 -c 'import base64, os, sys
fd = os.open(sys.argv[2], os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
os.write(fd, base64.b64encode(bytes.fromhex(sys.argv[1])) + b"\n")' "$1" "$2"
}
keyfile "$k1" "$tmp/k1.key"
keyfile "$k2" "$tmp/k2.key"
fp1=$("$G" key show "$tmp/k1.key")
fp2=$("$G" key show "$tmp/k2.key")
want=$(python3 -c 'import hashlib, sys
print(hashlib.blake2s(b"gsync fingerprint v1" + bytes.fromhex(sys.argv[1])).digest()[:8].hex())' "$k1")
gs_ok "gsyncctl key show FILE: the fingerprint ($fp1)" test "$fp1" = "$want"
line=$(gs_exec i0 "$G" key show | awk -v g="0x$(printf %x $grp)" '$2 == g')
echo "$line" | gs_diag
gs_ok "gsyncctl key show: rank 0 runs encrypt, epoch 1, that fingerprint" \
	test "$(echo "$line" | awk '{ print $4, $5, $6, $7 }')" = "encrypt 1 - $fp1"
for i in i0 i1; do
	gs_ok "gsyncctl key set on $i: epoch 2 from op 7" \
		gs_exec "$i" "$G" key set --group "$grp" --epoch 2 --start-seq 7 --mode encrypt "$tmp/k2.key"
done
line=$(gs_exec i0 "$G" key show | awk -v g="0x$(printf %x $grp)" '$2 == g')
gs_ok "gsyncctl key show: epoch 1, epoch 2 next" \
	test "$(echo "$line" | awk '{ print $4, $5, $6, $7 }')" = "encrypt 1 2 $fp1"
op 6 $n
op 7 $m
op 8 $n
expect 0 "key 2 0" "rank 0 sends with epoch 2" key 2 0
line=$(gs_exec i0 "$G" key show | awk -v g="0x$(printf %x $grp)" '$2 == g')
gs_ok "gsyncctl key show: epoch 2, its fingerprint" \
	test "$(echo "$line" | awk '{ print $4, $5, $7 }')" = "encrypt 2 $fp2"
ep=$(val 0 drop_epoch)
gs_exec i2 python3 tests/netns/spoof.py replay "$a1:$port" "$a0:$port" "$tmp/pkts" | gs_diag
expect 0 "reached drop_epoch $(( ep + ncap ))" "replayed after the rotation: all $ncap dropped as epoch" \
	wait drop_epoch $(( ep + ncap ))
op 9 $n

exec 3>&- 5>&-
wait "$p0" || gs_fail "rank 0 exited cleanly"
wait "$p1" || gs_fail "rank 1 exited cleanly"
cat <&4 | gs_diag
cat <&6 | gs_diag
exec 4<&- 6<&-

# 4. the fuzzer from rank 1's own endpoint, before rank 1 joins
members=$(gs_members 4 7750 i0 i1)
to=$(gs_pick 60000 900000)
mkfifo "$tmp/joined"
gs_exec i0 python3 tests/netns/gsync_py.py run --rank 0 --members "$members" \
	--key "encrypt:1:$k1" --dtypes fp32,int32 --ops sum --sizes 1,5000 \
	--timeout-ms "$to" --ready-fifo "$tmp/joined" > "$tmp/f0" 2>&1 &
p0=$!
read -r line < "$tmp/joined"
row() { gs_exec i0 awk 'NR == 1 { for (i = 1; i <= NF; i++) col[i] = $i; next }
	{ for (i = 1; i <= NF; i++) if (col[i] ~ /^(drop_|rx_packets$|reports_received$|nacks_received$)/) print col[i], $i }' \
	/proc/net/gsync | sort; }
row > "$tmp/before"
gs_ok "fuzzer sent 2000 packets from rank 1's endpoint" \
	gs_exec i1 python3 tests/netns/fuzz_wire.py "$a0" 7750 1 2 1 2000 9
row > "$tmp/after"
deltas=$(join "$tmp/before" "$tmp/after" | awk '{ printf "%s=%d ", $1, $3 - $2 }')
echo "$deltas" | gs_diag
total=$(join "$tmp/before" "$tmp/after" | awk '$1 ~ /^drop_/ { s += $3 - $2 } END { print s }')
gs_ok "fuzzing a keyed rank: all 2000 packets dropped and counted ($total)" \
	test "$total" = 2000
gs_ok "fuzzing a keyed rank: nothing taken, read or reported" \
	grep -q ' nacks_received=0 reports_received=0 rx_packets=0 ' <<< " $deltas"
gs_exec i1 python3 tests/netns/gsync_py.py run --rank 1 --members "$members" \
	--key "encrypt:1:$k1" --dtypes fp32,int32 --ops sum --sizes 1,5000 \
	--timeout-ms "$to" > "$tmp/f1" 2>&1 &
p1=$!
for r in 0 1; do
	eval "pid=\$p$r"
	if wait "$pid"; then
		gs_pass "fuzzed keyed group, rank $r: exact results after it"
	else
		gs_fail "fuzzed keyed group, rank $r: exact results after it"
		gs_diag < "$tmp/f$r"
	fi
done

# 5. a rank with another key; a rank without one
GS_RANK_ARGS=([2]="--key encrypt:1:$kx")
gs_group "$tmp/wrong" "rank 2 has another key: EKEYREJECTED everywhere" \
	--members "$(gs_members 4 7740)" --mcast 239.77.7.4:7741 --key "encrypt:1:$k1" \
	--dtypes fp32 --ops sum --sizes 5000 --timeout-ms 2000 --expect-status 129
GS_RANK_ARGS=([2]="--key none")
gs_group "$tmp/none" "rank 2 has no key: EKEYREJECTED everywhere" \
	--members "$(gs_members 4 7742)" --mcast 239.77.7.5:7743 --key "auth:1:$k1" \
	--dtypes fp32 --ops sum --sizes 5000 --timeout-ms 2000 --expect-status 129
GS_RANK_ARGS=()
for d in wrong none; do
	for r in 0 2; do
		gs_ok "$d: rank $r counted the other side's packets as drop_auth" \
			grep -q 'drop_auth=[1-9]' "$tmp/$d/rank$r"
	done
done
rm -rf "$tmp"
exit $GS_FAILED
