#include "palmed/timing.h"

#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>
#include <string.h>

#include "common/util.h"
#include "config.h"
#ifdef HAVE_PAPI
#include <linux/perf_event.h>
#include <papi.h>
#include <sys/syscall.h>
#include <unistd.h>
#endif

static uint64_t overhead_ticks;

uint64_t timing_overhead(void)
{
	uint64_t best = UINT64_MAX;
	for (int i = 0; i < 64; i++) {
		uint64_t t0 = timing_tsc();
		uint64_t t1 = timing_tsc();
		if (t1 - t0 < best)
			best = t1 - t0;
	}
	overhead_ticks = best;
	return best;
}

static uint64_t minus_overhead(uint64_t ticks)
{
	return ticks > overhead_ticks ? ticks - overhead_ticks : 0;
}

/* 64 dependent adds per loop turn: the loop counter runs beside the chain,
 * so one turn takes 64 cycles on any CPU whose add has a 1-cycle latency. */
uint64_t timing_chain_ticks(void)
{
	uint64_t n = TIMING_CHAIN_CYCLES / 64, x = 0, one = 1;
	uint64_t t0 = timing_tsc();
	__asm__ volatile("1:\n\t.rept 64\n\tadd %[one], %[x]\n\t.endr\n\tdec %[n]\n\tjnz 1b"
			 : [n] "+r"(n), [x] "+r"(x)
			 : [one] "r"(one)
			 : "cc");
	return minus_overhead(timing_tsc() - t0);
}

uint64_t timing_fp_chain_ticks(void)
{
	uint64_t n = TIMING_FP_CHAIN_INSNS / 64;
	uint64_t t0 = timing_tsc();
	__asm__ volatile("xorpd %%xmm13, %%xmm13\n\t"
			 "1:\n\t.rept 64\n\taddsd %%xmm13, %%xmm13\n\t.endr\n\tdec %[n]\n\tjnz 1b"
			 : [n] "+r"(n)
			 :
			 : "cc", "xmm13");
	return minus_overhead(timing_tsc() - t0);
}

const char *const timing_probe_names[PROBE_COUNT] = {"alu", "load", "fp", "front"};
const unsigned timing_probe_insns[PROBE_COUNT] = {TIMING_WIDE_INSNS, 16384, 16320, 16384};

/* 64 adds per turn over 8 independent registers. */
static uint64_t alu_ticks(void)
{
	uint64_t n = TIMING_WIDE_INSNS / 64, one = 1;
	uint64_t a = 0, b = 0, c = 0, d = 0, e = 0, f = 0, g = 0, h = 0;
	uint64_t t0 = timing_tsc();
	__asm__ volatile("1:\n\t.rept 8\n\t"
			 "add %[one], %[a]\n\tadd %[one], %[b]\n\tadd %[one], %[c]\n\t"
			 "add %[one], %[d]\n\tadd %[one], %[e]\n\tadd %[one], %[f]\n\t"
			 "add %[one], %[g]\n\tadd %[one], %[h]\n\t.endr\n\tdec %[n]\n\tjnz 1b"
			 : [n] "+r"(n), [a] "+r"(a), [b] "+r"(b), [c] "+r"(c), [d] "+r"(d),
			   [e] "+r"(e), [f] "+r"(f), [g] "+r"(g), [h] "+r"(h)
			 : [one] "r"(one)
			 : "cc");
	return minus_overhead(timing_tsc() - t0);
}

/* 64 independent loads per turn, 8 bytes apart over one 512-byte buffer. */
static uint64_t load_ticks(void)
{
	static uint64_t buf[64] __attribute__((aligned(64)));
	uint64_t n = 16384 / 64, a, b, c, d, e, f, g, h;
	const uint64_t *p = buf;
	uint64_t t0 = timing_tsc();
	__asm__ volatile("1:\n\t.set perpi_off, 0\n\t.rept 8\n\t"
			 "mov perpi_off(%[p]), %[a]\n\tmov perpi_off+8(%[p]), %[b]\n\t"
			 "mov perpi_off+16(%[p]), %[c]\n\tmov perpi_off+24(%[p]), %[d]\n\t"
			 "mov perpi_off+32(%[p]), %[e]\n\tmov perpi_off+40(%[p]), %[f]\n\t"
			 "mov perpi_off+48(%[p]), %[g]\n\tmov perpi_off+56(%[p]), %[h]\n\t"
			 ".set perpi_off, perpi_off+64\n\t.endr\n\tdec %[n]\n\tjnz 1b"
			 : [n] "+r"(n), [a] "=&r"(a), [b] "=&r"(b), [c] "=&r"(c), [d] "=&r"(d),
			   [e] "=&r"(e), [f] "=&r"(f), [g] "=&r"(g), [h] "=&r"(h)
			 : [p] "r"(p)
			 : "cc", "memory");
	return minus_overhead(timing_tsc() - t0);
}

/* 60 addpd per turn over 12 XMM registers: enough chains to fill two or
 * three FP adders of latency 3 or 4. */
static uint64_t fp_ticks(void)
{
	uint64_t n = 16320 / 60;
	uint64_t t0 = timing_tsc();
	__asm__ volatile("xorpd %%xmm12, %%xmm12\n\t"
			 "1:\n\t.rept 5\n\t"
			 "addpd %%xmm12, %%xmm0\n\taddpd %%xmm12, %%xmm1\n\t"
			 "addpd %%xmm12, %%xmm2\n\taddpd %%xmm12, %%xmm3\n\t"
			 "addpd %%xmm12, %%xmm4\n\taddpd %%xmm12, %%xmm5\n\t"
			 "addpd %%xmm12, %%xmm6\n\taddpd %%xmm12, %%xmm7\n\t"
			 "addpd %%xmm12, %%xmm8\n\taddpd %%xmm12, %%xmm9\n\t"
			 "addpd %%xmm12, %%xmm10\n\taddpd %%xmm12, %%xmm11\n\t"
			 ".endr\n\tdec %[n]\n\tjnz 1b"
			 : [n] "+r"(n)
			 :
			 : "cc", "xmm0", "xmm1", "xmm2", "xmm3", "xmm4", "xmm5", "xmm6", "xmm7",
			   "xmm8", "xmm9", "xmm10", "xmm11", "xmm12");
	return minus_overhead(timing_tsc() - t0);
}

/* 64 zero idioms per turn over 8 registers: no execution unit, no
 * dependency; they go as fast as the core renames (a kernel of zero idioms,
 * or of eliminated moves, is bound there too, and none of the other probes
 * would see a sibling thread taking half of it). */
static uint64_t front_ticks(void)
{
	uint64_t n = 16384 / 64;
	uint64_t t0 = timing_tsc();
	__asm__ volatile("1:\n\t.rept 8\n\t"
			 "xor %%eax, %%eax\n\txor %%ecx, %%ecx\n\txor %%edx, %%edx\n\t"
			 "xor %%esi, %%esi\n\txor %%edi, %%edi\n\txor %%r8d, %%r8d\n\t"
			 "xor %%r9d, %%r9d\n\txor %%r10d, %%r10d\n\t.endr\n\tdec %[n]\n\tjnz 1b"
			 : [n] "+r"(n)
			 :
			 : "cc", "rax", "rcx", "rdx", "rsi", "rdi", "r8", "r9", "r10");
	return minus_overhead(timing_tsc() - t0);
}

/* One pass of the window probe: 64 turns of a chain of 8 sqrtsd on xmm0,
 * FILL nops, a chain of 8 sqrtsd on xmm1 (the chains carry over the
 * turns). When the reorder window holds a turn, the two chains overlap;
 * when it does not, the second waits for the first to retire. */
#define WINDOW_PASS(FILL)                                                                          \
	__asm__ volatile("xorpd %%xmm0, %%xmm0\n\txorpd %%xmm1, %%xmm1\n\t"                         \
			 "1:\n\t.rept 8\n\tsqrtsd %%xmm0, %%xmm0\n\t.endr\n\t"                           \
			 ".rept " #FILL "\n\tnop\n\t.endr\n\t"                                           \
			 ".rept 8\n\tsqrtsd %%xmm1, %%xmm1\n\t.endr\n\tdec %[n]\n\tjnz 1b"                 \
			 : [n] "+r"(n)                                                             \
			 :                                                                         \
			 : "cc", "xmm0", "xmm1")

static uint64_t window_ticks(int wide)
{
	uint64_t best = UINT64_MAX;
	for (int k = 0; k < 5; k++) {
		uint64_t n = 64, t0 = timing_tsc();
		if (wide)
			WINDOW_PASS(288);
		else
			WINDOW_PASS(64);
		uint64_t t = timing_tsc() - t0;
		best = t < best ? t : best;
	}
	return best;
}

double timing_window_ratio(void)
{
	uint64_t narrow = window_ticks(0), wide = window_ticks(1);
	return narrow ? (double)wide / (double)narrow : 0;
}

double timing_window_split(void)
{
	const char *e = getenv("PERPI_WINDOW_SPLIT");
	char *end;
	double v = e ? strtod(e, &end) : 0;
	return e && end != e && v > 0 ? v : TIMING_WINDOW_SPLIT;
}

uint64_t timing_probe_ticks(enum timing_probe p)
{
	switch (p) {
	case PROBE_LOAD:
		return load_ticks();
	case PROBE_FP:
		return fp_ticks();
	case PROBE_FRONT:
		return front_ticks();
	default:
		return alu_ticks();
	}
}

double timing_probe_cpi(enum timing_probe p, double ticks_per_cycle, unsigned tries)
{
	uint64_t best = UINT64_MAX;
	for (unsigned k = 0; k < tries; k++) {
		uint64_t t = timing_probe_ticks(p);
		best = t < best ? t : best;
	}
	return (double)best / ticks_per_cycle / timing_probe_insns[p];
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

double timing_calibrate(unsigned n)
{
	double *v = malloc(n * sizeof(*v));
	if (!v || n == 0) {
		free(v);
		return 0;
	}
	if (!overhead_ticks)
		timing_overhead();
	for (unsigned i = 0; i < n; i++)
		v[i] = (double)timing_chain_ticks() / TIMING_CHAIN_CYCLES;
	/* a disturbance (steal, a busy sibling) only ever adds ticks: the
	 * fastest probe is the undisturbed one */
	qsort(v, n, sizeof(*v), cmp_double);
	double fastest = v[0];
	free(v);
	return fastest;
}

static char *reference_path(void)
{
	const char *xdg = getenv("XDG_CACHE_HOME"), *home = getenv("HOME");
	if (xdg && *xdg == '/')
		return xasprintf("%s/perpi/probe-reference", xdg);
	return xasprintf("%s/.cache/perpi/probe-reference", home && *home ? home : "/tmp");
}

/* A line: MACHINE<tab>alu=V load=V fp=V */
static void parse_reference(const char *fields, double out[PROBE_COUNT])
{
	for (int k = 0; k < PROBE_COUNT; k++) {
		char key[16];
		snprintf(key, sizeof(key), "%s=", timing_probe_names[k]);
		const char *p = strstr(fields, key);
		out[k] = p ? atof(p + strlen(key)) : 0;
	}
}

int timing_reference_load(const char *machine, double out[PROBE_COUNT])
{
	char *path = reference_path(), line[512];
	FILE *f = fopen(path, "r");
	size_t klen = strlen(machine);
	for (int k = 0; k < PROBE_COUNT; k++)
		out[k] = 0;
	free(path);
	while (f && fgets(line, sizeof(line), f))
		if (!strncmp(line, machine, klen) && line[klen] == '\t')
			parse_reference(line + klen + 1, out);
	if (f)
		fclose(f);
	return 0;
}

/* Rewrites the file with this machine's line replaced (other machines kept). */
int timing_reference_save(const char *machine, const double value[PROBE_COUNT],
			  unsigned replace)
{
	double old[PROBE_COUNT], best[PROBE_COUNT];
	int changed = 0;
	timing_reference_load(machine, old);
	for (int k = 0; k < PROBE_COUNT; k++) {
		int keep = old[k] > 0 && (value[k] <= 0 || (old[k] <= value[k] && !(replace >> k & 1)));
		best[k] = keep ? old[k] : value[k];
		changed |= best[k] != old[k];
	}
	if (!changed)
		return 0;
	char *path = reference_path(), *tmp = xasprintf("%s.%d", path, (int)getpid()), line[512];
	for (char *s = strchr(path + 1, '/'); s; s = strchr(s + 1, '/')) {
		*s = '\0';
		mkdir(path, 0755);
		*s = '/';
	}
	FILE *in = fopen(path, "r"), *out = fopen(tmp, "w");
	size_t klen = strlen(machine);
	int rc = -1;
	if (out) {
		while (in && fgets(line, sizeof(line), in))
			if (strncmp(line, machine, klen) || line[klen] != '\t')
				fputs(line, out);
		fprintf(out, "%s\t", machine);
		for (int k = 0; k < PROBE_COUNT; k++)
			fprintf(out, "%s%s=%.9g", k ? " " : "", timing_probe_names[k], best[k]);
		fprintf(out, "\n");
		rc = fclose(out) == 0 && rename(tmp, path) == 0 ? 0 : -1;
	}
	if (in)
		fclose(in);
	if (rc)
		unlink(tmp);
	free(tmp);
	free(path);
	return rc;
}

#ifdef HAVE_PAPI
static int papi_state = -1; /* -1 unknown, 0 no, 1 yes */

/* PAPI_library_init takes milliseconds; the kernel says in microseconds
 * whether there is a cycle counter at all (a VM often has none). */
static int cycle_counter_exists(void)
{
	struct perf_event_attr attr;
	memset(&attr, 0, sizeof(attr));
	attr.size = sizeof(attr);
	attr.type = PERF_TYPE_HARDWARE;
	attr.config = PERF_COUNT_HW_CPU_CYCLES;
	attr.exclude_kernel = 1;
	attr.exclude_hv = 1;
	attr.disabled = 1;
	long fd = syscall(SYS_perf_event_open, &attr, 0, -1, -1, 0);
	if (fd < 0)
		return 0;
	close((int)fd);
	return 1;
}
static int papi_events = PAPI_NULL;

int timing_papi_works(void)
{
	if (papi_state >= 0)
		return papi_state;
	papi_state = 0;
	if (getenv("PERPI_NO_PAPI") || !cycle_counter_exists())
		return 0;
	if (PAPI_library_init(PAPI_VER_CURRENT) != PAPI_VER_CURRENT)
		return 0;
	if (PAPI_create_eventset(&papi_events) != PAPI_OK ||
	    PAPI_add_event(papi_events, PAPI_TOT_CYC) != PAPI_OK ||
	    PAPI_add_event(papi_events, PAPI_TOT_INS) != PAPI_OK)
		return 0;
	long long v[2];
	if (PAPI_start(papi_events) != PAPI_OK)
		return 0;
	timing_chain_ticks();
	if (PAPI_stop(papi_events, v) != PAPI_OK || v[0] <= 0 || v[1] <= 0)
		return 0;
	papi_state = 1;
	return 1;
}

int timing_papi_start(void)
{
	return PAPI_start(papi_events) == PAPI_OK ? 0 : -1;
}

int timing_papi_stop(uint64_t *cycles, uint64_t *insns)
{
	long long v[2];
	if (PAPI_stop(papi_events, v) != PAPI_OK)
		return -1;
	*cycles = (uint64_t)v[0];
	*insns = (uint64_t)v[1];
	return 0;
}
#else
int timing_papi_works(void)
{
	return 0;
}

int timing_papi_start(void)
{
	return -1;
}

int timing_papi_stop(uint64_t *cycles, uint64_t *insns)
{
	return -1;
}
#endif
