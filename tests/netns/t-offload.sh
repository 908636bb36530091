#!/usr/bin/env bash
# FPGA offload through /dev/gsync-offload with the agent's sim backend:
# all-reduces on 3 islands are reduced by the agent (counters prove it) and
# are bit-exact; the agent killed mid-run -> operations still complete via
# the kernel's CPU fallback (counted); restarted -> offload resumes; SIGTERM
# hands held jobs back and exits 0; injected agent errors and missed
# deadlines fall back; engine=cpu and the GSYNC_ENGINE socket option select.
. "$(dirname "$0")/lib.sh"
tmp=$(mktemp -d)
agent=userspace/offloadd/build/gsync-offloadd
stats=/proc/driver/gsync_offload
params=/sys/module/gsync/parameters

[ -x "$agent" ] || make -s -C userspace/offloadd build/gsync-offloadd >/dev/null 2>&1
if [ ! -x "$agent" ] || [ ! -r "$stats" ] || [ ! -c /dev/gsync-offload ]; then
	gs_fail "offload prerequisites: agent $agent, $stats, /dev/gsync-offload"
	exit 1
fi

ctr() { awk -v n="$1" '$1 == n {print $2}' "$stats"; }
snap() { cp "$stats" "$tmp/snap.$1"; }
sval() { awk -v n="$2" '$1 == n {print $2}' "$tmp/snap.$1"; }	# sval SNAP NAME
delta() { echo $(( $(ctr "$2") - $(sval "$1" "$2") )); }
wait_for() {	# wait_for TRIES CMD...: poll every 0.1 s
	local n=$1
	shift
	for _ in $(seq "$n"); do "$@" && return 0; sleep 0.1; done
	return 1
}
registered() { [ "$(ctr agent_registered)" = 1 ]; }
unregistered() { [ "$(ctr agent_registered)" = 0 ]; }
frozen() {	# every thread of the agent is stopped
	local st
	for st in /proc/"$AGENT_PID"/task/*/stat; do
		[ "$(sed 's/.*) //; s/ .*//' "$st")" = T ] || return 1
	done
}
# freeze_holding SNAP BASE: stop the agent (SIGSTOP) and succeed if it then
# holds fetched jobs (jobs_held; jobs_active also counts jobs queued in the
# kernel that no FETCH took) and has completed some since snap BASE (it is
# mid-run); snap SNAP has the counters of that moment. Else let it go on.
# Frozen, it cannot commit what it holds, so a signal sent next finds it
# holding them; reading the gauge of a running agent would race with its
# next commit.
freeze_holding() {
	kill -STOP "$AGENT_PID"
	if wait_for 50 frozen; then
		snap "$1"
		[ "$(sval "$1" jobs_held)" -gt 0 ] &&
			[ "$(sval "$1" jobs_offloaded)" -gt "$(sval "$2" jobs_offloaded)" ] &&
			return 0
	fi
	kill -CONT "$AGENT_PID"
	return 1
}
# expect_holding SNAP BASE WHEN: freeze_holding within 30 s, as a TAP line.
expect_holding() {
	if wait_for 300 freeze_holding "$1" "$2"; then
		gs_pass "agent holds fetched jobs $3 ($(sval "$1" jobs_held) held, $(sval "$1" jobs_active) active)"
	else
		gs_fail "agent holds fetched jobs $3 (never seen holding one)"
		snap "$1"
	fi
}
AGENT_PID=
start_agent() {	# start_agent LOG ARGS...
	local log=$1
	shift
	"$agent" -b sim -s 16 -S 256k -v -l "$log" "$@" &
	AGENT_PID=$!
	wait_for 100 registered
}

gs_islands_up 3
members=$(gs_members 4 7000)
echo auto > "$params/engine"
# Deadlines and agent delays scale with the kernel's speed (debug: ~10x).
base_to=$(gs_pick 200 4000)
echo "$base_to" > "$params/offload_timeout_ms"

# ---- 1. the agent reduces, bit-exact ------------------------------------
gs_ok "agent registers (sim backend)" start_agent "$tmp/agent1.log"
snap a
gs_group "$tmp/g1" "offloaded all-reduce, 3 islands, every dtype and op" \
	--members "$members" --mcast 239.77.3.1:7100 --specials \
	--sizes 1,999,40001 --check-sample 100000
sub=$(delta a jobs_submitted)
off=$(delta a jobs_offloaded)
fb=$(( $(delta a fallback_timeout) + $(delta a fallback_agent_error) + $(delta a fallback_agent_gone) ))
# 4 dtypes x 4 ops x 3 sizes per rank, 3 ranks
gs_ok "every reduction went to the agent ($off of $sub offloaded, 144 expected, $fb fallbacks)" \
	test "$sub" -eq 144 -a "$off" -eq 144 -a "$fb" -eq 0
gs_ok "no CPU reduction while the agent serves ($(delta a jobs_cpu) cpu, $(delta a jobs_no_agent) no-agent)" \
	test "$(delta a jobs_cpu)" -eq 0 -a "$(delta a jobs_no_agent)" -eq 0
gs_ok "jobs larger than a slot were cut into pieces ($(delta a pieces_committed) pieces)" \
	test "$(delta a pieces_committed)" -gt "$off"
gs_ok "no bad commands from the agent" test "$(delta a bad_commands)" -eq 0

# ---- 2. agent killed mid-run -> CPU fallback ------------------------------
# The agent holds every batch 100 ms; it is frozen while it holds some
# (freeze_holding), then killed. The deadline is raised for this part so
# that jobs a frozen agent holds stay held while the snapshot is taken:
# with the 200 ms default, TCG's slowness let the deadline take them back
# first (jobs_offloaded +14, fallback_timeout +34 of 48 in one run) and
# the freeze missed them.
kill -TERM "$AGENT_PID"; wait "$AGENT_PID"
echo "$(gs_pick 3000 30000)" > "$params/offload_timeout_ms"
gs_ok "agent restarts with --delay-ms 100" start_agent "$tmp/agent2.log" --delay-ms "$(gs_pick 100 1000)"
snap b
GS_RANK_ARGS=()
(gs_group "$tmp/g2" "all-reduce while the agent is killed" \
	--members "$(gs_members 4 7001)" --mcast 239.77.3.2:7101 \
	--dtypes fp32,bf16 --ops sum,avg --sizes 50000 --iters 4 \
	--timeout-ms 20000 > "$tmp/g2.tap"; echo $? > "$tmp/g2.rc") &
grp=$!
expect_holding k b mid-run
kill -KILL "$AGENT_PID"
wait "$AGENT_PID" 2>/dev/null
wait $grp
cat "$tmp/g2.tap"
[ "$(cat "$tmp/g2.rc")" = 0 ] || GS_FAILED=1
gs_ok "the kernel noticed the agent's death (agent_lost +$(delta b agent_lost))" \
	wait_for 50 unregistered
# A job held at snap k had no error committed for it (that takes it back)
# and the frozen agent commits nothing more, so it ends as exactly one
# fallback counted after snap k: fallback_agent_gone, or fallback_timeout
# or fallback_agent_error should its deadline pass or a commit the agent
# had queued in the kernel still run as it dies. (jobs_cancelled would be
# no CPU computation; the group's results are checked above.)
held=$(sval k jobs_held)
fbk=$(( $(delta k fallback_agent_gone) + $(delta k fallback_timeout) +
	$(delta k fallback_agent_error) ))
gs_ok "jobs the dead agent held were computed by the CPU ($held held, $fbk fallbacks)" \
	test "$fbk" -ge "$held" -a "$fbk" -ge 1
gs_ok "operations after the death used the CPU ($(delta b jobs_cpu) cpu jobs)" \
	test "$(delta b jobs_cpu)" -ge 1
echo "$base_to" > "$params/offload_timeout_ms"
gs_ok "no job left behind (jobs_active $(ctr jobs_active))" test "$(ctr jobs_active)" -eq 0

# ---- 3. restart -> offload resumes -----------------------------------------
gs_ok "agent restarts after the kill" start_agent "$tmp/agent3.log"
snap c
gs_group "$tmp/g3" "all-reduce after the restart" \
	--members "$(gs_members 4 7002)" --mcast 239.77.3.3:7102 \
	--dtypes fp32,int32,fp16 --ops sum,max --sizes 5,40000
# 3 ranks x 3 dtypes x 2 ops x 2 sizes operations, each reduced as one job
# per rank (default schedule: one round, one block).
want=$(( 3 * 3 * 2 * 2 ))
gs_ok "offload resumed ($(delta c jobs_offloaded) of $want offloaded)" \
	test "$(delta c jobs_offloaded)" -eq "$want" -a "$(delta c jobs_cpu)" -eq 0

# ---- 4. SIGTERM hands held jobs back and exits 0 ---------------------------
kill -TERM "$AGENT_PID"; wait "$AGENT_PID"
gs_ok "agent exits 0 on SIGTERM when idle" test $? -eq 0
# Jobs stay 2 s in the agent (deadline raised to 5 s); SIGTERM is sent
# while it is frozen holding some, and takes effect when it goes on.
echo "$(gs_pick 5000 30000)" > "$params/offload_timeout_ms"
start_agent "$tmp/agent4.log" --delay-ms 2000 || gs_fail "agent start (SIGTERM test)"
snap d
(gs_group "$tmp/g4" "all-reduce while the agent is stopped with SIGTERM" \
	--members "$(gs_members 4 7003)" --mcast 239.77.3.4:7103 \
	--dtypes fp32 --ops sum,min --sizes 30000 --iters 3 \
	--timeout-ms 20000 > "$tmp/g4.tap"; echo $? > "$tmp/g4.rc") &
grp=$!
expect_holding l d "before SIGTERM"
kill -TERM "$AGENT_PID"
kill -CONT "$AGENT_PID"
wait "$AGENT_PID"
rc=$?
wait $grp
cat "$tmp/g4.tap"
[ "$(cat "$tmp/g4.rc")" = 0 ] || GS_FAILED=1
gs_ok "agent exited 0 after SIGTERM with jobs held (exit $rc)" test "$rc" -eq 0
echo "$base_to" > "$params/offload_timeout_ms"
gs_ok "agent left its fetched jobs to the kernel" grep -q 'fetched jobs left to the kernel' "$tmp/agent4.log"
gs_ok "held jobs were handed back to the CPU (fallback_agent_gone +$(delta d fallback_agent_gone))" \
	test "$(delta d fallback_agent_gone)" -ge 1
gs_ok "a clean stop is not counted as a lost agent" test "$(delta d agent_lost)" -eq 0

# ---- 5. agent errors and missed deadlines ---------------------------------
start_agent "$tmp/agent5.log" --fail-every 3 || gs_fail "agent start (errors)"
snap e
gs_group "$tmp/g5" "all-reduce with every 3rd job failed by the agent" \
	--members "$(gs_members 4 7004)" --mcast 239.77.3.5:7104 \
	--dtypes fp32,bf16 --ops sum,avg --sizes 1000,33333
gs_ok "agent errors fell back to the CPU (fallback_agent_error +$(delta e fallback_agent_error))" \
	test "$(delta e fallback_agent_error)" -ge 4
kill -TERM "$AGENT_PID"; wait "$AGENT_PID"

start_agent "$tmp/agent6.log" --delay-ms "$(gs_pick 400 8000)" || gs_fail "agent start (deadline)"
snap f
gs_group "$tmp/g6" "all-reduce with an agent slower than offload_timeout_ms" \
	--members "$(gs_members 4 7005)" --mcast 239.77.3.6:7105 \
	--dtypes int32 --ops sum --sizes 2000 --iters 3
gs_ok "missed deadlines fell back to the CPU (fallback_timeout +$(delta f fallback_timeout))" \
	test "$(delta f fallback_timeout)" -ge 3
late_seen() { [ "$(delta f late_commits)" -ge 1 ]; }
gs_ok "late commits were absorbed (late_commits +$(delta f late_commits))" wait_for 30 late_seen
gs_ok "late commits are not bad commands" test "$(delta f bad_commands)" -eq 0
kill -TERM "$AGENT_PID"; wait "$AGENT_PID"

# ---- 6. selection: engine=cpu, GSYNC_ENGINE --------------------------------
start_agent "$tmp/agent7.log" || gs_fail "agent start (selection)"
echo cpu > "$params/engine"
snap g
gs_group "$tmp/g7" "all-reduce with engine=cpu while an agent is registered" \
	--members "$(gs_members 4 7006)" --mcast 239.77.3.7:7106 \
	--dtypes fp32 --ops sum --sizes 100 --iters 2
gs_ok "engine=cpu keeps reductions in the kernel ($(delta g jobs_offloaded) offloaded, $(delta g jobs_cpu) cpu)" \
	test "$(delta g jobs_offloaded)" -eq 0 -a "$(delta g jobs_cpu)" -eq 6
echo auto > "$params/engine"
gs_ok "engine= rejects unknown names" bash -c "! echo fpga > $params/engine"

gs_ok "GSYNC_ENGINE: per socket, before and after join, offload beats engine=cpu" \
	gs_exec i0 python3 - "$(gs_addr4 i0)" "$(gs_addr4 i1)" <<'PY'
import errno, struct, sys
sys.path.insert(0, "tests/netns")
import gsync_py as g
SOL, ENGINE = 299, 5
CPU, OFFLOAD, AUTO = 1, 2, 3
s = g.open_socket()
get = lambda: struct.unpack("I", s.getsockopt(SOL, ENGINE, 4))[0]
assert get() == 0, get()
s.setsockopt(SOL, ENGINE, struct.pack("I", CPU))
assert get() == CPU
for bad in (struct.pack("I", 4), struct.pack("H", 1)):
    try:
        s.setsockopt(SOL, ENGINE, bad)
        sys.exit("bad GSYNC_ENGINE value accepted")
    except OSError as e:
        assert e.errno == errno.EINVAL, e
g.join(s, 77, 0, [(sys.argv[1], 7300), (sys.argv[2], 7300)], ("239.77.3.9", 7301))
s.setsockopt(SOL, ENGINE, struct.pack("I", OFFLOAD))
assert get() == OFFLOAD
s.close()
PY
echo cpu > "$params/engine"
snap h
GS_RANK_ARGS=()
gs_ok "GSYNC_ENGINE=offload on one socket overrides engine=cpu" \
	gs_exec i0 python3 - "$(gs_addr4 i0)" "$(gs_addr4 i1)" "$(gs_ns i1)" <<'PY'
import struct, subprocess, sys
sys.path.insert(0, "tests/netns")
import gsync_py as g
a, b, ns1 = sys.argv[1:4]
members = [(a, 7400), (b, 7400)]
peer = subprocess.Popen(["ip", "netns", "exec", ns1, "python3", "-c", f"""
import sys; sys.path.insert(0, "tests/netns")
import gsync_py as g
s = g.open_socket()
g.join(s, 78, 1, {members!r}, ("239.77.3.10", 7401))
seq, st, data = g.allreduce(s, 1, bytes(range(256)) * 16, g.INT32, g.SUM)
assert st == 0
"""])
s = g.open_socket()
s.setsockopt(299, 5, struct.pack("I", 2))
g.join(s, 78, 0, members, ("239.77.3.10", 7401))
seq, st, data = g.allreduce(s, 1, bytes(range(256)) * 16, g.INT32, g.SUM)
wrap = lambda x: (x + 2**31) % 2**32 - 2**31
want = b"".join(struct.pack("<i", wrap(2 * v)) for v in struct.unpack("<1024i", bytes(range(256)) * 16))
assert st == 0 and data == want, (st, data[:16])
sys.exit(peer.wait(timeout=30))
PY
gs_ok "... exactly that socket's job was offloaded ($(delta h jobs_offloaded) offloaded, $(delta h jobs_cpu) cpu)" \
	test "$(delta h jobs_offloaded)" -eq 1 -a "$(delta h jobs_cpu)" -eq 1
echo auto > "$params/engine"
kill -TERM "$AGENT_PID"; wait "$AGENT_PID"

# ---- 7. no agent: engine=offload counts, auto does not ---------------------
echo offload > "$params/engine"
snap i
gs_group "$tmp/g8" "all-reduce with engine=offload and no agent" \
	--members "$(gs_members 4 7007)" --mcast 239.77.3.8:7107 \
	--dtypes fp32 --ops max --sizes 10
gs_ok "engine=offload without an agent falls back, counted ($(delta i jobs_no_agent) no-agent)" \
	test "$(delta i jobs_no_agent)" -eq 3
echo auto > "$params/engine"

gs_ok "a second agent cannot register while one is" bash -c '
	'"$agent"' -b sim -s 2 -S 64k -l '"$tmp"'/a1.log & p=$!
	for i in $(seq 100); do grep -q "agent_registered 1" '"$stats"' && break; sleep 0.1; done
	'"$agent"' -b sim -s 2 -S 64k 2>'"$tmp"'/a2.err; rc=$?
	kill -TERM $p; wait $p
	[ $rc = 1 ] && grep -q "another agent is registered" '"$tmp"'/a2.err'
gs_ok "no offload state left (jobs_active $(ctr jobs_active), registered $(ctr agent_registered))" \
	test "$(ctr jobs_active)" -eq 0 -a "$(ctr agent_registered)" -eq 0
for f in "$tmp"/agent*.log; do sed 's/^/# /' "$f" | tail -n 3; done
rm -rf "$tmp"
exit $GS_FAILED
