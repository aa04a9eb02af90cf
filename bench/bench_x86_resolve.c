/* Speed of the x86 semantics: decode cost (once per static instruction, the
 * tracer caches it) and x86_resolve cost (once per single step) over the
 * instructions of libc's .text. Prints ns per call; docs/BENCHMARKS.md
 * keeps the results. Usage: bench_x86_resolve [ELF] [max instructions] */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "common/util.h"
#include "tracer/elf.h"
#include "tracer/x86.h"

static struct x86_xstate xs;

static int fetch(void *ctx, struct x86_xstate *out)
{
	(void)ctx;
	*out = xs;
	return 0;
}

/* CPU time of this thread: the machine is shared, wall time is not ours. */
static double cpu_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

int main(int argc, char **argv)
{
	const char *path = argc > 1 ? argv[1] : "/lib/x86_64-linux-gnu/libc.so.6";
	size_t max = argc > 2 ? strtoul(argv[2], NULL, 0) : 100000, size = 0, n = 0, n_x = 0;
	uint8_t *text = NULL;
	uint64_t base = 0;
	if (elf_read_section(path, ".text", &text, &size, &base) < 0) {
		fprintf(stderr, "perpi: bench_x86_resolve: cannot read .text of %s\n", path);
		return 1;
	}
	struct x86_decoder *dec = x86_decoder_new();
	struct perpi_insn *insns = xcalloc(max, sizeof(*insns));
	double t0 = cpu_now();
	for (size_t off = 0; off < size && n < max; n++) {
		size_t avail = size - off < 15 ? size - off : 15;
		if (x86_decode(dec, base + off, text + off, avail, &insns[n]) < 0)
			break;
		off += insns[n].len;
	}
	double decode_ns = (cpu_now() - t0) * 1e9 / (double)n;
	/* Plain instructions first, those that need the extended state apart. */
	struct perpi_insn **plain = xcalloc(n, sizeof(*plain)), **ext = xcalloc(n, sizeof(*ext));
	size_t n_plain = 0;
	for (size_t i = 0; i < n; i++) {
		if (x86_needs_xstate(&insns[i]))
			ext[n_x++] = &insns[i];
		else
			plain[n_plain++] = &insns[i];
	}
	struct user_regs_struct regs;
	memset(&regs, 0, sizeof(regs));
	regs.rsp = 0x7ffc0000, regs.rdi = 0x1000, regs.rsi = 0x2000, regs.rcx = 4;
	xs.fsw = 3 << 11;
	for (int k = 0; k < 8; k++)
		xs.k[k] = 0xf0f0f0f0f0f0f0f0ull;
	struct x86_state st = {&regs, fetch, NULL};
	static struct perpi_event ev;
	unsigned long sink = 0;
	double runs[2][7];
	for (int which = 0; which < 2; which++) {
		struct perpi_insn **list = which ? ext : plain;
		size_t count = which ? n_x : n_plain;
		int reps = count ? (int)(2000000 / count) + 1 : 0;
		for (int r = 0; r < 7 && count; r++) {
			double t = cpu_now();
			for (int rep = 0; rep < reps; rep++)
				for (size_t i = 0; i < count; i++) {
					x86_resolve(list[i], &st, &ev);
					sink += ev.n_src + ev.n_mem;
				}
			runs[which][r] = (cpu_now() - t) * 1e9 / ((double)reps * (double)count);
		}
		if (count)
			qsort(runs[which], 7, sizeof(double), cmp_double);
	}
	printf("%s: %zu instructions decoded, %.0f ns per decode (Capstone, Zydis fallback, fix "
	       "table, semantics)\n",
	       path, n, decode_ns);
	printf("x86_resolve: %.1f ns per call (median of 7) over %zu instructions without "
	       "extended state\n",
	       runs[0][3], n_plain);
	if (n_x)
		printf("x86_resolve: %.1f ns per call over %zu instructions that need the extended "
		       "state (x87, masks, gathers; fetch is a copy here, a ptrace call live)\n",
		       runs[1][3], n_x);
	printf("(checksum %lu)\n", sink);
	x86_decoder_delete(dec);
	free(plain);
	free(ext);
	free(insns);
	free(text);
	return 0;
}
