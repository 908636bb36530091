#!/usr/bin/env bash
# An unprivileged user (uid 65534, in a 64 MiB memory cgroup) tries to
# exhaust kernel memory through JOIN/sendmsg/close loops with 256 fake peers:
# it gets ENOMEM at its cgroup's limit (gsync's allocations fail there
# instead of calling the OOM killer), the limit holds, nothing is
# OOM-killed, and every byte is given back.
# In a user namespace it owns, it cannot raise gsync's budget past the one
# the initial namespace sets.
. "$(dirname "$0")/lib.sh"
gs_islands_up 1
a0=$(gs_addr4 i0)

cg=/sys/fs/cgroup
mountpoint -q "$cg" || mount -t cgroup2 none "$cg"
echo +memory > "$cg/cgroup.subtree_control"
mkdir -p "$cg/gs-unpriv"
echo $((64 << 20)) > "$cg/gs-unpriv/memory.max"
mark=$(gs_kmsg_mark)

# The attacker runs in the cgroup, as nobody, in island i0 (ip netns exec
# mounts the namespace's own /sys: join the cgroup before).
sh -c "echo \$\$ > $cg/gs-unpriv/cgroup.procs &&
	exec ip netns exec $(gs_ns i0) setpriv --reuid=65534 --regid=65534 \
	--clear-groups python3 tests/netns/unpriv.py exhaust $a0 20" \
	> /tmp/unpriv.out 2>&1
rc=$?
gs_diag < /tmp/unpriv.out
gs_ok "as uid 65534 each of 20 rounds got ENOMEM at the cgroup limit (exit $rc)" \
	test "$(cat /tmp/unpriv.out)" = "errno ENOMEM 20"
peak=$(cat "$cg/gs-unpriv/memory.peak")
gs_ok "the cgroup's peak stayed within its 64 MiB limit ($peak)" \
	test "$peak" -le $((64 << 20))
gs_ok "the cgroup hit its limit and killed nothing ($(tr '\n' ' ' < "$cg/gs-unpriv/memory.events"))" \
	awk '$1 == "max" { m = $2 } $1 == "oom_kill" { k = $2 } END { exit !(m > 0 && k == 0) }' \
	"$cg/gs-unpriv/memory.events"
gs_ok "the kernel OOM-killed nothing" bash -c "! dmesg | sed -n '/$mark/,\$p' | grep -q 'oom-kill'"
gs_ok "every byte the attacker's operations held is released" \
	test "$(gs_exec i0 awk '$1 == "mem_bytes" {print $2}' /proc/net/gsync_stats)" = 0
gs_ok "no socket is left open" test "$(gs_exec i0 tail -n +2 /proc/net/gsync | wc -l)" = 0
rmdir "$cg/gs-unpriv"

# A user namespace of its own: its netns sysctl may be raised, but the
# initial namespace's value caps it (2 MiB needs more than 1 MiB x 3).
old=$(cat /proc/sys/net/gsync/sock_mem_max)
echo $((1 << 20)) > /proc/sys/net/gsync/sock_mem_max
out=$(setpriv --reuid=65534 --regid=65534 --clear-groups \
	unshare -Urn python3 tests/netns/unpriv.py userns-cap 2>&1)
echo "$out" | gs_diag
gs_ok "in its own user and network namespace the budget stays capped" \
	test "$out" = "sysctl raised submit EMSGSIZE"
echo "$old" > /proc/sys/net/gsync/sock_mem_max
exit $GS_FAILED
