/* x86_xstate_parse against a real XSAVE image: this process loads known
 * values into the vector and mask registers and pushes one value on the
 * x87 stack (TOP 0 -> 7), saves its state with xsave in the standard format
 * (the format of the kernel's NT_X86_XSTATE regset), and the parser must
 * give back exactly those values. Vector lengths the CPU lacks are skipped. */
#include <cpuid.h>
#include <stdio.h>
#include <string.h>

#include "common/util.h"
#include "tracer/x86.h"

static uint8_t area[16384] __attribute__((aligned(64)));
static uint8_t vals[32][64] __attribute__((aligned(64)));
static uint64_t kvals[8];

static uint64_t xgetbv0(void)
{
	uint32_t lo, hi;
	__asm__ volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
	return (uint64_t)hi << 32 | lo;
}

static void save_avx512(uint64_t rfbm)
{
	__asm__ volatile(".irp "
			 "i,0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,21,22,23,24,25,26,"
			 "27,28,29,30,31\n\t"
			 "vmovdqu64 64*\\i(%[v]), %%zmm\\i\n\t"
			 ".endr\n\t"
			 ".irp i,0,1,2,3,4,5,6,7\n\t"
			 "kmovq 8*\\i(%[k]), %%k\\i\n\t"
			 ".endr\n\t"
			 "fld1\n\t"
			 "xsave (%[a])\n\t"
			 "fstp %%st(0)\n\t"
			 "vzeroupper\n\t"
			 :
			 : [v] "r"(vals), [k] "r"(kvals), [a] "r"(area), "a"((uint32_t)rfbm),
			   "d"((uint32_t)(rfbm >> 32))
			 : "memory", "xmm0", "xmm1", "xmm2", "xmm3", "xmm4", "xmm5", "xmm6", "xmm7",
			   "xmm8", "xmm9", "xmm10", "xmm11", "xmm12", "xmm13", "xmm14", "xmm15");
}

static void save_avx(uint64_t rfbm)
{
	__asm__ volatile(".irp i,0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15\n\t"
			 "vmovdqu 64*\\i(%[v]), %%ymm\\i\n\t"
			 ".endr\n\t"
			 "fld1\n\t"
			 "xsave (%[a])\n\t"
			 "fstp %%st(0)\n\t"
			 "vzeroupper\n\t"
			 :
			 : [v] "r"(vals), [a] "r"(area), "a"((uint32_t)rfbm),
			   "d"((uint32_t)(rfbm >> 32))
			 : "memory", "xmm0", "xmm1", "xmm2", "xmm3", "xmm4", "xmm5", "xmm6", "xmm7",
			   "xmm8", "xmm9", "xmm10", "xmm11", "xmm12", "xmm13", "xmm14", "xmm15");
}

int main(void)
{
	unsigned a, b, c, d;
	if (!__get_cpuid(1, &a, &b, &c, &d) || !(c & (1u << 27)) || !(c & (1u << 28))) {
		printf("SKIP: no OSXSAVE/AVX\n");
		return 77;
	}
	uint64_t xcr0 = xgetbv0();
	int avx512 = (xcr0 & 0xe0) == 0xe0;
	__cpuid_count(0xd, 0, a, b, c, d);
	if (b > sizeof(area)) {
		printf("SKIP: XSAVE area of %u bytes\n", b);
		return 77;
	}
	for (int v = 0; v < 32; v++)
		for (int i = 0; i < 64; i++)
			vals[v][i] = (uint8_t)(v * 64 + i + 1);
	for (int k = 0; k < 8; k++)
		kvals[k] = 0x0101010101010101ull * (uint64_t)(k + 1);
	uint64_t rfbm = xcr0 & (avx512 ? 0xe7 : 0x7);
	if (avx512)
		save_avx512(rfbm);
	else
		save_avx(rfbm);
	struct x86_xstate xs;
	int bad = 0;
	if (x86_xstate_parse(area, b, &xs) < 0) {
		printf("FAIL parse: %s\n", perpi_error());
		return 1;
	}
	/* One fld from an empty stack (TOP 0) leaves TOP = 7. */
	if ((xs.fsw >> 11 & 7) != 7)
		printf("FAIL TOP %d, want 7\n", xs.fsw >> 11 & 7), bad++;
	int nvec = avx512 ? 32 : 16, width = avx512 ? 64 : 32;
	for (int v = 0; v < nvec; v++)
		if (memcmp(xs.zmm[v], vals[v], (size_t)width))
			printf("FAIL vector %d\n", v), bad++;
	for (int k = 0; avx512 && k < 8; k++)
		if (xs.k[k] != kvals[k])
			printf("FAIL k%d %#llx\n", k, (unsigned long long)xs.k[k]), bad++;
	/* A short buffer is an error, not a crash. */
	if (x86_xstate_parse(area, 100, &xs) == 0)
		printf("FAIL short buffer accepted\n"), bad++;
	printf("%s: %d vector registers of %d bytes%s, TOP, %d failures\n", bad ? "FAIL" : "PASS",
	       nvec, width, avx512 ? ", 8 masks" : "", bad);
	return bad ? 1 : 0;
}
