// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * mkxclbin.c - write a metadata-only xclbin for the gsync_reduce kernel.
 *
 * Why this exists: Debian's xclbinutil (libxrt-utils 2.13) is a wrapper that
 * execs /usr/bin/unwrapped/xclbinutil, which is not shipped, so it cannot
 * build even a trivial xclbin.  XRT's noop emulation (XCL_EMULATION_MODE=
 * noop) still needs an xclbin to create a kernel object, so we assemble one
 * from the structures in <xrt/xclbin.h>:
 *   MEM_TOPOLOGY      one DDR bank "bank0"
 *   IP_LAYOUT         one IP_KERNEL "gsync_reduce:gsync_reduce_1"
 *   CONNECTIVITY      args 0..2 (the m_axi pointers) -> bank0
 *   EMBEDDED_METADATA the kernel XML given on the command line (arg names,
 *                     ids, s_axilite offsets)
 * There is no BITSTREAM: the file cannot program a card; it only describes
 * the kernel's interface to XRT.
 *
 * usage: mkxclbin METADATA.xml OUT.xclbin
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <xclbin.h>

#define KERNEL_CU   "gsync_reduce:gsync_reduce_1"
#define CU_BASE     0x1800000ull    /* must match addrRemap in the XML */
#define N_MEM_ARGS  3               /* src, dst, desc */
#define N_SECTIONS  4

static void *xcalloc(size_t n)
{
	void *p = calloc(1, n);

	if (!p) {
		perror("mkxclbin: calloc");
		exit(1);
	}
	return p;
}

static char *read_file(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	char *buf;
	long sz;

	if (!f || fseek(f, 0, SEEK_END) || (sz = ftell(f)) < 0 ||
	    fseek(f, 0, SEEK_SET)) {
		fprintf(stderr, "mkxclbin: %s: %s\n", path, strerror(errno));
		exit(1);
	}
	buf = xcalloc((size_t)sz + 1);
	if (fread(buf, 1, (size_t)sz, f) != (size_t)sz) {
		fprintf(stderr, "mkxclbin: short read on %s\n", path);
		exit(1);
	}
	fclose(f);
	*len = (size_t)sz + 1;  /* keep the NUL: XRT treats it as a C string */
	return buf;
}

/* FNV-1a: a deterministic xclbin UUID derived from the metadata, so the
 * same kernel interface always yields the same file. */
static void make_uuid(const char *data, size_t len, unsigned char out[16])
{
	uint64_t h1 = 0xcbf29ce484222325ull, h2 = 0x84222325cbf29ce4ull;
	size_t i;

	for (i = 0; i < len; i++) {
		h1 = (h1 ^ (unsigned char)data[i]) * 0x100000001b3ull;
		h2 = (h2 ^ (unsigned char)data[len - 1 - i]) * 0x100000001b3ull;
	}
	memcpy(out, &h1, 8);
	memcpy(out + 8, &h2, 8);
	out[6] = (out[6] & 0x0f) | 0x40;        /* RFC 4122 version 4 shape */
	out[8] = (out[8] & 0x3f) | 0x80;
}

struct blob { void *data; size_t size; uint32_t kind; const char *name; };

int main(int argc, char **argv)
{
	struct blob sec[N_SECTIONS];
	struct mem_topology *mem;
	struct ip_layout *ip;
	struct connectivity *con;
	size_t xml_len, hdr_size, off, total, memsz, ipsz, consz;
	struct axlf *top;
	char *xml, *file;
	FILE *out;
	int i;

	if (argc != 3) {
		fprintf(stderr, "usage: %s METADATA.xml OUT.xclbin\n", argv[0]);
		return 2;
	}
	xml = read_file(argv[1], &xml_len);

	memsz = sizeof(struct mem_topology);            /* holds one mem_data */
	mem = xcalloc(memsz);
	mem->m_count = 1;
	mem->m_mem_data[0].m_type = MEM_DDR4;
	mem->m_mem_data[0].m_used = 1;
	mem->m_mem_data[0].m_size = 16ull * 1024 * 1024;        /* KiB: 16 GiB */
	mem->m_mem_data[0].m_base_address = 0;
	strcpy((char *)mem->m_mem_data[0].m_tag, "bank0");

	ipsz = sizeof(struct ip_layout);                /* holds one ip_data */
	ip = xcalloc(ipsz);
	ip->m_count = 1;
	ip->m_ip_data[0].m_type = IP_KERNEL;
	/* interrupt enabled, interrupt id 0, ap_ctrl_chain handshake */
	ip->m_ip_data[0].properties = IP_INT_ENABLE_MASK |
				      ((uint32_t)AP_CTRL_CHAIN << IP_CONTROL_SHIFT);
	ip->m_ip_data[0].m_base_address = CU_BASE;
	strcpy((char *)ip->m_ip_data[0].m_name, KERNEL_CU);

	consz = sizeof(struct connectivity) +
		(N_MEM_ARGS - 1) * sizeof(struct connection);
	con = xcalloc(consz);
	con->m_count = N_MEM_ARGS;
	for (i = 0; i < N_MEM_ARGS; i++) {
		con->m_connection[i].arg_index = i;
		con->m_connection[i].m_ip_layout_index = 0;
		con->m_connection[i].mem_data_index = 0;
	}

	sec[0] = (struct blob){ mem, memsz, MEM_TOPOLOGY, "mem_topology" };
	sec[1] = (struct blob){ ip, ipsz, IP_LAYOUT, "ip_layout" };
	sec[2] = (struct blob){ con, consz, CONNECTIVITY, "connectivity" };
	sec[3] = (struct blob){ xml, xml_len, EMBEDDED_METADATA, "metadata" };

	/* struct axlf already contains the first section header */
	hdr_size = sizeof(struct axlf) +
		   (N_SECTIONS - 1) * sizeof(struct axlf_section_header);
	total = (hdr_size + 7) & ~(size_t)7;
	for (i = 0; i < N_SECTIONS; i++)
		total += (sec[i].size + 7) & ~(size_t)7;
	file = xcalloc(total);
	top = (struct axlf *)file;

	memcpy(top->m_magic, "xclbin2", 8);
	top->m_signature_length = -1;
	memset(top->reserved, 0xff, sizeof(top->reserved));
	memset(top->m_keyBlock, 0xff, sizeof(top->m_keyBlock));
	top->m_header.m_length = total;
	top->m_header.m_versionMajor = 2;
	top->m_header.m_versionMinor = 13;
	top->m_header.m_mode = XCLBIN_FLAT;
	strcpy((char *)top->m_header.m_platformVBNV, "gsync:metadata_only:none:1.0");
	make_uuid(xml, xml_len, (unsigned char *)&top->m_header.uuid);
	top->m_header.m_numSections = N_SECTIONS;

	off = (hdr_size + 7) & ~(size_t)7;
	for (i = 0; i < N_SECTIONS; i++) {
		struct axlf_section_header *sh = &top->m_sections[i];

		sh->m_sectionKind = sec[i].kind;
		strncpy(sh->m_sectionName, sec[i].name, sizeof(sh->m_sectionName) - 1);
		sh->m_sectionOffset = off;
		sh->m_sectionSize = sec[i].size;
		memcpy(file + off, sec[i].data, sec[i].size);
		off += (sec[i].size + 7) & ~(size_t)7;
	}

	out = fopen(argv[2], "wb");
	if (!out || fwrite(file, 1, total, out) != total || fclose(out)) {
		fprintf(stderr, "mkxclbin: cannot write %s: %s\n", argv[2], strerror(errno));
		return 1;
	}
	for (i = 0; i < N_SECTIONS; i++)
		free(sec[i].data);
	free(file);
	return 0;
}
