// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Family discovery (fixture files), names and error texts, and the blocking
 * calls' plumbing against an AF_UNIX SOCK_SEQPACKET socketpair standing in
 * for the kernel socket. AF_UNIX drops SOL_GSYNC control messages, so a
 * reply never carries a result: that exercises the "no result" paths.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "gsync.h"
#include "tap.h"

static char dir[] = "/tmp/libgsync-test-XXXXXX";

static int family_of(const char *content, size_t len)
{
	char path[256];
	FILE *f;

	snprintf(path, sizeof(path), "%s/family", dir);
	f = fopen(path, "w");
	fwrite(content, 1, len, f);
	fclose(f);
	return gsync_family_at(path);
}

static void test_family(void)
{
	char path[256];

	ok(family_of("25\n", 3) == 25, "family file \"25\\n\" gives 25");
	ok(family_of("13", 2) == 13, "family file without newline gives 13");
	ok(family_of("", 0) == -EINVAL, "empty family file is -EINVAL");
	ok(family_of("\n", 1) == -EINVAL, "a lone newline is -EINVAL");
	ok(family_of("x5\n", 3) == -EINVAL, "garbage is -EINVAL");
	ok(family_of("-5\n", 3) == -EINVAL, "a negative number is -EINVAL");
	ok(family_of("0\n", 2) == -EINVAL, "0 is -EINVAL");
	ok(family_of("25\n\n", 4) == -EINVAL, "trailing junk is -EINVAL");
	ok(family_of("99999999999999999999\n", 21) == -EINVAL, "a huge number is -EINVAL");
	ok(family_of("2 5\n", 4) == -EINVAL, "embedded blank is -EINVAL");
	snprintf(path, sizeof(path), "%s/missing", dir);
	ok(gsync_family_at(path) == -ENOENT, "a missing file is -ENOENT");
	ok(strstr(gsync_family_error(-ENOENT), "not loaded") != NULL,
	   "gsync_family_error(-ENOENT) says the module is not loaded");
	ok(gsync_family_at(NULL) == -EINVAL, "NULL path is -EINVAL");
	if (gsync_family() == -ENOENT)
		ok(gsync_socket(0) == -ENOENT, "gsync_socket without the module is -ENOENT");
	else
		skip("gsync_socket without the module # SKIP gsync is loaded here");
	ok(gsync_socket(0x40000000) == -EINVAL, "gsync_socket with unknown flags is -EINVAL");
}

static void test_names(void)
{
	unsigned int i;
	int good = 1;

	for (i = 0; i < GSYNC_DTYPE_MAX; i++)
		good &= gsync_dtype_parse(gsync_dtype_name(i)) == (int)i;
	for (i = 0; i < GSYNC_REDOP_MAX; i++)
		good &= gsync_op_parse(gsync_op_name(i)) == (int)i;
	ok(good, "dtype and op names round-trip");
	ok(gsync_dtype_parse("FP32") == -EINVAL && gsync_op_parse("") == -EINVAL &&
	   gsync_op_parse(NULL) == -EINVAL, "unknown names are -EINVAL");
	ok(strcmp(gsync_dtype_name(99), "?") == 0 && strcmp(gsync_op_name(99), "?") == 0 &&
	   strcmp(gsync_drop_reason_name(GSYNC_DROP_MAX), "?") == 0,
	   "out-of-range codes are named \"?\"");
	ok(gsync_dtype_size(GSYNC_DTYPE_FP32) == 4 && gsync_dtype_size(GSYNC_DTYPE_BF16) == 2 &&
	   gsync_dtype_size(GSYNC_DTYPE_FP16) == 2 && gsync_dtype_size(GSYNC_DTYPE_INT32) == 4 &&
	   gsync_dtype_size(GSYNC_DTYPE_MAX) == 0, "element sizes");
	ok(strcmp(gsync_drop_reason_name(GSYNC_DROP_SHORT), "short") == 0 &&
	   strcmp(gsync_drop_reason_name(GSYNC_DROP_NOMEM), "nomem") == 0,
	   "drop reason names match the drop_* columns");
	ok(strstr(gsync_strerror(ETIMEDOUT), "op_timeout_ms") &&
	   strstr(gsync_strerror(-EPROTO), "disagreed") &&
	   strstr(gsync_strerror(ECONNABORTED), "aborted"),
	   "op statuses have all-reduce specific texts (positive or negative)");
	ok(strcmp(gsync_strerror(-ENOMEM), strerror(ENOMEM)) == 0 &&
	   gsync_strerror(123456) != NULL, "other codes fall back to strerror");
}

static void test_blocking(void)
{
	int sv[2], status = -1, rc;
	uint32_t data[8] = { 1, 2, 3, 4, 5, 6, 7, 8 }, got[8];
	struct gsync_op_result res;
	struct gsync_info info;
	struct gsync_stats st;
	uint64_t rate;
	ssize_t n;

	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv)) {
		ok(0, "socketpair: %s", strerror(errno));
		return;
	}
	ok(gsync_send_op(sv[0], 1, data, sizeof(data), GSYNC_DTYPE_INT32,
			 GSYNC_OP_SUM, 0) == 0, "send_op over a SEQPACKET stand-in");
	n = recv(sv[1], got, sizeof(got), 0);
	ok(n == (ssize_t)sizeof(data) && memcmp(got, data, sizeof(data)) == 0,
	   "the peer receives the contribution as one message");
	ok(gsync_send_op(sv[0], 1, data, 6, GSYNC_DTYPE_INT32, GSYNC_OP_SUM, 0) == -EINVAL,
	   "a length not a multiple of the element size is -EINVAL");
	ok(gsync_send_op(sv[0], 1, data, 0, GSYNC_DTYPE_INT32, GSYNC_OP_SUM, 0) == -EINVAL,
	   "length 0 is -EINVAL");
	ok(gsync_send_op(sv[0], 0, data, 4, GSYNC_DTYPE_INT32, GSYNC_OP_SUM, 0) == -EINVAL,
	   "seq 0 is -EINVAL");
	ok(gsync_send_op(sv[0], 1, data, 4, 9, GSYNC_OP_SUM, 0) == -EINVAL,
	   "an unknown dtype is -EINVAL");
	ok(recv(sv[1], got, sizeof(got), MSG_DONTWAIT) < 0 && errno == EAGAIN,
	   "rejected calls sent nothing");

	ok(gsync_recv_result(sv[0], got, sizeof(got), &res, MSG_DONTWAIT) == -EAGAIN,
	   "recv_result with MSG_DONTWAIT and nothing queued is -EAGAIN");
	send(sv[1], data, sizeof(data), 0);
	ok(gsync_recv_result(sv[0], got, sizeof(got), &res, 0) == -ENOMSG,
	   "a message without GSYNC_CMSG_RESULT is -ENOMSG");

	send(sv[1], data, sizeof(data), 0);
	rc = gsync_allreduce(sv[0], 5, data, got, sizeof(data), GSYNC_DTYPE_FP32,
			     GSYNC_OP_AVG, &status);
	ok(rc == -ENOMSG && status == ENOMSG,
	   "allreduce reports a result-less reply as -ENOMSG, status ENOMSG");
	recv(sv[1], got, sizeof(got), 0);	/* the contribution it sent */
	status = -1;
	rc = gsync_allreduce(sv[0], 6, data, NULL, sizeof(data), GSYNC_DTYPE_FP32,
			     GSYNC_OP_SUM, &status);
	ok(rc == -EINVAL && status == EINVAL &&
	   recv(sv[1], got, sizeof(got), MSG_DONTWAIT) < 0,
	   "allreduce with recvbuf NULL fails before sending");

	ok(gsync_get_info(sv[0], &info) < 0 && gsync_get_stats(sv[0], &st) < 0 &&
	   gsync_get_pacing_rate(sv[0], &rate) < 0 && gsync_set_pacing_rate(sv[0], 1) < 0,
	   "SOL_GSYNC options on a non-gsync socket fail with -errno");
	ok(gsync_get_info(sv[0], NULL) == -EINVAL, "gsync_get_info(NULL) is -EINVAL");
	close(sv[1]);
	ok(gsync_send_op(sv[0], 1, data, sizeof(data), GSYNC_DTYPE_INT32,
			 GSYNC_OP_SUM, 0) == -EPIPE,
	   "send to a closed peer is -EPIPE (no SIGPIPE)");
	close(sv[0]);
}

int main(void)
{
	char cmd[300];

	if (!mkdtemp(dir)) {
		ok(0, "mkdtemp");
		return 1;
	}
	test_family();
	test_names();
	test_blocking();
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	if (system(cmd))
		diag("could not remove %s", dir);
	return tap_done();
}
