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

# bench_profile_start FILE: with BENCH_PROFILE=1 and perf installed, sample
# every CPU (software clock, 499 Hz, no call graphs) into FILE until
# bench_profile_stop; prints the sampler's pid (nothing when off).
bench_profile_start() {
	[ "${BENCH_PROFILE:-0}" = 1 ] || return 0
	command -v perf >/dev/null || { echo "bench: no perf in the guest, not profiling" >&2; return 0; }
	perf record -q -a -e cpu-clock -F 499 -o "$1" >/dev/null 2>&1 &
	echo $!
}

# bench_profile_stop PID FILE TITLE: stop the sampler and print the shares of
# time by binary (kernel, gsync.ko, python...) and the busiest symbols.
bench_profile_stop() {
	[ -n "$1" ] || return 0
	kill -INT "$1" 2>/dev/null
	# Not this shell's child (started in a command substitution): wait
	# for it to exit, having written its file, by its pid.
	tail --pid="$1" -f /dev/null
	echo "profile: $3: share of all CPU samples by binary, then by symbol (1% and up)"
	perf report -i "$2" --stdio --no-children --sort dso --percent-limit 1 2>&1 |
		grep -v '^#' | grep -v '^$' | sed 's/^/profile:   /'
	perf report -i "$2" --stdio --no-children --sort dso,sym --percent-limit 1 2>/dev/null |
		grep -v '^#' | grep -v '^$' | head -n 30 | sed 's/^/profile:   /'
}
