/* Time hand-written loop bodies on this CPU with the Pipedream harness:
 * the measurements behind the split forms (docs/BENCHMARKS.md, "Forms
 * split by measurement"). Input, one kernel a line:
 *	NAME: INSN; INSN; ...
 * in Intel syntax; the instructions are repeated to 240 or more per loop
 * turn, rbx rbp r8-r12 hold 1, rsi and rdi 0 (an index that keeps addresses aligned), xmm0-15
 *hold 1.0 (as doubles, upper halves clean), r14 points to 16 KiB that may be read and r15 to 16 KiB
 *that may be written; ld_data and st_data name 2 KiB to read and 2 KiB to write RIP-relative.
 *Output: NAME, cycles per instruction of the line (its own instructions, the loop's dec/jnz left
 * out), instructions per cycle, the spread of the clean repetitions.
 *	bench/asm_timing FILE [RUNS]
 * RUNS (default 1): each kernel is measured in RUNS separate campaigns, each
 * in a fresh worker, and the cycles of every run are printed (bimodal forms
 * show two values). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/util.h"
#include "palmed/harness.h"
#include "palmed/timing.h"

#define MAX_KERNELS 512

struct line {
	char name[64];
	char *body;
	unsigned insns, copies;
};

static int parse(const char *path, struct line *v, size_t *n)
{
	FILE *f = fopen(path, "r");
	char buf[4096];
	if (!f)
		return perpi_set_error("%s: cannot open", path);
	*n = 0;
	while (fgets(buf, sizeof(buf), f) && *n < MAX_KERNELS) {
		char *colon = strchr(buf, ':');
		if (buf[0] == '#' || !colon)
			continue;
		*colon = '\0';
		struct line *l = &v[(*n)++];
		snprintf(l->name, sizeof(l->name), "%.63s", buf);
		struct strbuf sb;
		strbuf_init(&sb);
		l->insns = 0;
		for (char *tok = strtok(colon + 1, ";\n"); tok; tok = strtok(NULL, ";\n")) {
			while (*tok == ' ')
				tok++;
			if (*tok) {
				strbuf_addf(&sb, "\t%s\n", tok);
				l->insns++;
			}
		}
		l->body = sb.buf;
		l->copies = l->insns ? (240 + l->insns - 1) / l->insns : 1;
	}
	fclose(f);
	return 0;
}

static char *program(const struct line *v, size_t n)
{
	struct strbuf s;
	strbuf_init(&s);
	/* ld_data and st_data: 512 bytes each to read and write RIP-relative */
	strbuf_addf(&s,
		    ".intel_syntax noprefix\n\t.data\n\t.p2align 12\nld_data:\n\t.fill 2048, 1, "
		    "0x11\nst_data:\n\t.fill 2048, 1, 0\n\t.text\n");
	for (size_t i = 0; i < n; i++) {
		strbuf_addf(
		    &s,
		    "\t.globl k%zu\nk%zu:\n\tpush rbx\n\tpush rbp\n\tpush r12\n\tpush r13\n"
		    "\tpush r14\n\tpush r15\n\tmov r13, rdi\n\tmov r14, rsi\n\tmov r15, rdx\n"
		    "\tmov ebx, 1\n\tmov ebp, 1\n\tmov r8d, 1\n\tmov r9d, 1\n\tmov r10d, 1\n"
		    "\tmov r11d, 1\n\tmov r12d, 1\n\txor esi, esi\n\txor edi, edi\n",
		    i, i);
		for (int r = 0; r < 16; r++) /* 1.0 in every element: no zero, no denormal */
			strbuf_addf(&s, "\tmovups xmm%d, [r14]\n", r);
		strbuf_addf(&s, "\t.p2align 6\n.Lk%zu:\n", i);
		for (unsigned c = 0; c < v[i].copies; c++)
			strbuf_addf(&s, "%s", v[i].body);
		strbuf_addf(
		    &s,
		    "\tdec r13\n\tjnz .Lk%zu\n\tpop r15\n\tpop r14\n\tpop r13\n"
		    "\tpop r12\n\tpop rbp\n\tpop rbx\n\tret\n",
		    i);
	}
	return s.buf;
}

/* Each kernel's cycles per instruction in each run: the median of its
 * clean repetitions (ASM_TIMING_SAMPLES=1: all of them on stderr). */
static void print_results(const struct line *v, size_t n, struct harness_output *out, int runs)
{
	for (size_t i = 0; i < n; i++) {
		printf("%-28s", v[i].name);
		for (int r = 0; r < runs; r++) {
			struct harness_output *o = &out[r * n + i];
			double *c = xmalloc((o->n + 1) * sizeof(double));
			unsigned m = 0;
			for (unsigned j = 0; j < o->n; j++)
				if (o->clean[j])
					c[m++] = o->samples[j];
			for (unsigned a = 0; a < m; a++) /* insertion sort: few samples */
				for (unsigned b = a; b > 0 && c[b] < c[b - 1]; b--) {
					double t = c[b];
					c[b] = c[b - 1];
					c[b - 1] = t;
				}
			for (unsigned a = 0; getenv("ASM_TIMING_SAMPLES") && a < m; a++)
				fprintf(stderr, "%s%.3f", a ? " " : "\n", c[a] / v[i].insns);
			if (o->status < 0 || m == 0)
				printf("  (%s)", o->status < 0 ? o->error : "no clean run");
			else
				printf("  %.3f c/insn %.2f IPC %.1f%%", c[(m - 1) / 2] / v[i].insns,
				       v[i].insns / c[(m - 1) / 2],
				       100 * (c[(3 * (m - 1) + 2) / 4] - c[(m - 1) / 4]) /
					   c[(m - 1) / 2]);
			free(c);
			harness_output_done(o);
		}
		printf("\n");
	}
}

int main(int argc, char **argv)
{
	static struct line v[MAX_KERNELS];
	size_t n;
	int runs = argc > 2 ? atoi(argv[2]) : 1;
	if (argc < 2 || runs < 1 || parse(argv[1], v, &n) < 0) {
		fprintf(stderr, "usage: asm_timing FILE [RUNS]%s%s\n", argc > 1 ? ": " : "",
			argc > 1 ? perpi_error() : "");
		return 2;
	}
	char *dir = harness_make_dir(), *text = program(v, n);
	if (!dir || harness_assemble(dir, "t", text, NULL) < 0 || harness_link(dir, "t") < 0) {
		fprintf(stderr, "asm_timing: %s\n", perpi_error());
		return 1;
	}
	char *so = xasprintf("%s/t.so", dir);
	struct harness_job *jobs = xcalloc(n, sizeof(*jobs));
	char(*sym)[16] = xcalloc(n, sizeof(*sym));
	for (size_t i = 0; i < n; i++) {
		snprintf(sym[i], sizeof(sym[i]), "k%zu", i);
		unsigned body = v[i].insns * v[i].copies;
		jobs[i] = (struct harness_job){sym[i], (100000 + body - 1) / body,
					       (double)((100000 + body - 1) / body) * v[i].copies};
	}
	struct harness_config cfg = {.measures = 15,
				     .warmup = 3,
				     .max_attempts = 3,
				     .max_spread = 0.02,
				     .cpu = -1,
				     .max_seconds = 2};
	struct harness_output *out = xcalloc(n * runs, sizeof(*out));
	for (int r = 0; r < runs; r++)
		harness_run(so, jobs, n, &cfg, out + r * n, NULL, NULL);
	print_results(v, n, out, runs);
	harness_remove_dir(dir);
	return 0;
}
