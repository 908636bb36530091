/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Userspace stand-ins for the few kernel interfaces kmod/reduce_cpu*.c use,
 * so the benchmark and the host test compile those files unchanged. Every
 * <linux/...> or <asm/...> header they include is a file in this directory
 * that includes this one.
 */
#ifndef GSYNC_SHIM_H
#define GSYNC_SHIM_H

#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define CONFIG_X86_64 1

typedef uint8_t u8;
typedef uint16_t u16;
typedef uint32_t u32;
typedef uint64_t u64;
typedef int32_t s32;
typedef int64_t s64;

struct list_head {
	struct list_head *next, *prev;
};

#ifndef __always_inline
#define __always_inline inline __attribute__((always_inline))
#endif
#define noinline __attribute__((noinline))
#define __aligned(x) __attribute__((aligned(x)))

static inline void cond_resched(void)
{
}

static inline s64 div_s64(s64 dividend, s32 divisor)
{
	return dividend / divisor;
}

/* CPU features: GCC's run-time detection also checks the OS (XCR0). */
#define X86_FEATURE_XMM2 "sse2"
#define X86_FEATURE_AVX "avx"
#define X86_FEATURE_AVX2 "avx2"
#define X86_FEATURE_F16C "f16c"
#define boot_cpu_has(feature) __builtin_cpu_supports(feature)
#define XFEATURE_MASK_SSE 2
#define XFEATURE_MASK_YMM 4

static inline int cpu_has_xfeatures(u64 mask, const char **name)
{
	return 1;
}

static inline bool irq_fpu_usable(void)
{
	return true;
}

/* As the kernel does: the default MXCSR (RNE, no FTZ/DAZ, all masked). */
static inline void kernel_fpu_begin(void)
{
	unsigned int mxcsr = 0x1f80;

	__asm__ volatile("ldmxcsr %0" : : "m"(mxcsr));
}

static inline void kernel_fpu_end(void)
{
}

#endif /* GSYNC_SHIM_H */
