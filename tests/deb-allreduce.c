// SPDX-License-Identifier: GPL-2.0
/*
 * The smallest libgsync client, built by tests/deb-root against the
 * installed libgsync-dev (pkg-config gsync) and run by tests/deb-vm against
 * the module DKMS built: one fp32 sum all-reduce in unicast fan-out, with
 * the result checked element by element.
 *
 *   gsync-deb-allreduce RANK MEMBERS
 *
 * MEMBERS is "addr:port,addr:port,..." of every rank in rank order. Rank r
 * contributes (r + 1) * (i % 7 + 1) at element i; every rank must end with
 * the sum of that over the ranks. Exit 0 and one line "ok ..." on success.
 */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include <gsync.h>

#define MAX_RANKS 16
#define ELEMS 4096

int main(int argc, char **argv)
{
	struct gsync_addr members[MAX_RANKS];
	struct gsync_config cfg;
	static float buf[ELEMS];
	unsigned int rank, i;
	int fd, n, rc, status = 0;
	float want;

	if (argc != 3) {
		fprintf(stderr, "usage: gsync-deb-allreduce RANK MEMBERS\n");
		return 2;
	}
	rank = (unsigned int)strtoul(argv[1], NULL, 10);
	n = gsync_addr_parse_list(argv[2], members, MAX_RANKS);
	if (n < 2 || rank >= (unsigned int)n) {
		fprintf(stderr, "gsync-deb-allreduce: bad rank or members (%d)\n", n);
		return 2;
	}
	fd = gsync_socket(0);
	if (fd < 0) {
		fprintf(stderr, "gsync-deb-allreduce: %s\n", gsync_family_error(fd));
		return 4;
	}
	gsync_config_init(&cfg);
	cfg.group_id = 13;
	cfg.rank = rank;
	cfg.nranks = (unsigned int)n;
	cfg.members = members;
	cfg.flags = GSYNC_JOIN_UNICAST;
	cfg.op_timeout_ms = 30000;
	rc = gsync_join(fd, &cfg);
	if (rc) {
		fprintf(stderr, "gsync-deb-allreduce: join: %s\n", gsync_strerror(rc));
		return 4;
	}
	for (i = 0; i < ELEMS; i++)
		buf[i] = (float)((rank + 1) * (i % 7 + 1));
	rc = gsync_allreduce(fd, 1, buf, buf, sizeof(buf), GSYNC_DTYPE_FP32,
			     GSYNC_OP_SUM, &status);
	if (rc || status) {
		fprintf(stderr, "gsync-deb-allreduce: all-reduce: %s\n",
			gsync_strerror(rc ? rc : status));
		return 3;
	}
	for (i = 0; i < ELEMS; i++) {
		want = (float)((unsigned int)n * (n + 1) / 2 * (i % 7 + 1));
		if (buf[i] != want) {
			fprintf(stderr, "gsync-deb-allreduce: element %u is %g, want %g\n",
				i, buf[i], want);
			return 1;
		}
	}
	printf("ok rank %u of %d: %d fp32 elements summed on family %d\n",
	       rank, n, ELEMS, gsync_family());
	close(fd);
	return 0;
}
