#include "palmed/sim.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "common/util.h"
#include "palmed/lp.h"
#include "palmed/sim_catalogue.h"

#define P(n) (1u << (n))
#define U1(a) 1, {a}, NULL
#define U2(a, b) 2, {a, b}, NULL
#define U3(a, b, c) 3, {a, b, c}, NULL
#define U4(a, b, c, d) 4, {a, b, c, d}, NULL

/* Four ports, two adders that compete on a shared port (ADD_A on 0|1,
 * ADD_B on 1|2), multi-µop and non-pipelined forms. */
static const char *const overlap_ports[] = {"p0", "p1", "p2", "p3"};
static const struct sim_form overlap_forms[] = {
    {"ADD_A", U1(P(0) | P(1))},
    {"ADD_B", U1(P(1) | P(2))},
    {"MUL", U1(P(1))},
    {"SHIFT", U1(P(0) | P(2))},
    {"MOV", U1(P(0) | P(1) | P(2))},
    {"LOAD", U1(P(3))},
    {"LOAD_ADD", U2(P(3), P(0) | P(1))},
    {"STORE", U2(P(3), P(2))},
    {"DIV", U3(P(0), P(0), P(0))},
    {"TRIPLE", U3(P(0), P(1), P(2))},
    {"JMP", 0, {0}, "control flow cannot be benchmarked"},
};

/* Skylake-like: ALUs on 0,1,5,6, loads on 2,3, store data on 4, store
 * address on 2,3,7, vector units on 0,1,5, four µops dispatched per cycle. */
static const char *const intel_ports[] = {"p0", "p1", "p2", "p3", "p4", "p5", "p6", "p7"};
#define ALU (P(0) | P(1) | P(5) | P(6))
#define LD (P(2) | P(3))
#define STA (P(2) | P(3) | P(7))
static const struct sim_form intel_forms[] = {
    {"ADD_GPR64_GPR64", U1(ALU)},
    {"SUB_GPR64_GPR64", U1(ALU)},
    {"IMUL_GPR64_GPR64", U1(P(1))},
    {"POPCNT_GPR64_GPR64", U1(P(1))},
    {"SHL_GPR64_IMM8", U1(P(0) | P(6))},
    {"LEA_GPR64_M64", U1(P(1) | P(5))},
    {"MOV_GPR64_M64", U1(LD)},
    {"MOV_M64_GPR64", U2(P(4), STA)},
    {"ADD_GPR64_M64", U2(LD, ALU)},
    {"ADC_GPR64_GPR64", U2(P(0) | P(6), ALU)},
    {"XCHG_GPR64_GPR64", U3(ALU, ALU, ALU)},
    {"ADDSD_XMM_XMM", U1(P(0) | P(1))},
    {"MULSD_XMM_XMM", U1(P(0) | P(1))},
    {"VFMADD231PD_YMM_YMM_YMM", U1(P(0) | P(1))},
    {"PSHUFD_XMM_XMM_IMM8", U1(P(5))},
    {"MOVD_XMM_GPR32", U1(P(5))},
    {"PADDD_XMM_XMM", U1(P(0) | P(1) | P(5))},
    {"PBLENDVB_XMM_XMM", U2(P(0) | P(1) | P(5), P(0) | P(1) | P(5))},
    {"CVTSI2SD_XMM_GPR64", U2(P(0) | P(1), P(5))},
    {"DIVSD_XMM_XMM", U4(P(0), P(0), P(0), P(0))},
    {"JMP_REL32", 0, {0}, "control flow cannot be benchmarked"},
};

/* Zen-like: four ALUs (0-3), two AGUs (4,5), four FP pipes (6-9) where
 * multiplies use 6|7, adds 8|9 and shuffles 7|8, six µops dispatched per
 * cycle. Mixing multiplies, adds and shuffles saturates the four pipes
 * together, a resource that no pair of forms reveals. */
static const char *const zen_ports[] = {"alu0", "alu1", "alu2", "alu3", "agu0",
					"agu1", "fp0",	"fp1",	"fp2",	"fp3"};
#define ZALU (P(0) | P(1) | P(2) | P(3))
#define ZAGU (P(4) | P(5))
#define FP(a, b) (P(6 + (a)) | P(6 + (b)))
#define FPALL (P(6) | P(7) | P(8) | P(9))
static const struct sim_form zen_forms[] = {
    {"ADD_GPR64_GPR64", U1(ZALU)},
    {"AND_GPR64_GPR64", U1(ZALU)},
    {"IMUL_GPR64_GPR64", U1(P(1))},
    {"SHL_GPR64_IMM8", U1(P(1) | P(2))},
    {"POPCNT_GPR64_GPR64", U1(P(0) | P(3))},
    {"LEA_GPR64_M64", U1(ZALU)},
    {"XCHG_GPR64_GPR64", U2(ZALU, ZALU)},
    {"MOV_GPR64_M64", U1(ZAGU)},
    {"MOV_M64_GPR64", U1(P(5))},
    {"ADD_GPR64_M64", U2(ZAGU, ZALU)},
    {"ADD_M64_GPR64", U3(ZAGU, ZALU, P(5))},
    {"MULSD_XMM_XMM", U1(FP(0, 1))},
    {"VFMADD231PD_YMM_YMM_YMM", U1(FP(0, 1))},
    {"ADDSD_XMM_XMM", U1(FP(2, 3))},
    {"PSHUFD_XMM_XMM_IMM8", U1(FP(1, 2))},
    {"VPERMILPS_XMM_XMM_IMM8", U1(FP(1, 2))},
    {"PADDD_XMM_XMM", U1(FPALL)},
    {"PXOR_XMM_XMM", U1(FPALL)},
    {"CVTSI2SD_XMM_GPR64", U2(ZALU, FP(2, 3))},
    {"DIVSD_XMM_XMM", U3(P(7), P(7), P(7))},
    {"ROUNDSD_XMM_XMM_IMM8", U2(FP(1, 2), FP(1, 2))},
    {"MOVQ_GPR64_XMM", U1(P(8))},
    {"JMP_REL32", 0, {0}, "control flow cannot be benchmarked"},
    {"CPUID", 0, {0}, "serialising instruction cannot be benchmarked"},
};

static const struct sim_machine machines[] = {
    {"overlap", "simulated: overlap", "4 ports, adders competing on a shared port", 4,
     overlap_ports, 0, overlap_forms, ARRAY_SIZE(overlap_forms), NULL, 0},
    {"intel", "simulated: intel", "Skylake-like, 8 ports, 4-wide dispatch", 8, intel_ports, 4,
     intel_forms, ARRAY_SIZE(intel_forms), NULL, 0},
    {"zen", "simulated: zen", "Zen-like, 10 ports, 6-wide dispatch", 10, zen_ports, 6, zen_forms,
     ARRAY_SIZE(zen_forms), NULL, 0},
};

const struct sim_machine *sim_machine_at(size_t i)
{
	if (i == ARRAY_SIZE(machines))
		return sim_catalogue();
	return i < ARRAY_SIZE(machines) ? &machines[i] : NULL;
}

const struct sim_machine *sim_find(const char *name)
{
	for (size_t i = 0; sim_machine_at(i); i++)
		if (!strcmp(sim_machine_at(i)->name, name))
			return sim_machine_at(i);
	return NULL;
}

const struct sim_form *sim_find_form(const struct sim_machine *m, const char *form)
{
	for (size_t i = 0; i < m->nforms; i++)
		if (!strcmp(m->forms[i].name, form))
			return &m->forms[i];
	return NULL;
}

/* µop counts per port mask: count[mask]. */
static int uop_counts(const struct sim_machine *m, const struct kernel *k, double *count,
		      double *total)
{
	*total = 0;
	if (k->n == 0)
		return perpi_set_error("empty kernel");
	for (size_t t = 0; t < k->n; t++) {
		const struct sim_form *f = sim_find_form(m, k->terms[t].form);
		if (!f)
			return perpi_set_error("form %s: not in simulated machine '%s'",
					       k->terms[t].form, m->name);
		if (f->unsupported)
			return perpi_set_error("form %s: %s", f->name, f->unsupported);
		for (unsigned u = 0; u < f->nuops; u++) {
			count[f->ports[u] & ~SIM_FUSED] += k->terms[t].count;
			*total += f->ports[u] & SIM_FUSED ? 0 : k->terms[t].count;
		}
	}
	return 0;
}

int sim_cycles(const struct sim_machine *m, const struct kernel *k, double *cycles)
{
	size_t nsets = (size_t)1 << m->nports;
	double *load = xcalloc(nsets, sizeof(*load)), total;
	if (uop_counts(m, k, load, &total) < 0) {
		free(load);
		return -1;
	}
	/* Sum over subsets: load[S] = µops whose port mask lies inside S. */
	for (unsigned p = 0; p < m->nports; p++)
		for (size_t s = 0; s < nsets; s++)
			if (s & ((size_t)1 << p))
				load[s] += load[s ^ ((size_t)1 << p)];
	double best = m->width ? total / m->width : 0;
	for (size_t s = 1; s < nsets; s++) {
		double c = load[s] / __builtin_popcountl(s);
		if (c > best)
			best = c;
	}
	free(load);
	*cycles = best;
	return 0;
}

int sim_cycles_lp(const struct sim_machine *m, const struct kernel *k, double *cycles)
{
	size_t nsets = (size_t)1 << m->nports, ngroups = 0, nvars = 1;
	double *count = xcalloc(nsets, sizeof(*count)), total;
	if (uop_counts(m, k, count, &total) < 0) {
		free(count);
		return -1;
	}
	/* Variables: T, then x[mask][port] for every used mask and its ports. */
	for (size_t s = 1; s < nsets; s++)
		if (count[s] > 0)
			nvars += __builtin_popcountl(s), ngroups++;
	struct lp *lp = lp_new(nvars, 0);
	double *row = xcalloc(nvars, sizeof(*row));
	lp_set_objective(lp, 0, 1.0);
	for (unsigned p = 0; p < m->nports; p++) {
		size_t v = 1;
		for (size_t j = 0; j < nvars; j++)
			row[j] = 0;
		row[0] = -1.0;
		for (size_t s = 1; s < nsets; s++) {
			if (count[s] <= 0)
				continue;
			for (unsigned q = 0; q < m->nports; q++)
				if (s & ((size_t)1 << q)) {
					if (q == p)
						row[v] = 1.0;
					v++;
				}
		}
		lp_add_row(lp, row, -INFINITY, 0.0); /* port p busy at most T */
	}
	size_t v = 1;
	for (size_t s = 1; s < nsets; s++) {
		if (count[s] <= 0)
			continue;
		for (size_t j = 0; j < nvars; j++)
			row[j] = 0;
		for (unsigned q = 0; q < m->nports; q++)
			if (s & ((size_t)1 << q))
				row[v++] = 1.0;
		lp_add_row(lp, row, count[s], count[s]); /* every µop issued */
	}
	if (m->width) {
		for (size_t j = 0; j < nvars; j++)
			row[j] = 0;
		row[0] = m->width;
		lp_add_row(lp, row, total, INFINITY);
	}
	int rc = lp_solve(lp, NULL, cycles);
	lp_delete(lp);
	free(row);
	free(count);
	return rc;
}

static int sim_measure_cycles(void *ctx, const struct kernel *k, double *cycles)
{
	return sim_cycles(ctx, k, cycles);
}

void sim_measure(const struct sim_machine *m, struct measure *out)
{
	out->ctx = (void *)m;
	out->cycles = sim_measure_cycles;
	out->cpu = m->cpu;
	out->cycles_many = NULL;
	out->repetitions = NULL;
	out->refused = NULL;
}

static int sim_noisy_cycles(void *ctx, const struct kernel *k, double *cycles)
{
	const struct sim_noisy *n = ctx;
	if (sim_cycles(n->machine, k, cycles) < 0)
		return -1;
	char *spec = kernel_to_string(k);
	uint64_t h = 1469598103934665603ULL; /* FNV-1a */
	for (const char *p = spec; *p; p++)
		h = (h ^ (unsigned char)*p) * 1099511628211ULL;
	free(spec);
	double u = (double)(h >> 11) / (double)(1ULL << 53); /* [0, 1) */
	*cycles *= 1 + n->noise * (2 * u - 1);
	return 0;
}

void sim_measure_noisy(struct sim_noisy *noisy, struct measure *out)
{
	out->ctx = noisy;
	out->cycles = sim_noisy_cycles;
	out->cpu = noisy->machine->cpu;
	out->cycles_many = NULL;
	out->repetitions = NULL;
	out->refused = NULL;
}
