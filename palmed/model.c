#include "palmed/model.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/util.h"
#include "palmed/form.h"

struct model *model_new(const char *cpu)
{
	struct model *m = xcalloc(1, sizeof(*m));
	m->cpu = xstrdup(cpu ? cpu : "unknown");
	return m;
}

void model_delete(struct model *m)
{
	if (!m)
		return;
	for (size_t i = 0; i < m->nforms; i++)
		free(m->forms[i]);
	for (size_t r = 0; r < m->nres; r++) {
		free(m->res[r].name);
		free(m->res[r].kernel);
	}
	for (size_t i = 0; i < m->nunmapped; i++) {
		free(m->unmapped[i].form);
		free(m->unmapped[i].reason);
	}
	for (size_t i = 0; i < m->nmeas; i++)
		free(m->meas[i].kernel);
	free(m->forms);
	free(m->form_cycles);
	free(m->res);
	free(m->rho);
	free(m->unmapped);
	free(m->meas);
	free(m->meas_path);
	for (size_t i = 0; i < m->nstrings; i++)
		free(m->strings[i].form);
	free(m->strings);
	for (size_t c = 0; c < m->ncores; c++)
		model_delete(m->cores[c]);
	free(m->cores);
	free(m->cpu);
	free(m);
}

void model_add_core(struct model *m, struct model *core)
{
	m->cores = xrealloc(m->cores, (m->ncores + 1) * sizeof(*m->cores));
	m->cores[m->ncores++] = core;
}

/* rho is capforms rows of capres entries; more resources than capres
 * re-lay it out, more forms only extend it (both double their capacity:
 * a catalogue model adds thousands of forms). */
static void grow_rho(struct model *m, size_t capforms, size_t capres)
{
	double *rho = xcalloc(capforms * capres > 0 ? capforms * capres : 1, sizeof(*rho));
	for (size_t i = 0; i < m->nforms; i++)
		memcpy(rho + i * capres, m->rho + i * m->capres, m->nres * sizeof(*rho));
	free(m->rho);
	m->rho = rho;
	m->capforms = capforms;
	m->capres = capres;
}

size_t model_add_form(struct model *m, const char *form, double cycles)
{
	if (m->nforms == m->capforms) {
		size_t cap = m->capforms ? 2 * m->capforms : 64;
		grow_rho(m, cap, m->capres ? m->capres : 16);
		m->forms = xrealloc(m->forms, cap * sizeof(*m->forms));
		m->form_cycles = xrealloc(m->form_cycles, cap * sizeof(*m->form_cycles));
	}
	m->sorted = m->nforms == 0 || (m->sorted && strcmp(m->forms[m->nforms - 1], form) < 0);
	m->forms[m->nforms] = xstrdup(form);
	m->form_cycles[m->nforms] = cycles;
	return m->nforms++;
}

size_t model_add_resource(struct model *m, const char *name, const char *kernel)
{
	if (m->nres == m->capres)
		grow_rho(m, m->capforms, m->capres ? 2 * m->capres : 16);
	m->res = xrealloc(m->res, (m->nres + 1) * sizeof(*m->res));
	m->res[m->nres].name = xstrdup(name);
	m->res[m->nres].kernel = kernel ? xstrdup(kernel) : NULL;
	return m->nres++;
}

void model_set_rho(struct model *m, size_t form, size_t res, double rho)
{
	m->rho[form * m->capres + res] = rho;
}

double model_rho(const struct model *m, size_t form, size_t res)
{
	return m->rho[form * m->capres + res];
}

static const struct model *sorting;

static int by_name(const void *a, const void *b)
{
	return strcmp(sorting->forms[*(const size_t *)a], sorting->forms[*(const size_t *)b]);
}

void model_sort(struct model *m)
{
	if (m->sorted)
		return;
	size_t n = m->nforms, *order = xmalloc((n + 1) * sizeof(size_t));
	for (size_t i = 0; i < n; i++)
		order[i] = i;
	sorting = m;
	qsort(order, n, sizeof(size_t), by_name);
	char **forms = xmalloc((m->capforms + 1) * sizeof(char *));
	double *cycles = xmalloc((m->capforms + 1) * sizeof(double));
	double *rho = xcalloc(m->capforms * m->capres + 1, sizeof(double));
	for (size_t i = 0; i < n; i++) {
		forms[i] = m->forms[order[i]];
		cycles[i] = m->form_cycles[order[i]];
		memcpy(rho + i * m->capres, m->rho + order[i] * m->capres,
		       m->nres * sizeof(double));
	}
	free(m->forms);
	free(m->form_cycles);
	free(m->rho);
	m->forms = forms;
	m->form_cycles = cycles;
	m->rho = rho;
	m->sorted = 1;
	free(order);
}

void model_add_unmapped(struct model *m, const char *form, const char *reason)
{
	m->unmapped = xrealloc(m->unmapped, (m->nunmapped + 1) * sizeof(*m->unmapped));
	m->unmapped[m->nunmapped].form = xstrdup(form);
	m->unmapped[m->nunmapped].reason = xstrdup(reason);
	m->nunmapped++;
}

void model_set_string(struct model *m, const char *form, double start, double iteration)
{
	size_t i = 0;
	while (i < m->nstrings && strcmp(m->strings[i].form, form))
		i++;
	if (i == m->nstrings) {
		m->strings = xrealloc(m->strings, (m->nstrings + 1) * sizeof(*m->strings));
		m->strings[m->nstrings++].form = xstrdup(form);
	}
	m->strings[i].start = start;
	m->strings[i].iteration = iteration;
}

double model_string_scale(const struct model *m, size_t i, double n)
{
	for (size_t s = 0; s < m->nstrings; s++)
		if (!strcmp(m->strings[s].form, m->forms[i]) && n > 0 && m->form_cycles[i] > 0)
			return (m->strings[s].start / n + m->strings[s].iteration) /
			       m->form_cycles[i];
	return 1;
}

void model_add_measurement(struct model *m, const char *kernel, double cycles)
{
	if (m->nmeas == m->capmeas) {
		m->capmeas = m->capmeas ? 2 * m->capmeas : 1024;
		m->meas = xrealloc(m->meas, m->capmeas * sizeof(*m->meas));
	}
	m->meas[m->nmeas].kernel = xstrdup(kernel);
	m->meas[m->nmeas].cycles = cycles;
	m->nmeas++;
	m->meas_sorted = 0;
}

void model_add_run(struct model *m, const struct kernel *k, const char *helpers, double cycles)
{
	struct kernel all;
	kernel_with(k, helpers, &all);
	char *spec = kernel_to_string(&all);
	model_add_measurement(m, spec, cycles);
	free(spec);
	kernel_done(&all);
}

static int by_kernel(const void *a, const void *b)
{
	return strcmp(((const struct model_measurement *)a)->kernel,
		      ((const struct model_measurement *)b)->kernel);
}

void model_sort_measurements(struct model *m)
{
	qsort(m->meas, m->nmeas, sizeof(*m->meas), by_kernel);
	m->meas_sorted = 1;
}

int model_measured(const struct model *m, const char *spec)
{
	if (!m || !m->nmeas)
		return 0;
	struct model_measurement key = {(char *)spec, 0};
	if (m->meas_sorted)
		return bsearch(&key, m->meas, m->nmeas, sizeof(*m->meas), by_kernel) != NULL;
	for (size_t i = 0; i < m->nmeas; i++)
		if (!strcmp(m->meas[i].kernel, spec))
			return 1;
	return 0;
}

long model_form_index(const struct model *m, const char *form)
{
	if (m->sorted) {
		size_t lo = 0, hi = m->nforms;
		while (lo < hi) {
			size_t mid = lo + (hi - lo) / 2;
			int c = strcmp(m->forms[mid], form);
			if (c == 0)
				return (long)mid;
			if (c < 0)
				lo = mid + 1;
			else
				hi = mid;
		}
		return -1;
	}
	for (size_t i = 0; i < m->nforms; i++)
		if (!strcmp(m->forms[i], form))
			return (long)i;
	return -1;
}

long model_form_lookup(const struct model *m, const char *form)
{
	long i = model_form_index(m, form);
	char base[FORM_NAME_MAX];
	if (i < 0 && form_name_unindexed(form, base, sizeof(base)))
		i = model_form_index(m, base);
	return i;
}

#define FRONT_BINDS 0.95 /* a usage this close to the form's cycles binds it */

/* NOP's usage of r when NOP loads it for share of its cycles alone or
 * more, else -1. */
static double nop_usage(const struct model *m, size_t r, double share)
{
	long nop = model_form_index(m, "NOP");
	if (nop < 0)
		return -1;
	double rho = model_rho(m, (size_t)nop, r);
	return rho >= share * m->form_cycles[nop] ? rho : -1;
}

/* The cycle model's front end: the resources a NOP binds. Until
 * 2026-12-06 those it loads for half its cycles: the Zen 4's model 8 gave
 * NOP 0.057 cycles of the vector pipes' resource (0.084 alone), and the
 * cycle model took those pipes at dispatch: vprorvq zmm x3 beside
 * vpcmpgtw k, zmm, [m] x4 and vpshldd ymm x4 ran 1.67 instructions a
 * cycle, predicted 2.84 (model 7: 1.67; the independent kernels' cycle
 * row 14.5%, model 7's 10.1%). The build's split keeps the half
 * (model_nop_loads): with the binding rule there, a 12-form model of
 * tests/palmed/real.sh came out 9.7-10.9% off the harness, 9.0-9.3%
 * with the half. */
static double nop_slot(const struct model *m, size_t r)
{
	return nop_usage(m, r, FRONT_BINDS);
}

double model_front_slot(const struct model *m, size_t r)
{
	return nop_slot(m, r);
}

int model_front_end(const struct model *m, size_t r)
{
	return nop_slot(m, r) >= 0;
}

int model_nop_loads(const struct model *m, size_t r)
{
	return nop_usage(m, r, 0.5) >= 0;
}

/* A usage binds its form alone when it is within FRONT_BINDS of the
 * form's cycles or of its largest usage: on a Zen 3 the store
 * MOV_M64_GPR64 (0.500 cycles alone) was mapped onto the register moves'
 * resource, which NOP loads, with 0.468: capped at a NOP's slot, the model
 * said a store alone takes 0.171 cycles, three times faster than it ran. */
static int binds_alone(const struct model *m, size_t i, double rho)
{
	if (rho >= FRONT_BINDS * m->form_cycles[i])
		return 1;
	for (size_t r = 0; r < m->nres; r++)
		if (model_rho(m, i, r) > rho / FRONT_BINDS)
			return 0;
	return rho > 0;
}

double model_rho_slot(const struct model *m, size_t i, size_t r)
{
	double rho = model_rho(m, i, r), slot;
	if ((slot = nop_slot(m, r)) < 0 || binds_alone(m, i, rho))
		return rho;
	return rho < slot ? rho : slot;
}

void model_forget_unmapped(struct model *m, const char *form)
{
	size_t kept = 0;
	for (size_t i = 0; i < m->nunmapped; i++) {
		if (strcmp(m->unmapped[i].form, form)) {
			m->unmapped[kept++] = m->unmapped[i];
			continue;
		}
		free(m->unmapped[i].form);
		free(m->unmapped[i].reason);
	}
	m->nunmapped = kept;
}

const char *model_unmapped_reason(const struct model *m, const char *form)
{
	for (size_t i = 0; i < m->nunmapped; i++)
		if (!strcmp(m->unmapped[i].form, form))
			return m->unmapped[i].reason;
	return NULL;
}

void prediction_done(struct prediction *p)
{
	for (size_t i = 0; i < p->nuncovered; i++)
		free(p->uncovered[i]);
	free(p->uncovered);
	free(p->bottlenecks);
	free(p->core_cycles);
	memset(p, 0, sizeof(*p));
}

/* The commit cycles of a kernel whose stores go to other lines in turn
 * (form_stores_in_turn), with m->store_turn cycles for each store that
 * goes to another line than the store before beyond the half cycle a
 * store takes beside one to its line; 0 for any other kernel or model.
 * Spread through a body as the generator spreads a kernel's instances,
 * a plain stores and b pushes (a <= b, or the other way round) go to
 * other lines a + max(a, b/2) times a copy, and r read-modify-writes
 * (each a line of its own) beside x other stores r + x where x <= r, r +
 * max(r, x/2) past it: the Zen 4 runs `MOV_M64_GPR64^a PUSH_GPR64^b` in
 * 2.0, 2.0, 2.5, 2.5 cycles for a = 1, b = 1..4, 4.0 for a = b = 2, 6.0
 * for a = b = 3; `ADD_M64_IMM8^r MOV_M64_GPR64^x` 2.0 for r = x = 1, 3.0
 * for r = 2, x = 1, 4.0 for x = 2..4 (docs/BENCHMARKS.md, "The Zen 4,
 * stores in turn"). The bound is the stores' half cycles (a whole one for
 * a read-modify-write) and store_turn of the cycles past them, rmw_turn
 * where it is more and the read-modify-writes are at least as many as the
 * other stores (the Zen 5's `ADD_M64_IMM8^r MOV_M64_GPR64^x`: 2.08, 3.09,
 * 4.17, 6.19 cycles for r = x = 1, r = 2 x = 1, r = x = 2, r = x = 3; with
 * more plain stores than that, two stores a cycle: 1.50 for r = 1, x = 2,
 * 2.50 for x = 4: docs/BENCHMARKS.md, "The Zen 5, a read-modify-write
 * beside stores"). */
static double store_turn_bound(const struct model *m, const struct kernel *k, const double *scale)
{
	double n[FORM_STORE_STACK + 1] = {0};
	unsigned kinds = 0;
	if (!(m->store_turn > 0) && !(m->rmw_turn > 0))
		return 0;
	for (size_t t = 0; t < k->n; t++) {
		struct form f;
		if (model_form_lookup(m, k->terms[t].form) < 0 ||
		    form_parse(k->terms[t].form, &f) < 0)
			continue;
		enum form_store_kind s = form_store_kind(&f);
		kinds |= 1u << s;
		n[s] += k->terms[t].count * (scale ? scale[t] : 1);
	}
	if (!form_store_kinds_in_turn(kinds))
		return 0;
	double plain = n[FORM_STORE_PLAIN], rmw = n[FORM_STORE_RMW], stack = n[FORM_STORE_STACK];
	double x = plain + stack, lin = rmw + x / 2, all;
	if (rmw > 0)
		all = rmw + (x <= rmw ? x : fmax(rmw, x / 2));
	else
		all = fmin(plain, stack) + fmax(fmin(plain, stack), fmax(plain, stack) / 2);
	double bound = m->store_turn > 0 ? lin + m->store_turn * fmax(0, all - lin) : 0;
	if (m->rmw_turn > 0 && rmw > 0 && plain > 0 && plain <= rmw) /* pushes keep to their half */
		bound = fmax(bound, lin + m->rmw_turn * plain / 2);
	return bound;
}

int model_predict(const struct model *m, const struct kernel *k, struct prediction *out)
{
	return model_predict_scaled(m, k, NULL, out);
}

/* model_predict_scaled of one core: m's own resources. */
static int predict_core(const struct model *m, const struct kernel *k, const double *scale,
			struct prediction *out)
{
	memset(out, 0, sizeof(*out));
	if (k->n == 0)
		return perpi_set_error("empty block: nothing to predict");
	double *load = xcalloc(m->nres + 1, sizeof(*load));
	for (size_t t = 0; t < k->n; t++) {
		long i = model_form_lookup(m, k->terms[t].form);
		out->total += k->terms[t].count;
		if (i < 0) {
			out->uncovered = xrealloc(out->uncovered,
						  (out->nuncovered + 1) * sizeof(*out->uncovered));
			out->uncovered[out->nuncovered++] = xstrdup(k->terms[t].form);
			continue;
		}
		out->covered += k->terms[t].count;
		double times = k->terms[t].count * (scale ? scale[t] : 1);
		for (size_t r = 0; r < m->nres; r++)
			load[r] += times * model_rho(m, (size_t)i, r);
	}
	if (out->covered == 0) { /* fails owning nothing (model.h) */
		free(load);
		perpi_set_error("no instruction of the block is covered by the model "
				"(first unknown form: %s)",
				out->uncovered[0]);
		prediction_done(out);
		return -1;
	}
	for (size_t r = 0; r < m->nres; r++)
		if (load[r] > out->cycles)
			out->cycles = load[r];
	out->bottlenecks = xcalloc(m->nres + 1, sizeof(*out->bottlenecks));
	double turn = store_turn_bound(m, k, scale);
	if (turn > out->cycles * (1 + 1e-3)) {
		out->cycles = turn;
		out->store_turn = 1;
	}
	for (size_t r = 0; r < m->nres; r++)
		if (out->cycles > 0 && load[r] >= out->cycles * (1 - 1e-3))
			out->bottlenecks[out->nbottlenecks++] = r;
	out->ipc = out->cycles > 0 ? out->covered / out->cycles : INFINITY;
	free(load);
	return 0;
}

/* Whether core c maps every form of k that m maps, and no other: its
 * cycles are of the same instructions. */
static int core_covers(const struct model *m, const struct model *c, const struct kernel *k)
{
	for (size_t t = 0; t < k->n; t++)
		if ((model_form_lookup(m, k->terms[t].form) >= 0) !=
		    (model_form_lookup(c, k->terms[t].form) >= 0))
			return 0;
	return 1;
}

int model_predict_scaled(const struct model *m, const struct kernel *k, const double *scale,
			 struct prediction *out)
{
	if (predict_core(m, k, scale, out) < 0)
		return -1;
	out->ncore_cycles = 1;
	if (!m->ncores) /* one core: no list to allocate (a build predicts often) */
		return 0;
	out->ncore_cycles = 0;
	out->core_cycles = xmalloc((m->ncores + 1) * sizeof(*out->core_cycles));
	out->core_cycles[out->ncore_cycles++] = out->cycles;
	double sum = out->cycles;
	for (size_t c = 0; c < m->ncores; c++) {
		struct prediction p;
		if (!core_covers(m, m->cores[c], k) || predict_core(m->cores[c], k, scale, &p) < 0)
			continue;
		out->core_cycles[out->ncore_cycles++] = p.cycles;
		sum += p.cycles;
		prediction_done(&p);
	}
	out->cycles = sum / (double)out->ncore_cycles;
	out->ipc = out->cycles > 0 ? out->covered / out->cycles : INFINITY;
	return 0;
}

static char *cpuinfo_field(const char *text, const char *key)
{
	size_t klen = strlen(key);
	for (const char *p = text; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL) {
		if (strncmp(p, key, klen) != 0)
			continue;
		const char *colon = strchr(p, ':'), *end = strchr(p, '\n');
		if (!colon || (end && colon > end))
			continue;
		colon++;
		while (*colon == ' ' || *colon == '\t')
			colon++;
		size_t len = end ? (size_t)(end - colon) : strlen(colon);
		char *v = xmalloc(len + 1);
		memcpy(v, colon, len);
		v[len] = '\0';
		return v;
	}
	return xstrdup("?");
}

char *model_host_cpu(void)
{
	FILE *f = fopen("/proc/cpuinfo", "r");
	char buf[8192];
	size_t n = f ? fread(buf, 1, sizeof(buf) - 1, f) : 0;
	if (f)
		fclose(f);
	buf[n] = '\0';
	char *vendor = cpuinfo_field(buf, "vendor_id"), *family = cpuinfo_field(buf, "cpu family");
	char *model = cpuinfo_field(buf, "model\t"), *name = cpuinfo_field(buf, "model name");
	char *stepping = cpuinfo_field(buf, "stepping");
	char *id = xasprintf("%s family %s model %s stepping %s: %s", vendor, family, model,
			     stepping, name);
	free(vendor);
	free(family);
	free(model);
	free(name);
	free(stepping);
	return id;
}

int model_check_cpu(const struct model *m)
{
	char *host = model_host_cpu();
	int differs = strcmp(host, m->cpu) != 0;
	if (differs)
		perpi_warn("model was built for CPU '%s' but this is '%s': its predictions "
			   "describe that CPU, not this one",
			   m->cpu, host);
	free(host);
	return differs;
}
