// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * backend_xrt.cc - the `xrt` backend: drives the gsync_reduce kernel on an
 * XRT-managed card through XRT's native C++ API (Debian libxrt 2.13).
 *
 * Buffers:
 *  - The shared region is wrapped as ONE buffer object and passed as both
 *    `src` and `dst`; descriptors carry offsets into it.  First choice is a
 *    userptr BO over the region itself (no host-side copy: XRT DMAs straight
 *    from/to the agent's mapping on sync).  XRT refuses userptr when the
 *    region is not page aligned (and some platforms refuse it outright);
 *    then a device BO of the same size is allocated and the touched spans
 *    are memcpy'd in and out around each batch ("copy mode",
 *    stats.zero_copy == 0, stats.bytes_copied counts it).
 *  - Only the spans a batch reads are synced to the card and only the spans
 *    it writes are synced back, never the whole region.
 *  - Descriptors live in their own small BO (bank of argument `desc`).
 *
 * Nothing here has run on real hardware; under XCL_EMULATION_MODE=noop XRT
 * performs the whole API sequence but computes nothing.  See
 * docs/offload-hardware.md.
 */
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <memory>
#include <string>

#include <xrt/xrt_bo.h>
#include <xrt/xrt_device.h>
#include <xrt/xrt_kernel.h>
#include <ert.h>

#include "backend_impl.h"
#include "../../xrt_kernels/hls/gsync_reduce_hw.h"

namespace {

struct XrtState {
	xrt::device dev;
	xrt::uuid uuid;
	xrt::kernel kernel;
	xrt::bo desc_bo;
	uint64_t *desc_map = nullptr;
	xrt::bo region_bo;
	uint8_t *region_map = nullptr;   // == be->base in zero-copy mode
	bool zero_copy = false;
	bool force_copy = false;
	unsigned timeout_ms = 10000;
};

XrtState *state(gsync_offload_backend *be)
{
	return static_cast<XrtState *>(be->priv);
}

// XRT reports everything by exception; turn the common ones into advice.
std::string explain(const std::exception &e)
{
	std::string m = e.what();

	if (m.find("XILINX_XRT") != std::string::npos)
		m += " (set XILINX_XRT to a directory whose lib/ links to XRT's "
		     "library directory, e.g. /usr/lib/x86_64-linux-gnu on Debian)";
	else if (m.find("Could not open device") != std::string::npos)
		m += " (no XRT-managed card found; for API tests without a card "
		     "set XCL_EMULATION_MODE=noop)";
	return m;
}

int xrt_open(gsync_offload_backend *be, const gsync_offload_cfg *cfg)
{
	if (!cfg->xclbin || !*cfg->xclbin) {
		gsync_offload_set_error(be, "no xclbin given");
		return -EINVAL;
	}
	auto st = std::make_unique<XrtState>();
	const char *step = "open device";

	st->force_copy = cfg->force_copy != 0;
	if (cfg->timeout_ms)
		st->timeout_ms = cfg->timeout_ms;
	try {
		st->dev = xrt::device(cfg->device_index);
		step = "load xclbin";
		st->uuid = st->dev.load_xclbin(std::string(cfg->xclbin));
		step = "open kernel " GSYNC_HW_KERNEL_NAME;
		st->kernel = xrt::kernel(st->dev, st->uuid, GSYNC_HW_KERNEL_NAME);
		step = "allocate descriptor buffer";
		st->desc_bo = xrt::bo(st->dev,
				      GSYNC_OFFLOAD_MAX_BATCH * GSYNC_HW_DESC_BYTES,
				      xrt::bo::flags::normal,
				      st->kernel.group_id(GSYNC_HW_ARG_DESC));
		st->desc_map = st->desc_bo.map<uint64_t *>();
	} catch (const std::exception &e) {
		gsync_offload_set_error(be, "cannot %s (device %u, xclbin %s): %s",
					step, cfg->device_index, cfg->xclbin,
					explain(e).c_str());
		return -ENODEV;
	}
	be->priv = st.release();
	return 0;
}

int xrt_map_region(gsync_offload_backend *be)
{
	XrtState *st = state(be);
	auto grp = st->kernel.group_id(GSYNC_HW_ARG_SRC);

	st->region_bo = xrt::bo();
	st->zero_copy = false;
	if (!st->force_copy) {
		try {
			st->region_bo = xrt::bo(st->dev, be->base, be->len,
						xrt::bo::flags::normal, grp);
			st->region_map = static_cast<uint8_t *>(be->base);
			st->zero_copy = true;
		} catch (const std::exception &) {
			// fall through to copy mode
		}
	}
	if (!st->zero_copy) {
		try {
			st->region_bo = xrt::bo(st->dev, be->len,
						xrt::bo::flags::normal, grp);
			st->region_map = st->region_bo.map<uint8_t *>();
		} catch (const std::exception &e) {
			gsync_offload_set_error(be, "cannot allocate a %zu-byte region BO: %s",
						be->len, explain(e).c_str());
			return -ENOMEM;
		}
	}
	be->stats.zero_copy = st->zero_copy;
	return 0;
}

int xrt_exec(gsync_offload_backend *be, const uint64_t *desc, uint32_t ndesc,
	     const gsync_offload_span *ins, size_t nins,
	     const gsync_offload_span *outs, size_t nouts)
{
	XrtState *st = state(be);
	auto *host = static_cast<uint8_t *>(be->base);
	const char *step = "sync inputs";

	try {
		for (size_t i = 0; i < nins; i++) {
			if (!st->zero_copy) {
				std::memcpy(st->region_map + ins[i].off,
					    host + ins[i].off, ins[i].len);
				be->stats.bytes_copied += ins[i].len;
			}
			st->region_bo.sync(XCL_BO_SYNC_BO_TO_DEVICE, ins[i].len, ins[i].off);
			be->stats.bytes_to_dev += ins[i].len;
		}
		// Odd 16-bit tails are merged in the card's copy of the output's
		// last word, so that word must be current on the card too.
		for (size_t i = 0; i < nouts; i++) {
			size_t last = outs[i].off + outs[i].len - 4;

			if (!st->zero_copy) {
				std::memcpy(st->region_map + last, host + last, 4);
				be->stats.bytes_copied += 4;
			}
			st->region_bo.sync(XCL_BO_SYNC_BO_TO_DEVICE, 4, last);
			be->stats.bytes_to_dev += 4;
		}
		step = "write descriptors";
		size_t dbytes = (size_t)ndesc * GSYNC_HW_DESC_BYTES;
		std::memcpy(st->desc_map, desc, dbytes);
		st->desc_bo.sync(XCL_BO_SYNC_BO_TO_DEVICE, dbytes, 0);
		be->stats.bytes_to_dev += dbytes;

		step = "start kernel";
		xrt::run run(st->kernel);
		run.set_arg(GSYNC_HW_ARG_SRC, st->region_bo);
		run.set_arg(GSYNC_HW_ARG_DST, st->region_bo);
		run.set_arg(GSYNC_HW_ARG_DESC, st->desc_bo);
		run.set_arg(GSYNC_HW_ARG_NJOBS, ndesc);
		run.start();
		be->stats.last_src = be->stats.last_dst = st->region_bo.address();
		be->stats.last_desc = st->desc_bo.address();
		// Keep the register image XRT built from the xclbin metadata: it
		// is what the card's s_axilite block receives (payload word 0 is
		// the CU mask, then the register map from offset 0).
		if (const ert_packet *pkt = run.get_ert_packet()) {
			for (unsigned w = 0; w < 16 && w + 1 < pkt->count; w++)
				be->stats.last_regs[w] = pkt->data[1 + w];
		}
		step = "wait for kernel";
		auto s = run.wait(std::chrono::milliseconds(st->timeout_ms));
		if (s != ERT_CMD_STATE_COMPLETED) {
			gsync_offload_set_error(be, "kernel did not complete (state %d)", (int)s);
			return -ETIMEDOUT;
		}
		step = "sync outputs";
		for (size_t i = 0; i < nouts; i++) {
			st->region_bo.sync(XCL_BO_SYNC_BO_FROM_DEVICE, outs[i].len, outs[i].off);
			be->stats.bytes_from_dev += outs[i].len;
			if (!st->zero_copy) {
				std::memcpy(host + outs[i].off, st->region_map + outs[i].off,
					    outs[i].len);
				be->stats.bytes_copied += outs[i].len;
			}
		}
	} catch (const std::exception &e) {
		gsync_offload_set_error(be, "%s: %s", step, explain(e).c_str());
		return -EIO;
	}
	return 0;
}

void xrt_close(gsync_offload_backend *be)
{
	delete state(be);
	be->priv = nullptr;
}

} // namespace

extern "C" const gsync_offload_ops gsync_offload_xrt_ops = {
	"xrt", xrt_open, xrt_map_region, xrt_exec, xrt_close,
};
