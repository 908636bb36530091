#!/usr/bin/env bash
# The socket paths the hardening work fixed: one submission per seq under
# concurrent callers, the net.gsync memory budgets, the pacing range, a rank
# killed mid-send failing its peers promptly with ECONNRESET, a process
# restarted on the endpoint of its own lingering group, and group lifetimes
# at close and at a JOIN that fails.
# check-on: qemu (two submitters racing for one seq need two CPUs)
. "$(dirname "$0")/lib.sh"
tmp=$(mktemp -d)
gs_islands_up 3
a0=$(gs_addr4 i0)
a1=$(gs_addr4 i1)

gs_exec i0 python3 tests/netns/hardening.py same-seq "$a0"
GS_FAILED=$(( GS_FAILED | $? ))
gs_exec i0 python3 tests/netns/hardening.py budget "$a0"
GS_FAILED=$(( GS_FAILED | $? ))
gs_exec i0 python3 tests/netns/hardening.py pacing "$a0"
GS_FAILED=$(( GS_FAILED | $? ))

# A closed rank whose peer never acknowledged lingers; a new process on the
# same endpoint must get it at once (no EADDRINUSE).
mkfifo "$tmp/l0"
gs_exec i0 python3 tests/netns/hardening.py linger "$a0" "$a1" > "$tmp/l0" 2>&1 &
pl=$!
exec 8< "$tmp/l0"
read -r line <&8		# rank 0 joined and submitted
gs_ok "rank 0 submitted ($line)" test "$line" = submitted
gs_ok "the forged rank 1 sent its data" \
	gs_exec i1 python3 tests/netns/hardening.py forge "$a0" "$a1"
cat <&8
exec 8<&-
wait "$pl"
GS_FAILED=$(( GS_FAILED | $? ))
gs_exec i0 python3 tests/netns/hardening.py rejoin "$a0" "$a1"
GS_FAILED=$(( GS_FAILED | $? ))

# Rank 2 submits a 4 MiB operation paced at 2 MiB/s and is SIGKILLed while
# sending it: ranks 0 and 1 must fail with ECONNRESET (104), told by the
# ABORT its socket sends at close, not with ETIMEDOUT after 20 s. Rank 2
# starts once both have joined: its ABORT is sent once, and a peer with no
# socket bound yet never gets it (it times out, as with a rank that died
# before it joined).
members=$(gs_members 4 7310)
size=$((4 << 20))
for r in 0 1; do
	gs_exec "i$r" python3 tests/netns/hardening.py member "$r" "$members" "$size" \
		> "$tmp/m$r" 2>&1 &
	eval "pm$r=\$!"
done
joined() { grep -qx joined "$tmp/m0" && grep -qx joined "$tmp/m1"; }
gs_until 60 joined || gs_fail "ranks 0 and 1 joined"
mkfifo "$tmp/in2" "$tmp/out2"
gs_exec i2 python3 tests/netns/hardening.py member 2 "$members" "$size" kill \
	< "$tmp/in2" > "$tmp/out2" 2>&1 &
pm2=$!
exec 7> "$tmp/in2"		# rank 2 waits on its stdin until killed
exec 8< "$tmp/out2"
read -r line pid <&8		# blocks until rank 2 has submitted
gs_ok "rank 2 submitted before it was killed ($line)" test "$line" = submitted
start=$(date +%s%N)
kill -KILL "$pid"
wait "$pm2"
wait "$pm0" "$pm1"
ms=$(( ($(date +%s%N) - start) / 1000000 ))
exec 7>&- 8<&-
for r in 0 1; do
	gs_ok "rank $r: the operation of a killed rank fails with ECONNRESET" \
		grep -qx 'result seq 1 status 104' "$tmp/m$r"
	gs_diag < "$tmp/m$r"
done
# The time includes the three processes' exit: 4.6 and 5.7 s were seen on
# the debug kernel, where the status (104, not 110) shows the ABORT did it.
lim=$(gs_pick 5000 10000)
gs_ok "survivors failed within $(( lim / 1000 )) s of the kill, op_timeout 20 s (${ms} ms)" \
	test "$ms" -lt "$lim"

# A POLL for an operation the receiver already released (its STATUS was
# lost) is answered at once, so the sender frees its window slot instead of
# waiting op_timeout_ms for an acknowledgement.
mkfifo "$tmp/s0" "$tmp/s0in" "$tmp/f1" "$tmp/f1in"
gs_exec i0 python3 tests/netns/hardening.py stale-rank0 "$a0" "$a1" \
	< "$tmp/s0in" > "$tmp/s0" 2>&1 &
ps0=$!
exec 5> "$tmp/s0in" 6< "$tmp/s0"
read -r line <&6
gs_ok "rank 0 submitted ($line)" test "$line" = submitted
gs_exec i1 python3 tests/netns/hardening.py stale-fake "$a0" "$a1" \
	< "$tmp/f1in" > "$tmp/f1" 2>&1 &
pf1=$!
exec 3> "$tmp/f1in" 4< "$tmp/f1"
read -r line <&4
gs_ok "the fake rank 1 acknowledged ($line)" test "$line" = acknowledged
while read -r line <&6; do [ "$line" = released ] && break; echo "$line"; done
echo go >&3
cat <&4
wait "$pf1" || GS_FAILED=1
exec 5>&- 3>&-
cat <&6
wait "$ps0" || GS_FAILED=1
exec 6<&- 4<&-

# Lifetimes at close and at a failed JOIN: a close with an operation in
# flight racing a JOIN on its endpoint, and JOINs failing after their
# unicast socket received packets. The debug kernel's KASAN and kmemleak
# judge what the counts cannot see.
gs_exec i0 python3 tests/netns/hardening.py close-rejoin "$a0" "$(gs_pick 20 6)" $((64 << 20))
GS_FAILED=$(( GS_FAILED | $? ))
gs_exec i0 python3 tests/netns/hardening.py join-fail "$a0" "$(gs_pick 300 100)"
GS_FAILED=$(( GS_FAILED | $? ))

rm -rf "$tmp"
exit $GS_FAILED
