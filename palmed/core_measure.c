/* Measuring the core's parameters: see core_measure.h and docs/CYCLES.md.
 * Every probe is a function `void f(uint64_t turns, void *read, void *write)`
 * (rdi, rsi, rdx), a loop of `turns` repetitions of its body, generated
 * here as Intel-syntax assembly and timed by the Pipedream harness. */
#include "palmed/core_measure.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/util.h"
#include "palmed/gen.h"
#include "palmed/harness.h"

#define BITS 8192      /* the branch probe's table, in the write half */
#define WINDOW_CHAIN 8 /* sqrtsd per chain in the window probe */
#define WINDOW_STEP 16
#define WINDOW_FILLS 32 /* fills of 16 ... 512 instructions */
#define PROBE_ROUNDS 3
/* The REP probes' bytes: past any L1 (32-48 KiB), within any L2 for a
 * copy's two buffers (256 KiB and more). */
#define STREAM_BYTES 65536

enum probe {
	P_LOAD,
	P_LOAD_VEC,
	P_MOVQ,
	P_FORWARD,
	P_FORWARD_VEC,
	P_RENAMED,
	P_NOPS,
	P_MIX,
	P_LOOP,
	P_BRANCH_RANDOM,
	P_BRANCH_FIXED,
	P_FP_MUL,
	P_FP_ADD,
	P_FP_MUL_ADD,
	P_STORE_LINES,
	P_CMOVE,
	P_CMOVL,
	P_CMOVA,
	P_STREAM_STORE,
	P_STREAM_COPY,
	P_COUNT
};

struct probe_def {
	const char *setup, *body;
	unsigned reps; /* copies of body per turn */
	unsigned per;  /* instructions (or links) of body timed */
	uint64_t turns;
};

/* 1.0 in xmm0-2, and clean upper halves (see vex_twins) */
#define FP_SETUP                                                                                   \
	"\tmov rax, 0x3ff0000000000000\n\tvmovq xmm0, rax\n\tvmovq xmm1, rax\n\tvmovq xmm2, rax\n" \
	"\tvzeroupper\n"

static const struct probe_def probes[P_COUNT] = {
    [P_LOAD] = {"\tmov [rsi], rsi\n\tmov rax, rsi\n", "\tmov rax, [rax]\n", 64, 1, 400},
    [P_LOAD_VEC] = {"\tmov [rsi], rsi\n\tmov rax, rsi\n",
		    "\tvmovq xmm0, qword ptr [rax]\n\tvmovq rax, xmm0\n", 32, 1, 400},
    [P_MOVQ] = {"\tmov rax, rsi\n", "\tvmovq xmm0, rax\n\tvmovq rax, xmm0\n", 32, 1, 400},
    [P_FORWARD] = {"\tmov r8, rdx\n\txor eax, eax\n", "\tmov [r8], rax\n\tmov eax, [r8 + 4]\n", 32,
		   1, 400},
    [P_FORWARD_VEC] = {"\tmov r8, rdx\n\tmov r9, rdx\n\tvxorpd xmm0, xmm0, xmm0\n",
		       "\tvmovsd qword ptr [r8], xmm0\n\tvmovsd xmm0, qword ptr [r9]\n", 32, 1,
		       400},
    [P_RENAMED] = {"\tmov r8, rdx\n\txor eax, eax\n", "\tmov [r8], rax\n\tmov rax, [r8]\n", 32, 1,
		   400},
    [P_NOPS] = {"", "\tnop\n", 192, 1, 400},
    [P_MIX] = {"",
	       "\tadd rax, 1\n\tadd rcx, 1\n\tadd r8, 1\n\tadd r9, 1\n\tmov r10, [rsi]\n"
	       "\tmov r10, [rsi + 8]\n\tvaddpd xmm2, xmm0, xmm1\n\tvaddpd xmm3, xmm0, xmm1\n",
	       16, 8, 400},
    [P_LOOP] = {"", "", 0, 1, 20000},
    [P_FP_MUL] = {FP_SETUP, "\tmulsd xmm0, xmm1\n", 64, 1, 400},
    [P_FP_ADD] = {FP_SETUP, "\taddsd xmm0, xmm2\n", 64, 1, 400},
    [P_FP_MUL_ADD] = {FP_SETUP, "\tmulsd xmm0, xmm1\n\taddsd xmm0, xmm2\n", 32, 1, 400},
    [P_STORE_LINES] = {"\t.set off, 0\n", "\tmov [rdx + off], rax\n\t.set off, off + 64\n", 64, 1,
		       400},
    /* a compare and a cmov in a chain through rax (and through the flags
     * each cmov reads): a cmove's condition is one flag */
    [P_CMOVE] = {"\txor eax, eax\n\tmov ecx, 1\n", "\tcmp rax, rcx\n\tcmove rax, rcx\n", 32, 1, 400},
    [P_CMOVL] = {"\txor eax, eax\n\tmov ecx, 1\n", "\tcmp rax, rcx\n\tcmovl rax, rcx\n", 32, 1, 400},
    [P_CMOVA] = {"\txor eax, eax\n\tmov ecx, 1\n", "\tcmp rax, rcx\n\tcmova rax, rcx\n", 32, 1, 400},
    /* one execution a turn over buffers of the probes' own (probes_text) */
    [P_STREAM_STORE] = {"",
			"\tlea rdi, [rip + perpi_core_stream]\n\tmov ecx, STREAM\n\trep stosb\n", 1,
			1, 40},
    [P_STREAM_COPY] = {"",
		       "\tlea rdi, [rip + perpi_core_stream]\n"
		       "\tlea rsi, [rip + perpi_core_stream + STREAM + 4160]\n"
		       "\tmov ecx, STREAM\n\trep movsb\n",
		       1, 1, 40},
};

/* The branch probes: fill the table with fresh random bits (or ones, by
 * the same instructions), then branch on each byte. */
static void branch_probe(struct strbuf *s, const char *sym, int random)
{
	strbuf_addf(s,
		    "\t.p2align 6\n\t.globl %s\n%s:\n\tmov r11, rdi\n"
		    "\tmov rdi, [rdx + %d]\n\ttest rdi, rdi\n\tjnz 2f\n"
		    "\tmov rdi, 0x2545F4914F6CDD1D\n"
		    "2:\txor ecx, ecx\n"
		    "3:\tmov r9, rdi\n\tshl r9, 13\n\txor rdi, r9\n\tmov r9, rdi\n\tshr r9, 7\n"
		    "\txor rdi, r9\n\tmov r9, rdi\n\tshl r9, 17\n\txor rdi, r9\n"
		    "\tmov r10, rdi\n\t%s r10d, 1\n\tmov byte ptr [rdx + rcx], r10b\n"
		    "\tinc rcx\n\tcmp rcx, %d\n\tjne 3b\n"
		    "\txor ecx, ecx\n\t.p2align 4\n"
		    "4:\tmovzx eax, byte ptr [rdx + rcx]\n\ttest eax, eax\n\tjz 5f\n"
		    "\tadd r8, 1\n5:\tinc rcx\n\tcmp rcx, %d\n\tjne 4b\n"
		    "\tdec r11\n\tjnz 2b\n\tmov [rdx + %d], rdi\n\tret\n",
		    sym, sym, BITS, random ? "and" : "or", BITS, BITS, BITS);
}

static void loop_probe(struct strbuf *s, const char *sym, const struct probe_def *p)
{
	strbuf_addf(s, "\t.p2align 6\n\t.globl %s\n%s:\n%s\tmov r11, rdi\n\t.p2align 6\n1:\n", sym,
		    sym, p->setup);
	if (p->reps)
		strbuf_addf(s, "\t.rept %u\n%s\t.endr\n", p->reps, p->body);
	strbuf_addf(s, "\tdec r11\n\tjnz 1b\n\tret\n");
}

/* Two chains of WINDOW_CHAIN sqrtsd, each followed by fill nops. */
static void window_probe(struct strbuf *s, const char *sym, unsigned fill)
{
	strbuf_addf(s,
		    "\t.p2align 6\n\t.globl %s\n%s:\n\tmov rax, 0x4000000000000000\n"
		    "\tvmovq xmm0, rax\n\tvmovq xmm1, rax\n\tmov r11, rdi\n\t.p2align 6\n1:\n"
		    "\t.rept %d\n\tsqrtsd xmm0, xmm0\n\t.endr\n\t.rept %u\n\tnop\n\t.endr\n"
		    "\t.rept %d\n\tsqrtsd xmm1, xmm1\n\t.endr\n\t.rept %u\n\tnop\n\t.endr\n"
		    "\tdec r11\n\tjnz 1b\n\tret\n",
		    sym, sym, WINDOW_CHAIN, fill, WINDOW_CHAIN, fill);
}

/* The median of the clean samples (all samples if none is clean). */
static double sample_median(const struct harness_output *o)
{
	double *v = xcalloc(o->n + 1, sizeof(*v));
	unsigned m = 0;
	for (unsigned i = 0; i < o->n; i++)
		if (o->clean[i])
			v[m++] = o->samples[i];
	for (unsigned i = 0; !m && i < o->n; i++)
		v[m++] = o->samples[i];
	for (unsigned i = 1; i < m; i++) /* insertion sort: a few dozen samples */
		for (unsigned j = i; j && v[j - 1] > v[j]; j--) {
			double t = v[j];
			v[j] = v[j - 1];
			v[j - 1] = t;
		}
	double r = m ? v[(m - 1) / 2] : NAN;
	free(v);
	return r;
}

static int run_all(const char *text, const struct harness_job *jobs, size_t n, int cpu, double *out)
{
	char *dir = harness_make_dir(), *diag = NULL;
	if (!dir)
		return -1;
	int rc = -1;
	struct harness_output *ho = xcalloc(n, sizeof(*ho));
	struct harness_config cfg = {.measures = 11,
				     .warmup = 2,
				     .max_attempts = 3,
				     .max_spread = 0.03,
				     .cpu = cpu,
				     .max_seconds = 2.0};
	if (harness_assemble(dir, "core", text, &diag) == 0 && harness_link(dir, "core") == 0) {
		char *so = xasprintf("%s/core.so", dir);
		if (harness_run(so, jobs, n, &cfg, ho, NULL, NULL) == 0) {
			rc = 0;
			for (size_t i = 0; i < n; i++)
				out[i] = ho[i].status == 0 ? sample_median(&ho[i]) : NAN;
		}
		free(so);
	} else if (diag) {
		perpi_set_error("assembling the core probes: %.200s", diag);
	}
	for (size_t i = 0; i < n; i++)
		harness_output_done(&ho[i]);
	free(ho);
	free(diag);
	harness_remove_dir(dir);
	free(dir);
	return rc;
}

void core_probes_done(struct core_probes *p)
{
	free(p->window_fill);
	free(p->window_cycles);
	memset(p, 0, sizeof(*p));
}

/* All probes in one shared object: the fixed ones, then the window's. */
static char *probes_text(struct harness_job *jobs, char (*names)[24])
{
	struct strbuf s;
	strbuf_init(&s);
	strbuf_addf(&s, ".intel_syntax noprefix\n\t.text\n");
	/* the REP probes' buffers, a page and a line apart (a copy's loads
	 * then alias no store before them in the low 12 bits) */
	strbuf_addf(&s,
		    "\t.set STREAM, %d\n\t.local perpi_core_stream\n"
		    "\t.comm perpi_core_stream, %d, 64\n",
		    STREAM_BYTES, 2 * STREAM_BYTES + 8192);
	for (int p = 0; p < P_COUNT; p++) {
		snprintf(names[p], sizeof(names[0]), "perpi_core%d", p);
		const struct probe_def *d = &probes[p];
		if (p == P_BRANCH_RANDOM || p == P_BRANCH_FIXED) {
			branch_probe(&s, names[p], p == P_BRANCH_RANDOM);
			jobs[p] = (struct harness_job){names[p], 4, 4.0 * BITS};
		} else {
			loop_probe(&s, names[p], d);
			jobs[p] = (struct harness_job){names[p], d->turns,
						       (double)d->turns * (d->reps ? d->reps : 1) *
							   d->per};
		}
	}
	for (int w = 0; w < WINDOW_FILLS; w++) {
		int j = P_COUNT + w;
		snprintf(names[j], sizeof(names[0]), "perpi_window%d", w);
		window_probe(&s, names[j], WINDOW_STEP * (unsigned)(w + 1));
		jobs[j] = (struct harness_job){names[j], 100, 100.0};
	}
	return s.buf;
}

/* The reorder window from the window probe: the two chains overlap while
 * fill + both chains fit in the window, and the iteration takes about
 * twice as long once they do not. The largest rise between consecutive
 * fills marks it: the window holds the last fill before it and the two
 * chains. (A gentler rise at smaller fills, seen on Zen 5, comes from
 * another structure this model does not have.) */
static double window_from(const struct core_probes *p)
{
	size_t knee = 0;
	double rise = 0;
	for (size_t i = 1; i < p->nwindow; i++)
		if (p->window_cycles[i] - p->window_cycles[i - 1] > rise) {
			rise = p->window_cycles[i] - p->window_cycles[i - 1];
			knee = i;
		}
	if (!knee || rise < 0.25 * p->window_base)
		return NAN; /* no knee up to the largest fill */
	return p->window_fill[knee - 1] + 2 * WINDOW_CHAIN;
}

/* window_from on the window probe's timings v[P_COUNT ...] of one round. */
double core_window_of(const double *cycles, size_t n)
{
	unsigned fill[WINDOW_FILLS];
	n = n < WINDOW_FILLS ? n : WINDOW_FILLS;
	struct core_probes p = {.nwindow = n, .window_fill = fill,
				.window_cycles = (double *)cycles, .window_base = cycles[0]};
	for (size_t w = 0; w < n; w++)
		fill[w] = WINDOW_STEP * (unsigned)(w + 1);
	return window_from(&p);
}

static double window_of(const double *v)
{
	return core_window_of(v + P_COUNT, WINDOW_FILLS);
}

static void set_if(struct core *c, enum core_param param, double v)
{
	if (isfinite(v) && v > 0)
		core_set_measured(c, param, v);
	else
		perpi_warn("core: the probe for %s gave no usable value; keeping %g (%s)",
			   core_param_info[param].name, c->value[param],
			   core_source_name[c->source[param]]);
}

static void derive(struct core *c, const struct core_probes *p)
{
	set_if(c, CORE_LOAD_LATENCY, p->load);
	set_if(c, CORE_LOAD_LATENCY_VEC, p->load_vec - p->movq_round_trip / 2);
	set_if(c, CORE_FORWARD_LATENCY, p->forward);
	set_if(c, CORE_FORWARD_LATENCY_VEC, p->forward_vec);
	/* no faster than forwarding: the CPU does not rename memory */
	set_if(c, CORE_RENAMED_LATENCY, p->renamed < p->forward ? p->renamed : p->forward);
	set_if(c, CORE_WIDTH, fmax(1 / p->nops, 1 / p->mix));
	set_if(c, CORE_TAKEN_BRANCH, p->loop);
	/* a mispredicted iteration waits, after the redirect, for its load
	 * and its test before the branch resolves; half the random branches
	 * are mispredicted */
	double per_miss = (p->branch_random - p->branch_fixed) / 0.5;
	set_if(c, CORE_MISPREDICT, per_miss - c->value[CORE_LOAD_LATENCY] - 1);
	set_if(c, CORE_WINDOW, round(window_from(p)));
	set_if(c, CORE_STORE_LINE, p->store_lines);
	set_if(c, CORE_STREAM_STORE, STREAM_BYTES / p->stream_store);
	set_if(c, CORE_STREAM_COPY, STREAM_BYTES / p->stream_copy);
	/* a mul and an add in a chain, against each in its own chain; below
	 * 0.25 cycle, noise: none */
	double bypass = p->fp_mul_add - p->fp_mul - p->fp_add;
	if (isfinite(bypass))
		core_set_measured(c, CORE_FP_BYPASS, bypass > 0.25 ? bypass : 0);
	/* a cmov on combined flags against one on a single flag (Zen 5:
	 * cmp + cmovl and cmp + cmova take 3 cycles, cmp + cmove 2) */
	double sgn = p->cmovl - p->cmove, uns = p->cmova - p->cmove;
	if (isfinite(sgn))
		core_set_measured(c, CORE_CMOV_SIGNED, sgn > 0.25 ? sgn : 0);
	if (isfinite(uns))
		core_set_measured(c, CORE_CMOV_UNSIGNED, uns > 0.25 ? uns : 0);
	long size = sysconf(_SC_LEVEL1_DCACHE_SIZE), ways = sysconf(_SC_LEVEL1_DCACHE_ASSOC);
	long line = sysconf(_SC_LEVEL1_DCACHE_LINESIZE);
	if (size > 0 && ways > 0 && line > 0) {
		core_set_measured(c, CORE_L1_SIZE, (double)size);
		core_set_measured(c, CORE_L1_WAYS, (double)ways);
		core_set_measured(c, CORE_L1_LINE, (double)line);
	}
}

int core_measure_params(struct core *c, int cpu, struct core_probes *out)
{
	size_t n = P_COUNT + WINDOW_FILLS;
	struct harness_job *jobs = xcalloc(n, sizeof(*jobs));
	char(*names)[24] = xcalloc(n, sizeof(*names));
	double *v = xcalloc(n, sizeof(*v));
	char *text = probes_text(jobs, names);
	struct core_probes p = {0};
	int rc = run_all(text, jobs, n, cpu, v);
	/* Each probe's fastest over PROBE_ROUNDS rounds, and the window probe
	 * of the round that shows the largest window: on a core whose other
	 * hardware thread runs something, the reorder buffer is split between
	 * the two (a Zen 5 VM's window came out 448 in one run, 224 in the
	 * next), and the native figures perpi is checked against are taken
	 * with the core to themselves. */
	double *again = xcalloc(n, sizeof(*again)), most = window_of(v);
	for (int round = 1; rc == 0 && round < PROBE_ROUNDS; round++) {
		if (run_all(text, jobs, n, cpu, again) < 0)
			break;
		double w = window_of(again);
		for (size_t i = 0; i < P_COUNT; i++)
			v[i] = isnan(v[i]) || again[i] < v[i] ? again[i] : v[i];
		if (w > most || (isnan(most) && !isnan(w))) {
			most = w;
			memcpy(v + P_COUNT, again + P_COUNT, WINDOW_FILLS * sizeof(*v));
		}
	}
	free(again);
	if (rc == 0) {
		p = (struct core_probes){.load = v[P_LOAD],
					 .load_vec = v[P_LOAD_VEC],
					 .movq_round_trip = v[P_MOVQ],
					 .forward = v[P_FORWARD],
					 .forward_vec = v[P_FORWARD_VEC],
					 .renamed = v[P_RENAMED],
					 .nops = v[P_NOPS],
					 .mix = v[P_MIX],
					 .loop = v[P_LOOP],
					 .branch_random = v[P_BRANCH_RANDOM],
					 .branch_fixed = v[P_BRANCH_FIXED],
					 .fp_mul = v[P_FP_MUL],
					 .fp_add = v[P_FP_ADD],
					 .fp_mul_add = v[P_FP_MUL_ADD],
					 .store_lines = v[P_STORE_LINES],
					 .cmove = v[P_CMOVE],
					 .cmovl = v[P_CMOVL],
					 .cmova = v[P_CMOVA],
					 .stream_store = v[P_STREAM_STORE],
					 .stream_copy = v[P_STREAM_COPY],
					 .nwindow = WINDOW_FILLS};
		p.window_fill = xcalloc(WINDOW_FILLS, sizeof(*p.window_fill));
		p.window_cycles = xcalloc(WINDOW_FILLS, sizeof(*p.window_cycles));
		for (int w = 0; w < WINDOW_FILLS; w++) {
			p.window_fill[w] = WINDOW_STEP * (unsigned)(w + 1);
			p.window_cycles[w] = v[P_COUNT + w];
		}
		p.window_base = p.window_cycles[0];
		derive(c, &p);
	}
	if (out)
		*out = p;
	else
		core_probes_done(&p);
	free(text);
	free(v);
	free(names);
	free(jobs);
	return rc;
}

/* A legacy SSE form's VEX twins ("ADDSD_XMM_XMM": "VADDSD_XMM_XMM_XMM",
 * then "VADDSD_XMM_XMM"), or 0 for another form. The harness leaves the
 * upper halves of the vector registers dirty (it loads them with VEX or
 * EVEX moves), and on Zen 5 a legacy SSE instruction then takes a cycle
 * more (it merges the upper half: addsd 3 cycles instead of 2), which
 * compiled SSE code, run after a vzeroupper, does not pay. The VEX twin
 * runs the same operation without the merge. */
static int vex_twins(const char *form, char *a, char *b, size_t size)
{
	const char *ops = strchr(form, '_');
	if (form[0] == 'V' || !ops || !strstr(form, "XMM"))
		return 0;
	snprintf(a, size, "V%.*s_XMM%s", (int)(ops - form), form, ops);
	snprintf(b, size, "V%s", form);
	return 1;
}

/* The latency of one form (through its VEX twin when it has one): 0, or
 * -1 with *why set (malloc'd). */
static int latency_of(struct bench_ctx *b, const char *form, double *cycles, char **why)
{
	char twin[2][128];
	const char *tries[3] = {form, NULL, NULL};
	if (vex_twins(form, twin[0], twin[1], sizeof(twin[0]))) {
		tries[0] = twin[0];
		tries[1] = twin[1];
		tries[2] = form;
	}
	*why = NULL;
	for (int t = 0; t < 3 && tries[t]; t++) {
		struct bench_result r;
		if (bench_latency(b, tries[t], &r) < 0) {
			free(*why);
			*why = xstrdup(perpi_error());
			continue;
		}
		int flagged = r.flagged;
		if (flagged) {
			free(*why);
			*why = xstrdup(r.flag_reason);
		} else {
			*cycles = r.cycles;
		}
		bench_result_done(&r);
		if (!flagged) {
			free(*why);
			*why = NULL;
			return 0;
		}
	}
	return -1;
}

size_t core_measure_latencies(struct bench_ctx *b, struct core *c, char *const *forms, size_t n,
			      bench_progress_fn progress, void *arg)
{
	size_t measured = 0;
	for (size_t i = 0; i < n; i++) {
		double cycles;
		char *why;
		if (latency_of(b, forms[i], &cycles, &why) == 0) {
			core_set_latency(c, forms[i], cycles);
			measured++;
		} else if (why && strstr(why, "(a busy machine)")) {
			/* the harness's word for a host too busy to time it
			 * (palmed/bench_batch.c): not a property of the form;
			 * left unknown, the next run tries again */
			perpi_warn("core: %s", why);
		} else {
			core_set_no_latency(c, forms[i], why ? why : "no latency chain");
		}
		free(why);
		if (progress)
			progress(arg, i + 1, n);
	}
	return measured;
}
