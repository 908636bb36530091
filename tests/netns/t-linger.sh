#!/usr/bin/env bash
# Lingering groups end cleanly however they end: a closed rank whose peer
# never acknowledges keeps serving repairs (POLLing every repair interval)
# until its namespace is deleted or the module is unloaded under it. Looped,
# so that the debug kernel (KASAN, lockdep, kmemleak) sees the teardown race
# with the repair and destroy work many times.
. "$(dirname "$0")/lib.sh"
rounds=$(gs_pick 6 3)

# linger_once: islands up, rank 0 of a 2-rank group lingers in i0.
linger_once() {
	local dir line rc
	gs_islands_up 2
	dir=$(mktemp -d)
	mkfifo "$dir/l0"
	gs_exec i0 python3 tests/netns/hardening.py linger "$(gs_addr4 i0)" \
		"$(gs_addr4 i1)" > "$dir/l0" 2>&1 &
	exec 8< "$dir/l0"
	read -r line <&8
	[ "$line" = submitted ] &&
		gs_exec i1 python3 tests/netns/hardening.py forge "$(gs_addr4 i0)" \
			"$(gs_addr4 i1)"
	rc=$?
	cat <&8 > "$dir/out"
	exec 8<&-
	wait
	grep -q '^not ok' "$dir/out" && rc=1
	grep -q 'still holds its operation' "$dir/out" || rc=1
	rm -rf "$dir"
	return $rc
}

for (( i = 1; i <= rounds; i++ )); do
	gs_ok "round $i: a closed rank lingers" linger_once
	gs_ok "round $i: deleting its namespace ends it" ip netns del "$(gs_ns i0)"
	gs_islands_down
	gs_ok "round $i: a closed rank lingers again" linger_once
	gs_ok "round $i: the module unloads under it" rmmod gsync
	gs_ok "round $i: and loads again" insmod "$GSYNC_MODDIR/kmod/gsync.ko"
	gs_islands_down
done
exit $GS_FAILED
