/* Lifting a Palmed model to a traced run: see lift.h. */
#include "palmed/lift.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common/util.h"
#include "ilp/trace_file.h"
#include "palmed/form.h"

struct lift {
	const struct model *m;
	const struct blocks *b;
	struct lift_block *blocks; /* per block of b */
	size_t nblocks;
};

int lift_insn_form(const uint8_t *bytes, size_t len, uint64_t addr, char *buf, size_t size)
{
	struct form f;
	if (form_from_bytes(bytes, len, &f, NULL) < 0)
		return perpi_set_error(
		    "instruction at 0x%llx: neither Capstone nor Zydis decodes it",
		    (unsigned long long)addr);
	form_print(&f, buf, size);
	return 0;
}

/* How many times a block's kernel takes its instruction i: once, or for
 * a REP string instruction its iterations per occurrence of the block
 * (each one a dynamic instruction, DESIGN.md; a REP form's cycles in the
 * model are an iteration's: gen_plan.c runs rcx of them): a memset of 1 KiB
 * is 1,024 iterations, not one. A model that timed the form at two
 * lengths then gives those iterations one start (predict_block). */
static unsigned rep_iterations(const struct block *blk, size_t i, const char *form)
{
	if (strncmp(form, "REP", 3) || blk->occurrences == 0)
		return 1;
	double per = (double)blk->events[i] / (double)blk->occurrences;
	return per < 1.5 ? 1 : per > 1e9 ? 1000000000u : (unsigned)llround(per);
}

/* The block's kernel (each static instruction's form once per occurrence,
 * a REP string instruction's once per iteration; no dependency: Palmed's
 * throughput) and its prediction. */
static void predict_block(const struct model *m, const struct block *blk, struct lift_block *out)
{
	struct kernel k;
	struct prediction p;
	char name[FORM_NAME_MAX];
	kernel_init(&k);
	out->forms = xcalloc(blk->n, sizeof(*out->forms));
	out->mapped = xcalloc(blk->n, 1);
	for (size_t i = 0; i < blk->n; i++) {
		const struct perpi_insn *insn = blk->insns[i];
		if (lift_insn_form(insn->bytes, insn->len, insn->addr, name, sizeof(name)) < 0)
			continue;
		out->forms[i] = xstrdup(name);
		out->mapped[i] = model_form_lookup(m, name) >= 0;
		kernel_add(&k, name, rep_iterations(blk, i, name));
	}
	/* a REP form timed at two lengths: one execution of its iterations
	 * per occurrence, its start included (model_string_scale) */
	double *scale = xmalloc((k.n + 1) * sizeof(double));
	for (size_t t = 0; t < k.n; t++) {
		long f = model_form_lookup(m, k.terms[t].form);
		scale[t] = f < 0 ? 1 : model_string_scale(m, (size_t)f, k.terms[t].count);
	}
	if (k.n && model_predict_scaled(m, &k, scale, &p) == 0) {
		out->cycles = p.cycles;
		out->nbottlenecks = p.nbottlenecks;
		out->bottlenecks = p.bottlenecks;
		p.bottlenecks = NULL;
		prediction_done(&p);
	} /* else nothing covered: no cycles, all counted as uncovered; p owns nothing */
	free(scale);
	kernel_done(&k);
}

struct lift *lift_new(const struct model *m, const struct blocks *b)
{
	struct lift *l = xcalloc(1, sizeof(*l));
	const struct block *blk;
	l->m = m;
	l->b = b;
	l->nblocks = blocks_list(b, &blk);
	l->blocks = xcalloc(l->nblocks + 1, sizeof(*l->blocks));
	for (size_t i = 0; i < l->nblocks; i++)
		predict_block(m, &blk[i], &l->blocks[i]);
	return l;
}

void lift_delete(struct lift *l)
{
	if (!l)
		return;
	const struct block *blk;
	blocks_list(l->b, &blk);
	for (size_t i = 0; i < l->nblocks; i++) {
		for (size_t k = 0; k < blk[i].n; k++)
			free(l->blocks[i].forms[k]);
		free(l->blocks[i].forms);
		free(l->blocks[i].mapped);
		free(l->blocks[i].bottlenecks);
	}
	free(l->blocks);
	free(l);
}

const struct lift_block *lift_block(const struct lift *l, size_t block)
{
	return block < l->nblocks ? &l->blocks[block] : NULL;
}

/* Adds occurrences of block (with events per instruction) to out; the
 * block's cycles go to its bottleneck resources, split evenly on a tie. */
static void add_block(const struct lift *l, size_t block, uint64_t occurrences,
		      const uint64_t *events, struct lift_figures *out, double *weight)
{
	const struct block *blk;
	blocks_list(l->b, &blk);
	const struct lift_block *lb = &l->blocks[block];
	for (size_t i = 0; i < blk[block].n; i++) {
		out->insns += events[i];
		out->control += blk[block].insns[i]->control != CTRL_NONE ? events[i] : 0;
		out->covered += lb->mapped[i] ? events[i] : 0;
	}
	double cycles = occurrences * lb->cycles;
	out->cycles += cycles;
	for (size_t k = 0; k < lb->nbottlenecks; k++)
		weight[lb->bottlenecks[k]] += cycles / lb->nbottlenecks;
}

static void set_bottleneck(const struct lift *l, const double *weight, struct lift_figures *out)
{
	out->bottleneck = -1;
	for (size_t r = 0; r < l->m->nres; r++)
		if (weight[r] > 0 && (out->bottleneck < 0 || weight[r] > weight[out->bottleneck]))
			out->bottleneck = (long)r;
}

void lift_total(const struct lift *l, struct lift_figures *out)
{
	const struct block *blk;
	double *weight = xcalloc(l->m->nres + 1, sizeof(*weight));
	memset(out, 0, sizeof(*out));
	blocks_list(l->b, &blk);
	for (size_t i = 0; i < l->nblocks; i++)
		add_block(l, i, blk[i].occurrences, blk[i].events, out, weight);
	set_bottleneck(l, weight, out);
	free(weight);
}

void lift_block_figures(const struct lift *l, size_t block, struct lift_figures *out)
{
	const struct block *blk;
	double *weight = xcalloc(l->m->nres + 1, sizeof(*weight));
	memset(out, 0, sizeof(*out));
	blocks_list(l->b, &blk);
	if (block < l->nblocks)
		add_block(l, block, blk[block].occurrences, blk[block].events, out, weight);
	set_bottleneck(l, weight, out);
	free(weight);
}

void lift_function(const struct lift *l, uint64_t entry, struct lift_figures *out)
{
	const struct blocks_function *f = blocks_function(l->b, entry);
	double *weight = xcalloc(l->m->nres + 1, sizeof(*weight));
	memset(out, 0, sizeof(*out));
	for (size_t s = 0; f && s < f->n; s++)
		add_block(l, f->shares[s].block, f->shares[s].occurrences, f->shares[s].events, out,
			  weight);
	set_bottleneck(l, weight, out);
	free(weight);
}

double lift_coverage(const struct lift_figures *f)
{
	uint64_t could = f->insns - f->control;
	return could ? (double)f->covered / (double)could : 1.0;
}

const char *lift_uncovered_reason(const struct model *m, const char *form)
{
	struct form f;
	const char *why;
	if (!form)
		return "neither Capstone nor Zydis decodes it";
	char base[FORM_NAME_MAX];
	if ((why = model_unmapped_reason(m, form)))
		return why;
	if (form_name_unindexed(form, base, sizeof(base)) &&
	    (why = model_unmapped_reason(m, base)))
		return why;
	if (form_parse(form, &f) == 0 && (why = form_unsupported_reason(&f)))
		return why;
	return "not in the model (a model of every form this CPU can benchmark: 'perpi palmed "
	       "build')";
}

struct tally {
	struct lift_uncovered *v;
	size_t n;
};

static void tally_add(const struct lift *l, struct tally *t, const char *form, uint64_t count)
{
	for (size_t i = 0; i < t->n; i++)
		if (form == t->v[i].form || (form && t->v[i].form && !strcmp(form, t->v[i].form))) {
			t->v[i].count += count;
			return;
		}
	t->v = xrealloc(t->v, (t->n + 1) * sizeof(*t->v));
	t->v[t->n].form = form;
	t->v[t->n].reason = lift_uncovered_reason(l->m, form);
	t->v[t->n++].count = count;
}

static void tally_block(const struct lift *l, struct tally *t, size_t block, const uint64_t *events)
{
	const struct block *blk;
	blocks_list(l->b, &blk);
	const struct lift_block *lb = &l->blocks[block];
	for (size_t i = 0; i < blk[block].n; i++)
		if (!lb->mapped[i] && blk[block].insns[i]->control == CTRL_NONE && events[i])
			tally_add(l, t, lb->forms[i], events[i]);
}

static int by_count(const void *a, const void *b)
{
	const struct lift_uncovered *x = a, *y = b;
	if (x->count != y->count)
		return x->count > y->count ? -1 : 1;
	return strcmp(x->form ? x->form : "", y->form ? y->form : "");
}

size_t lift_uncovered_forms(const struct lift *l, enum lift_scope scope, uint64_t id,
			    struct lift_uncovered **out)
{
	struct tally t = {NULL, 0};
	const struct block *blk;
	blocks_list(l->b, &blk);
	if (scope == LIFT_RUN) {
		for (size_t i = 0; i < l->nblocks; i++)
			tally_block(l, &t, i, blk[i].events);
	} else if (scope == LIFT_BLOCK && id < l->nblocks) {
		tally_block(l, &t, (size_t)id, blk[id].events);
	} else if (scope == LIFT_FUNCTION) {
		const struct blocks_function *f = blocks_function(l->b, id);
		for (size_t s = 0; f && s < f->n; s++)
			tally_block(l, &t, f->shares[s].block, f->shares[s].events);
	}
	if (t.n)
		qsort(t.v, t.n, sizeof(*t.v), by_count);
	*out = t.v;
	return t.n;
}

/* ---- the forms of a recorded run ---- */

struct form_collect {
	const struct perpi_insn **seen; /* by insn id */
	size_t cap;
};

static int collect_insn(void *ctx, const struct perpi_event *ev)
{
	struct form_collect *c = ctx;
	if (ev->insn->id >= c->cap) {
		size_t cap = c->cap ? c->cap : 256;
		while (cap <= ev->insn->id)
			cap *= 2;
		c->seen = xrealloc(c->seen, cap * sizeof(*c->seen));
		memset(c->seen + c->cap, 0, (cap - c->cap) * sizeof(*c->seen));
		c->cap = cap;
	}
	c->seen[ev->insn->id] = ev->insn;
	return 0;
}

static int by_string(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

int lift_trace_forms(const char *path, char ***forms, size_t *n, size_t *undecoded)
{
	struct form_collect c = {0};
	struct trace_reader *r = trace_reader_open(path);
	*forms = NULL;
	*n = *undecoded = 0;
	if (!r)
		return -1;
	if (trace_reader_replay(r, collect_insn, &c) < 0) {
		trace_reader_close(r);
		free(c.seen);
		return -1;
	}
	char **v = xmalloc((c.cap + 1) * sizeof(*v));
	size_t k = 0;
	char name[FORM_NAME_MAX];
	for (size_t i = 0; i < c.cap; i++) {
		if (!c.seen[i])
			continue;
		if (lift_insn_form(c.seen[i]->bytes, c.seen[i]->len, c.seen[i]->addr, name,
				   sizeof(name)) < 0)
			(*undecoded)++;
		else
			v[k++] = xstrdup(name);
	}
	trace_reader_close(r);
	free(c.seen);
	qsort(v, k, sizeof(*v), by_string);
	size_t u = 0;
	for (size_t i = 0; i < k; i++) {
		if (u && !strcmp(v[u - 1], v[i]))
			free(v[i]);
		else
			v[u++] = v[i];
	}
	if (!u) {
		free(v);
		return perpi_set_error("%s: no instruction to model (an empty trace?)", path);
	}
	*forms = v;
	*n = u;
	return 0;
}
