# shellcheck shell=bash
# Sourced by the benchmark scripts, on the host and in the test VM.

# bench_bytes SIZE: SIZE in bytes; a k/K or M suffix is a power of two
# (1k = 1024, 1M = 1048576), as for the example program.
bench_bytes() {
	awk -v s="$1" 'BEGIN { m = 1; if (s ~ /[kK]$/) m = 1024; if (s ~ /M$/) m = 1048576; print int(s) * m }'
}
