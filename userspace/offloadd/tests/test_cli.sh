#!/bin/sh
# test_cli.sh AGENT - the gsync-offloadd binary's command-line behaviour on
# the host (no module needed): --help, --version, usage errors (exit 2),
# a missing device (exit 1 with the reason), a missing card for --backend
# xrt (fails fast with XRT's reason, or says XRT is not built in).
agent=$1
n=0
fail=0
t() {
	n=$((n + 1))
	if [ "$1" = 0 ]; then echo "ok $n - $2"; else echo "not ok $n - $2"; fail=1; fi
}
out=$("$agent" --help); rc=$?
t $(( rc != 0 )) "--help exits 0"
echo "$out" | grep -q -- '--backend' && echo "$out" | grep -q 'SIGTERM' &&
	echo "$out" | grep -q 'Exit status'
t $? "--help documents options, signals, exit status"
"$agent" --version | grep -q 'gsync-offloadd'
t $? "--version"
"$agent" --slots 0 2>/tmp/gso-cli.$$; rc=$?
t $(( rc != 2 )) "usage error exits 2"
grep -q -- "--help" /tmp/gso-cli.$$
t $? "usage error points at --help"
"$agent" -b sim -d /nonexistent/gsync-offload 2>/tmp/gso-cli.$$; rc=$?
t $(( rc != 1 )) "missing device exits 1"
grep -q 'cannot open /nonexistent/gsync-offload' /tmp/gso-cli.$$
t $? "missing device: reason logged"
start=$(date +%s)
"$agent" -b xrt -x /nonexistent.xclbin -d /nonexistent 2>/tmp/gso-cli.$$; rc=$?
end=$(date +%s)
t $(( rc != 1 || end - start > 20 )) "xrt without a card fails fast ($((end - start)) s)"
grep -q 'backend xrt' /tmp/gso-cli.$$
t $? "xrt failure says why: $(head -c 200 /tmp/gso-cli.$$ | tr '\n' ' ')"
rm -f /tmp/gso-cli.$$
exit $fail
