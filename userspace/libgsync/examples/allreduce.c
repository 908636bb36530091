// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * allreduce: run all-reduces over AF_GSYNC with libgsync and, with --check,
 * verify every result bit for bit against a locally computed reference.
 * One process per rank; the netns tests and gsync-bench run it. See
 * --help and docs/libgsync.md.
 */
#include <errno.h>
#include <getopt.h>
#include <net/if.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "gsync.h"

#include "pattern.h"
#include "run.h"

static const char usage[] =
"usage: allreduce --rank R --members ADDR,ADDR,... (--mcast ADDR | --unicast)\n"
"                 [--size BYTES] [--dtype T] [--op OP] [--iters N] [--check]\n"
"                 [--async [--auto-seq] | --uring] [--depth D] [other options]\n"
"\n"
"Joins an AF_GSYNC group as rank R and runs N all-reduces of BYTES bytes.\n"
"Every rank must be started with the same member list, group, size, dtype,\n"
"op, iterations, data and seed.\n"
"\n"
"  --rank R            this process's rank (index into --members)\n"
"  --members LIST      unicast endpoints of all ranks in rank order:\n"
"                      198.18.0.1:7000,[2001:2::2]:7000,...\n"
"  --mcast ADDR        multicast group and port, e.g. 239.1.1.1:7100\n"
"  --unicast           no multicast: unicast fan-out\n"
"  --group-id N        group id (default 1)\n"
"  --size BYTES[,...]  operation size; suffix k or M (x1024); default 4096;\n"
"                      a list cycles: operation i has the (i mod n)th size\n"
"  --dtype T           fp32 (default), bf16, fp16, int32\n"
"  --op OP             sum (default), avg, min, max\n"
"  --iters N           operations to run (default 10)\n"
"  --check             verify every result against the reference reduction\n"
"                      (docs/reduction-semantics.md); data differs per\n"
"                      iteration, and generating it is inside the timing\n"
"  --data KIND         small (default: exact small values) or bits (any bit\n"
"                      pattern: NaN, Inf, subnormals)\n"
"  --seed N            data seed (default 1)\n"
"  --async             use libgsync's io_uring ring (gsync_ring) instead\n"
"                      of blocking calls\n"
"  --auto-seq          async: the ring numbers the operations\n"
"                      (gsync_allreduce_submit_next)\n"
"  --uring             this program's own io_uring with gsync_prep_*()\n"
"  --depth D           async/uring: operations in flight (default 4; the\n"
"                      group's window caps it)\n"
"  --ifname NAME       egress/multicast interface (default: by route)\n"
"  --ttl N --mtu N --window N --timeout-ms N --repair-ms N --pacing-rate B/s\n"
"                      GSYNC_JOIN tunables (0 = kernel default)\n"
"  --mcast-loop        ranks share a host or netns (GSYNC_JOIN_MCAST_LOOP)\n"
"  --key FILE          a keyed group: the secret from key FILE (mode 0600;\n"
"                      gsyncctl key generate), set before the join\n"
"  --key-mode MODE     encrypt (default) or auth (integrity only)\n"
"  --key-epoch N       the key's epoch (default 1)\n"
"\n"
"Output: one summary line \"allreduce: key=value ...\" on stdout: ops\n"
"finished, the most in flight at once (inflight_max; with --check also as\n"
"the kernel counted them, kernel_inflight_max), submissions the ring refused\n"
"because its window was full (refused), and the socket's ops_completed and\n"
"ops_failed counters (stats_completed, stats_failed).\n"
"Exit status: 0 all operations succeeded (and matched with --check);\n"
"1 a result did not match the reference; 2 usage error; 3 an operation\n"
"failed (status ETIMEDOUT, EPROTO, ...); 4 setup failed (module not\n"
"loaded, join refused, ...).\n";

static int parse_u64(const char *s, uint64_t max, uint64_t *out)
{
	char *end;
	unsigned long long v;

	errno = 0;
	if (!s || !*s || *s == '-')
		return -1;
	v = strtoull(s, &end, 0);
	if (errno || *end || v > max)
		return -1;
	*out = v;
	return 0;
}

static int parse_size(const char *s, size_t *out)
{
	char buf[32];
	size_t len = strlen(s), mul = 1;
	uint64_t v;

	if (len == 0 || len >= sizeof(buf))
		return -1;
	memcpy(buf, s, len + 1);
	if (buf[len - 1] == 'k' || buf[len - 1] == 'K')
		mul = 1024;
	else if (buf[len - 1] == 'M')
		mul = 1024 * 1024;
	if (mul > 1)
		buf[len - 1] = '\0';
	if (parse_u64(buf, GSYNC_MAX_OP_BYTES / mul, &v))
		return -1;
	*out = (size_t)v * mul;
	return 0;
}

/* "4k" or "4k,64k,1M": o->sizes[], o->nsizes, o->size = the largest. */
static int parse_sizes(const char *s, struct opts *o)
{
	char buf[256], *tok, *save = NULL;
	size_t v;

	if (strlen(s) >= sizeof(buf))
		return -1;
	strcpy(buf, s);
	o->nsizes = 0;
	o->size = 0;
	for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		if (o->nsizes == MAX_SIZES || parse_size(tok, &v) || !v)
			return -1;
		o->sizes[o->nsizes++] = v;
		if (v > o->size)
			o->size = v;
	}
	/* strtok_r skips empty fields: "4k,,8k" or ",4k" are errors too */
	if (!o->nsizes || s[0] == ',' || s[strlen(s) - 1] == ',' || strstr(s, ",,"))
		return -1;
	return 0;
}

static int die_usage(const char *what, const char *arg)
{
	fprintf(stderr, "allreduce: invalid %s '%s' (see --help)\n", what,
		arg ? arg : "");
	return EX_USAGE;
}

static int set_u32(const char *arg, uint64_t max, void *field, int bits)
{
	uint64_t v;

	if (parse_u64(arg, max, &v))
		return -1;
	if (bits == 64)
		*(uint64_t *)field = v;
	else
		*(unsigned int *)field = (unsigned int)v;
	return 0;
}

static int parse_args(int argc, char **argv, struct opts *o)
{
	enum { O_MCAST = 256, O_UNICAST, O_GROUP, O_DATA, O_SEED, O_ASYNC,
	       O_DEPTH, O_IFNAME, O_TTL, O_MTU, O_WINDOW, O_TIMEOUT, O_REPAIR,
	       O_PACING, O_LOOP, O_MEMBERS, O_AUTOSEQ, O_URING, O_KEY, O_KEYMODE,
	       O_KEYEPOCH };
	static const struct option lo[] = {
		{ "rank", 1, NULL, 'r' }, { "members", 1, NULL, O_MEMBERS },
		{ "mcast", 1, NULL, O_MCAST }, { "unicast", 0, NULL, O_UNICAST },
		{ "group-id", 1, NULL, O_GROUP }, { "size", 1, NULL, 's' },
		{ "dtype", 1, NULL, 't' }, { "op", 1, NULL, 'o' },
		{ "iters", 1, NULL, 'n' }, { "check", 0, NULL, 'c' },
		{ "data", 1, NULL, O_DATA }, { "seed", 1, NULL, O_SEED },
		{ "async", 0, NULL, O_ASYNC }, { "depth", 1, NULL, O_DEPTH },
		{ "auto-seq", 0, NULL, O_AUTOSEQ }, { "uring", 0, NULL, O_URING },
		{ "ifname", 1, NULL, O_IFNAME }, { "ttl", 1, NULL, O_TTL },
		{ "mtu", 1, NULL, O_MTU }, { "window", 1, NULL, O_WINDOW },
		{ "timeout-ms", 1, NULL, O_TIMEOUT },
		{ "repair-ms", 1, NULL, O_REPAIR },
		{ "pacing-rate", 1, NULL, O_PACING },
		{ "mcast-loop", 0, NULL, O_LOOP },
		{ "key", 1, NULL, O_KEY }, { "key-mode", 1, NULL, O_KEYMODE },
		{ "key-epoch", 1, NULL, O_KEYEPOCH },
		{ "help", 0, NULL, 'h' }, { NULL, 0, NULL, 0 },
	};
	struct gsync_config *c = &o->cfg;
	uint64_t v;
	int ch, n;

	gsync_config_init(c);
	c->group_id = 1;
	o->size = 4096;
	o->iters = 10;
	o->seed = 1;
	o->depth = 4;
	o->key_mode = GSYNC_KEY_ENCRYPT;
	o->key_epoch = 1;
	while ((ch = getopt_long(argc, argv, "r:s:t:o:n:ch", lo, NULL)) != -1) {
		switch (ch) {
		case 'r':
			if (parse_u64(optarg, GSYNC_MAX_RANKS - 1, &v))
				return die_usage("rank", optarg);
			c->rank = (unsigned int)v;
			o->have_rank = 1;
			break;
		case O_MEMBERS:
			n = gsync_addr_parse_list(optarg, o->members, GSYNC_MAX_RANKS);
			if (n < 0)
				return die_usage("member list", optarg);
			c->members = o->members;
			c->nranks = (unsigned int)n;
			break;
		case O_MCAST:
			if (gsync_addr_parse(optarg, &c->mcast))
				return die_usage("multicast address", optarg);
			o->have_mcast = 1;
			break;
		case O_UNICAST: c->flags |= GSYNC_JOIN_UNICAST; break;
		case O_LOOP: c->flags |= GSYNC_JOIN_MCAST_LOOP; break;
		case O_GROUP:
			if (set_u32(optarg, UINT64_MAX, &c->group_id, 64))
				return die_usage("group id", optarg);
			break;
		case 's':
			if (parse_sizes(optarg, o))
				return die_usage("size", optarg);
			break;
		case 't':
			if ((n = gsync_dtype_parse(optarg)) < 0)
				return die_usage("dtype", optarg);
			o->dtype = (unsigned int)n;
			break;
		case 'o':
			if ((n = gsync_op_parse(optarg)) < 0)
				return die_usage("op", optarg);
			o->op = (unsigned int)n;
			break;
		case 'n':
			if (parse_u64(optarg, UINT32_MAX, &o->iters) || !o->iters)
				return die_usage("iteration count", optarg);
			break;
		case 'c': o->check = 1; break;
		case O_DATA:
			if (strcmp(optarg, "small") && strcmp(optarg, "bits"))
				return die_usage("data kind", optarg);
			o->kind = strcmp(optarg, "bits") ? PATTERN_SMALL : PATTERN_BITS;
			break;
		case O_SEED:
			if (parse_u64(optarg, UINT64_MAX, &o->seed))
				return die_usage("seed", optarg);
			break;
		case O_ASYNC: o->async = 1; break;
		case O_AUTOSEQ: o->auto_seq = 1; break;
		case O_URING: o->uring = 1; break;
		case O_DEPTH:
			if (set_u32(optarg, 4096, &o->depth, 32) || !o->depth)
				return die_usage("depth", optarg);
			break;
		case O_IFNAME:
			c->ifindex = if_nametoindex(optarg);
			if (!c->ifindex)
				return die_usage("interface", optarg);
			break;
		case O_TTL: if (set_u32(optarg, 255, &c->ttl, 32)) return die_usage("ttl", optarg); break;
		case O_MTU: if (set_u32(optarg, 65535, &c->mtu, 32)) return die_usage("mtu", optarg); break;
		case O_WINDOW: if (set_u32(optarg, GSYNC_MAX_WINDOW, &c->window, 32)) return die_usage("window", optarg); break;
		case O_TIMEOUT: if (set_u32(optarg, UINT32_MAX, &c->op_timeout_ms, 32)) return die_usage("timeout", optarg); break;
		case O_REPAIR: if (set_u32(optarg, UINT32_MAX, &c->repair_ms, 32)) return die_usage("repair interval", optarg); break;
		case O_PACING: if (set_u32(optarg, UINT64_MAX, &c->pacing_rate, 64)) return die_usage("pacing rate", optarg); break;
		case O_KEY: o->key_file = optarg; break;
		case O_KEYMODE:
			n = gsync_key_mode_parse(optarg);
			if (n != GSYNC_KEY_AUTH && n != GSYNC_KEY_ENCRYPT)
				return die_usage("key mode (auth or encrypt)", optarg);
			o->key_mode = (unsigned int)n;
			break;
		case O_KEYEPOCH:
			if (parse_u64(optarg, UINT32_MAX, &v))
				return die_usage("key epoch", optarg);
			o->key_epoch = (uint32_t)v;
			break;
		case 'h': fputs(usage, stdout); exit(EX_OK);
		default: return EX_USAGE;
		}
	}
	if (optind < argc)
		return die_usage("argument", argv[optind]);
	if (!o->have_rank || !c->members)
		return die_usage("command line", "--rank and --members are required");
	if (!o->have_mcast && !(c->flags & GSYNC_JOIN_UNICAST))
		return die_usage("command line", "one of --mcast or --unicast is required");
	for (n = 0; n < (int)o->nsizes; n++)
		if (o->sizes[n] % gsync_dtype_size(o->dtype))
			return die_usage("size (not a multiple of the element size)", "");
	if (o->size % gsync_dtype_size(o->dtype))
		return die_usage("size (not a multiple of the element size)", "");
	if (o->async && o->uring)
		return die_usage("command line", "--async and --uring exclude each other");
	if (o->auto_seq && !o->async)
		return die_usage("command line", "--auto-seq needs --async");
	if (!o->key_file && (o->key_mode != GSYNC_KEY_ENCRYPT || o->key_epoch != 1))
		return die_usage("command line", "--key-mode and --key-epoch need --key");
	n = gsync_config_validate(c);
	if (n < 0) {
		fprintf(stderr, "allreduce: invalid group configuration: %s\n",
			strerror(-n));
		return EX_USAGE;
	}
	return EX_OK;
}

/* The secret of --key into SECRET: 0, or -errno said on stderr. */
static int read_key(const struct opts *o, uint8_t secret[GSYNC_KEY_LEN])
{
	int rc = gsync_key_file_read(o->key_file, secret);

	if (rc)
		fprintf(stderr, "allreduce: key file %s: %s\n", o->key_file,
			rc == -EACCES ? "group or others may access it (chmod 600 it)" :
			rc == -EINVAL ? "not a regular file holding one key" :
			strerror(-rc));
	return rc;
}

/* GSYNC_JOIN, keyed first with --key. 0 or -errno, said on stderr. */
static int join(const struct opts *o, int fd, const uint8_t *secret)
{
	int rc = o->key_file ?
		 gsync_join_keyed(fd, &o->cfg, (enum gsync_key_mode)o->key_mode,
				  o->key_epoch, secret) :
		 gsync_join(fd, &o->cfg);

	if (rc)
		fprintf(stderr, "allreduce: %s: %s\n", o->key_file ?
			"GSYNC_KEY, GSYNC_JOIN" : "GSYNC_JOIN", gsync_strerror(rc));
	return rc;
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	struct opts o;
	struct gsync_info info;
	struct gsync_stats stats;
	struct run_stats st = { .info_fd = -1 };
	uint8_t secret[GSYNC_KEY_LEN] = { 0 };
	unsigned int window = 0;
	uint64_t seq0 = 1;
	double t0, dt, bytes = 0;
	const char *mode;
	int fd, rc;

	memset(&o, 0, sizeof(o));
	rc = parse_args(argc, argv, &o);
	if (rc)
		return rc;
	if (o.key_file && read_key(&o, secret))
		return EX_SETUP;
	fd = gsync_socket(SOCK_CLOEXEC);
	if (fd < 0) {
		explicit_bzero(secret, sizeof(secret));
		fprintf(stderr, "allreduce: %s\n", gsync_family_error(fd));
		return EX_SETUP;
	}
	rc = join(&o, fd, secret);
	explicit_bzero(secret, sizeof(secret));
	if (rc) {
		close(fd);
		return EX_SETUP;
	}
	/* The first seq is 1 by the ABI; ask anyway, it costs nothing. */
	if (gsync_get_info(fd, &info) == 0) {
		if (info.next_seq)
			seq0 = info.next_seq;
		window = info.window;
	}
	if (o.check)
		st.info_fd = fd;
	if (o.async) {
		struct gsync_ring *ring;

		rc = gsync_ring_init(&ring, fd, o.depth);
		if (rc) {
			fprintf(stderr, "allreduce: io_uring: %s\n", gsync_strerror(rc));
			close(fd);
			return EX_SETUP;
		}
		t0 = now();
		rc = run_async(&o, ring, seq0, &st);
		dt = now() - t0;
		gsync_ring_exit(ring);
		mode = o.auto_seq ? "async-auto-seq" : "async";
	} else if (o.uring) {
		t0 = now();
		rc = run_uring(&o, fd, seq0, window && window < o.depth ? window : o.depth, &st);
		dt = now() - t0;
		mode = "uring";
	} else {
		t0 = now();
		rc = run_blocking(&o, fd, seq0, &st);
		dt = now() - t0;
		mode = "blocking";
	}
	memset(&stats, 0, sizeof(stats));
	gsync_get_stats(fd, &stats);
	close(fd);
	for (uint64_t it = 0; it < o.iters; it++)
		bytes += (double)op_size(&o, it);
	printf("allreduce: rank=%u nranks=%u dtype=%s op=%s bytes=%zu iters=%llu "
	       "mode=%s time_s=%.6f per_op_us=%.1f algbw_MBps=%.2f check=%s "
	       "result=%s ops=%llu inflight_max=%u kernel_inflight_max=%u "
	       "refused=%llu stats_completed=%llu stats_failed=%llu "
	       "retransmits=%llu tx_packets=%llu\n",
	       o.cfg.rank, o.cfg.nranks, gsync_dtype_name(o.dtype),
	       gsync_op_name(o.op), o.size, (unsigned long long)o.iters,
	       mode, dt, dt * 1e6 / (double)o.iters,
	       dt > 0 ? bytes / dt / 1e6 : 0.0, o.check ? "yes" : "no",
	       rc == EX_OK ? "ok" : rc == EX_MISMATCH ? "mismatch" :
	       rc == EX_OPFAIL ? "failed" : "error",
	       (unsigned long long)st.ops, st.inflight_max, st.kernel_inflight_max,
	       (unsigned long long)st.refused,
	       (unsigned long long)stats.ops_completed,
	       (unsigned long long)stats.ops_failed,
	       (unsigned long long)stats.retransmits,
	       (unsigned long long)stats.tx_packets);
	return rc;
}
