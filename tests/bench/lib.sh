# shellcheck shell=bash
# Sourced by the benchmark scripts, on the host and in the test VM.

# bench_bytes SIZE: SIZE in bytes; a k/K or M suffix is a power of two
# (1k = 1024, 1M = 1048576), as for the example program.
bench_bytes() {
	awk -v s="$1" 'BEGIN { m = 1; if (s ~ /[kK]$/) m = 1024; if (s ~ /M$/) m = 1048576; print int(s) * m }'
}

# bench_cpu_mark: the machine's busy and total CPU time so far (jiffies,
# from /proc/stat's first line), for bench_cpu_busy.
bench_cpu_mark() {
	awk '/^cpu / { t = 0; for (i = 2; i <= NF; i++) t += $i; print t - $5 - $6, t; exit }' /proc/stat
}

# bench_cpu_busy MARK: the percentage of CPU time (all CPUs) spent busy
# since MARK (from bench_cpu_mark). Near 100, the emulation is bound by
# the CPU (TCG), not by the emulated links.
bench_cpu_busy() {
	local b0=${1% *} t0=${1#* }
	bench_cpu_mark | awk -v b0="$b0" -v t0="$t0" '{ d = $2 - t0; printf "%.0f", (d > 0 ? 100 * ($1 - b0) / d : 0) }'
}
