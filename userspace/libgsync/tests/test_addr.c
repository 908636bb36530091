// SPDX-License-Identifier: GPL-2.0 OR MIT
/* Endpoint parsing and formatting: round trips and garbage input. */
#include <arpa/inet.h>
#include <errno.h>
#include <string.h>

#include "gsync.h"
#include "tap.h"

static void good(const char *in, const char *want_fmt, int fam, unsigned port)
{
	struct gsync_addr a;
	char buf[GSYNC_ADDRSTRLEN];
	int rc = gsync_addr_parse(in, &a);
	int n = rc ? -1 : gsync_addr_format(&a, buf, sizeof(buf));

	ok(rc == 0 && a.family == fam && ntohs(a.port) == port && n > 0 &&
	   strcmp(buf, want_fmt) == 0,
	   "parse '%s' -> family %d port %u, formats as '%s'", in, fam, port,
	   want_fmt);
}

static void bad(const char *in, int want)
{
	struct gsync_addr a;
	static const struct gsync_addr zero;
	char shown[41];
	size_t i;
	int rc;

	/* Keep the TAP line printable ASCII: harnesses grep it as text. */
	for (i = 0; in && in[i] && i < sizeof(shown) - 1; i++)
		shown[i] = in[i] >= 0x20 && in[i] < 0x7f ? in[i] : '?';
	shown[i] = '\0';

	memset(&a, 0xa5, sizeof(a));
	rc = gsync_addr_parse(in, &a);
	ok(rc == want && memcmp(&a, &zero, sizeof(a)) == 0,
	   "reject '%s' with %s, output zeroed (got %d)", in ? shown : "(null)",
	   strerror(-want), rc);
}

int main(void)
{
	struct gsync_addr a, list[4];
	char buf[GSYNC_ADDRSTRLEN], tiny[8];
	char longs[300];

	good("198.18.0.1:7000", "198.18.0.1:7000", AF_INET, 7000);
	good("239.1.2.3:1", "239.1.2.3:1", AF_INET, 1);
	good("10.0.0.1:65535", "10.0.0.1:65535", AF_INET, 65535);
	good("[2001:2::1]:7000", "[2001:2::1]:7000", AF_INET6, 7000);
	good("[2001:0002:0:0::0001]:7000", "[2001:2::1]:7000", AF_INET6, 7000);
	good("[ff02::1:2]:9", "[ff02::1:2]:9", AF_INET6, 9);
	good("[fe80::1%7]:7000", "[fe80::1%7]:7000", AF_INET6, 7000);
	good("[::ffff:198.18.0.1]:80", "[::ffff:198.18.0.1]:80", AF_INET6, 80);
	good("[fe80::1%lo]:7000", "[fe80::1%1]:7000", AF_INET6, 7000);

	bad(NULL, -EINVAL);
	bad("", -EINVAL);
	bad("198.18.0.1", -EINVAL);
	bad("198.18.0.1:", -EINVAL);
	bad("198.18.0.1:0", -EINVAL);
	bad("198.18.0.1:65536", -EINVAL);
	bad("198.18.0.1:99999999999999999999", -EINVAL);
	bad("198.18.0.1:-1", -EINVAL);
	bad("198.18.0.1:+80", -EINVAL);
	bad("198.18.0.1:80 ", -EINVAL);
	bad(" 198.18.0.1:80", -EINVAL);
	bad("198.18.1:80", -EINVAL);
	bad("198.18.0.256:80", -EINVAL);
	bad("localhost:80", -EINVAL);
	bad("2001:2::1:7000", -EINVAL);
	bad("[2001:2::1]", -EINVAL);
	bad("[2001:2::1]7000", -EINVAL);
	bad("[2001:2::1]:", -EINVAL);
	bad("[2001:2::1:7000", -EINVAL);
	bad("[]:7000", -EINVAL);
	bad("[198.18.0.1]:7000", -EINVAL);
	bad("[2001:2::1]]:7000", -EINVAL);
	bad("[2001:2::1]:70:00", -EINVAL);
	bad("[fe80::1%]:7000", -EINVAL);
	bad("[fe80::1%no-such-if0]:7000", -ENODEV);
	bad("[fe80::1%waytoolonginterfacename]:7000", -EINVAL);
	bad("198.18.0.1%1:7000", -EINVAL);
	bad("\xff\xfe:1", -EINVAL);
	memset(longs, '1', sizeof(longs) - 1);
	longs[sizeof(longs) - 1] = '\0';
	bad(longs, -EINVAL);

	ok(gsync_addr_parse_list("198.18.0.1:7000,198.18.0.2:7000,[2001:2::3]:7000",
				 list, 4) == 3 && list[2].family == AF_INET6,
	   "parse a list of three endpoints");
	ok(gsync_addr_parse_list("198.18.0.1:7000", list, 4) == 1,
	   "parse a list of one endpoint");
	ok(gsync_addr_parse_list("a:1,b:2,c:3,d:4,e:5", list, 4) == -EINVAL,
	   "a list with a bad entry is -EINVAL");
	ok(gsync_addr_parse_list("1.1.1.1:1,1.1.1.2:1,1.1.1.3:1,1.1.1.4:1,1.1.1.5:1",
				 list, 4) == -E2BIG, "too many entries is -E2BIG");
	ok(gsync_addr_parse_list("", list, 4) == -EINVAL, "empty list is -EINVAL");
	ok(gsync_addr_parse_list("1.1.1.1:1,", list, 4) == -EINVAL,
	   "trailing comma is -EINVAL");
	ok(gsync_addr_parse_list(",1.1.1.1:1", list, 4) == -EINVAL,
	   "leading comma is -EINVAL");
	ok(gsync_addr_parse_list("1.1.1.1:1,,1.1.1.2:1", list, 4) == -EINVAL,
	   "empty entry is -EINVAL");

	gsync_addr_parse("[2001:2::1234:5678:9abc:def0]:65535", &a);
	a.scope_id = 4294967295u;
	ok(gsync_addr_format(&a, buf, sizeof(buf)) > 0,
	   "longest IPv6 endpoint with scope fits GSYNC_ADDRSTRLEN ('%s')", buf);
	ok(gsync_addr_format(&a, tiny, sizeof(tiny)) == -ENOSPC && tiny[0] == '\0',
	   "formatting into a too small buffer is -ENOSPC and leaves an empty string");
	a.family = 1;
	ok(gsync_addr_format(&a, buf, sizeof(buf)) == -EINVAL,
	   "formatting an unknown family is -EINVAL");
	ok(gsync_addr_format(NULL, buf, sizeof(buf)) == -EINVAL,
	   "formatting NULL is -EINVAL");

	gsync_addr_parse("239.255.0.1:1", &a);
	ok(gsync_addr_is_multicast(&a) == 1, "239.255.0.1 is multicast");
	gsync_addr_parse("223.255.255.255:1", &a);
	ok(gsync_addr_is_multicast(&a) == 0, "223.255.255.255 is not multicast");
	gsync_addr_parse("[ff05::1]:1", &a);
	ok(gsync_addr_is_multicast(&a) == 1, "ff05::1 is multicast");
	gsync_addr_parse("[fe80::1]:1", &a);
	ok(gsync_addr_is_multicast(&a) == 0, "fe80::1 is not multicast");
	return tap_done();
}
