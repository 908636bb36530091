#!/bin/sh
# test_example.sh - CLI checks of examples/allreduce (TAP) that need no
# module: help, usage errors (exit 2), and the not-loaded error (exit 4).
# usage: test_example.sh BINARY
BIN=$1
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
n=0
fail=0
t() { # t DESCRIPTION EXPECTED_RC CMD...
	desc=$1; want=$2; shift 2
	n=$((n + 1))
	"$@" >"$TMP/out" 2>"$TMP/err"
	rc=$?
	if [ "$rc" -eq "$want" ]; then
		echo "ok $n - allreduce: $desc"
	else
		echo "not ok $n - allreduce: $desc (exit $rc, want $want)"
		sed 's/^/# /' "$TMP/err" | head -5
		fail=1
	fi
}
M=198.18.0.1:7000,198.18.0.2:7000
t "--help exits 0" 0 "$BIN" --help
n=$((n + 1))
if grep -q "Exit status" "$TMP/out"; then echo "ok $n - allreduce: --help documents exit statuses"
else echo "not ok $n - allreduce: --help documents exit statuses"; fail=1; fi
t "no arguments is a usage error" 2 "$BIN"
t "missing --members" 2 "$BIN" --rank 0 --unicast
t "missing --mcast/--unicast" 2 "$BIN" --rank 0 --members $M
t "bad dtype" 2 "$BIN" --rank 0 --members $M --unicast --dtype fp64
t "bad op" 2 "$BIN" --rank 0 --members $M --unicast --op mul
t "size not a multiple of the element size" 2 "$BIN" --rank 0 --members $M --unicast --size 6
t "size over GSYNC_MAX_OP_BYTES" 2 "$BIN" --rank 0 --members $M --unicast --size 2048M
t "garbage size" 2 "$BIN" --rank 0 --members $M --unicast --size 12x
t "rank outside the member list" 2 "$BIN" --rank 2 --members $M --unicast
t "duplicate members" 2 "$BIN" --rank 0 --members 198.18.0.1:7000,198.18.0.1:7000 --unicast
t "one member" 2 "$BIN" --rank 0 --members 198.18.0.1:7000 --unicast
t "garbage member" 2 "$BIN" --rank 0 --members 198.18.0.1:7000,nohost:1 --unicast
t "unicast address as --mcast" 2 "$BIN" --rank 0 --members $M --mcast 198.18.0.9:7100
t "negative iterations" 2 "$BIN" --rank 0 --members $M --unicast --iters -1
t "stray argument" 2 "$BIN" --rank 0 --members $M --unicast extra
t "--key-mode without --key" 2 "$BIN" --rank 0 --members $M --unicast --key-mode auth
t "an unknown --key-mode" 2 "$BIN" --rank 0 --members $M --unicast --key "$TMP/k" --key-mode none
t "a garbage --key-epoch" 2 "$BIN" --rank 0 --members $M --unicast --key "$TMP/k" --key-epoch 1x
t "a missing key file: setup failed (4)" 4 "$BIN" --rank 0 --members $M --unicast --key "$TMP/nokey"
printf 'AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8=\n' > "$TMP/k"
chmod 644 "$TMP/k"
t "a world-readable key file: setup failed (4)" 4 "$BIN" --rank 0 --members $M --unicast --key "$TMP/k"
n=$((n + 1))
if grep -q "chmod 600" "$TMP/err"; then echo "ok $n - allreduce: says to chmod 600 it"
else echo "not ok $n - allreduce: says to chmod 600 it"; fail=1; fi
if [ ! -e /sys/module/gsync/parameters/family ]; then
	chmod 600 "$TMP/k"
	t "a good key file, module not loaded: exit 4" 4 "$BIN" --rank 0 --members $M --unicast --key "$TMP/k"
	n=$((n + 1))
	if grep -q "not loaded" "$TMP/err"; then echo "ok $n - allreduce: the key file was read, the module is missing"
	else echo "not ok $n - allreduce: the key file was read, the module is missing"; fail=1; fi
fi
if [ ! -e /sys/module/gsync/parameters/family ]; then
	t "module not loaded: exit 4" 4 "$BIN" --rank 0 --members $M --unicast
	n=$((n + 1))
	if grep -q "not loaded" "$TMP/err"; then echo "ok $n - allreduce: says the module is not loaded"
	else echo "not ok $n - allreduce: says the module is not loaded"; fail=1; fi
else
	n=$((n + 1)); echo "ok $n - allreduce: module not loaded # SKIP gsync is loaded"
fi
exit $fail
