#!/bin/sh
# run-tap.sh NAME TEST...  - run TAP test programs, echo their output, then
# print one "NAME: N passed, M failed[, S skipped]" line.  Exits non-zero if
# any case failed, any program exited non-zero, or no case ran at all
# (a test that silently prints nothing must not count as a pass).
name=$1; shift
log=$(mktemp) || exit 1
status=0
for t in "$@"; do
	echo "# $t"
	if ! "$t" >"$log.one" 2>&1; then
		status=1
		echo "# $t exited non-zero"
	fi
	cat "$log.one"
	cat "$log.one" >>"$log"
done
pass=$(grep -c '^ok ' "$log" | tr -d ' ')
skip=$(grep -c '^ok .*# SKIP' "$log" | tr -d ' ')
fail=$(grep -c '^not ok ' "$log" | tr -d ' ')
pass=$((pass - skip))
rm -f "$log" "$log.one"
echo "$name: $pass passed, $fail failed, $skip skipped"
[ "$fail" -eq 0 ] && [ $((pass + skip)) -gt 0 ] || status=1
exit $status
