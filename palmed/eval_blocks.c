/* The held-out kernels of recorded runs' basic blocks: see eval_blocks.h. */
#include "palmed/eval_blocks.h"

#include <stdlib.h>
#include <string.h>

#include "common/util.h"
#include "ilp/blocks.h"
#include "ilp/trace_file.h"
#include "palmed/eval.h"
#include "palmed/form.h"
#include "palmed/lift.h"

/* A block as the kernels need it: its non-control instructions. */
struct eb_insn {
	long form; /* index into eb->forms, -1: no decoder names it */
	uint64_t events;
};

struct eb_block {
	size_t n;
	struct eb_insn *insns;
};

struct eval_blocks {
	char **forms; /* distinct, in order of appearance */
	unsigned char *refused;
	size_t nforms;
	const char **sorted; /* eval_blocks_forms' view */
	struct eb_block *blocks;
	size_t nblocks;
	size_t runs;
	uint64_t insns, control;
};

struct eval_blocks *eval_blocks_new(void)
{
	return xcalloc(1, sizeof(struct eval_blocks));
}

void eval_blocks_delete(struct eval_blocks *eb)
{
	if (!eb)
		return;
	for (size_t i = 0; i < eb->nforms; i++)
		free(eb->forms[i]);
	for (size_t i = 0; i < eb->nblocks; i++)
		free(eb->blocks[i].insns);
	free(eb->forms);
	free(eb->refused);
	free(eb->sorted);
	free(eb->blocks);
	free(eb);
}

static long find_form(const struct eval_blocks *eb, const char *name)
{
	for (size_t i = 0; i < eb->nforms; i++)
		if (!strcmp(eb->forms[i], name))
			return (long)i;
	return -1;
}

static long intern_form(struct eval_blocks *eb, const char *name)
{
	long i = find_form(eb, name);
	if (i >= 0)
		return i;
	eb->forms = xrealloc(eb->forms, (eb->nforms + 1) * sizeof(*eb->forms));
	eb->refused = xrealloc(eb->refused, eb->nforms + 1);
	eb->forms[eb->nforms] = xstrdup(name);
	eb->refused[eb->nforms] = 0;
	return (long)eb->nforms++;
}

static void add_block(struct eval_blocks *eb, const struct block *blk)
{
	struct eb_block *out;
	char name[FORM_NAME_MAX];
	eb->blocks = xrealloc(eb->blocks, (eb->nblocks + 1) * sizeof(*eb->blocks));
	out = &eb->blocks[eb->nblocks++];
	out->n = 0;
	out->insns = xcalloc(blk->n + 1, sizeof(*out->insns));
	for (size_t i = 0; i < blk->n; i++) {
		const struct perpi_insn *insn = blk->insns[i];
		eb->insns += blk->events[i];
		if (insn->control != CTRL_NONE) {
			eb->control += blk->events[i];
			continue;
		}
		struct eb_insn *e = &out->insns[out->n++];
		e->events = blk->events[i];
		e->form = lift_insn_form(insn->bytes, insn->len, insn->addr, name, sizeof(name)) < 0
			      ? -1
			      : intern_form(eb, name);
	}
}

int eval_blocks_read(struct eval_blocks *eb, const char *path)
{
	struct trace_reader *r = trace_reader_open(path);
	if (!r)
		return -1;
	struct blocks *b = blocks_new();
	int rc = trace_reader_replay(r, blocks_event, b);
	if (rc == 0) {
		const struct block *blk;
		blocks_finish(b);
		size_t n = blocks_list(b, &blk);
		if (n == 0)
			rc = perpi_set_error("%s: no instruction recorded (an empty trace?)", path);
		for (size_t i = 0; i < n; i++)
			add_block(eb, &blk[i]);
		eb->runs++;
	} else if (rc > 0) {
		rc = perpi_set_error("%s: the replay stopped early", path);
	}
	blocks_delete(b);
	trace_reader_close(r);
	return rc < 0 ? -1 : 0;
}

static int by_string(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

size_t eval_blocks_forms(const struct eval_blocks *eb, const char *const **forms)
{
	struct eval_blocks *w = (struct eval_blocks *)eb; /* the view is a cache */
	w->sorted = xrealloc(w->sorted, (eb->nforms + 1) * sizeof(*w->sorted));
	for (size_t i = 0; i < eb->nforms; i++)
		w->sorted[i] = eb->forms[i];
	qsort(w->sorted, eb->nforms, sizeof(*w->sorted), by_string);
	*forms = w->sorted;
	return eb->nforms;
}

void eval_blocks_refuse(struct eval_blocks *eb, const char *form)
{
	long i = find_form(eb, form);
	if (i >= 0)
		eb->refused[i] = 1;
}

/* The block's kernel; *kept: the dynamic instructions of what it kept. */
static void block_kernel(const struct eval_blocks *eb, const struct eb_block *blk, struct kernel *k,
			 uint64_t *kept)
{
	kernel_init(k);
	*kept = 0;
	for (size_t i = 0; i < blk->n; i++) {
		long f = blk->insns[i].form;
		if (f < 0 || eb->refused[f])
			continue;
		kernel_add(k, eb->forms[f], 1);
		*kept += blk->insns[i].events;
	}
}

static int by_spec(const void *a, const void *b)
{
	return strcmp(((const struct eval_block_kernel *)a)->spec,
		      ((const struct eval_block_kernel *)b)->spec);
}

static int by_weight(const void *a, const void *b)
{
	const struct eval_block_kernel *x = a, *y = b;
	if (x->weight != y->weight)
		return x->weight < y->weight ? 1 : -1;
	return strcmp(x->spec, y->spec);
}

/* Merges kernels of the same spec (weights and block counts add). */
static size_t merge_same(struct eval_block_kernel *v, size_t n)
{
	size_t u = 0;
	qsort(v, n, sizeof(*v), by_spec);
	for (size_t i = 0; i < n; i++) {
		if (u && !strcmp(v[u - 1].spec, v[i].spec)) {
			v[u - 1].weight += v[i].weight;
			v[u - 1].blocks += v[i].blocks;
			kernel_done(&v[i].kernel);
			free(v[i].spec);
		} else {
			v[u++] = v[i];
		}
	}
	qsort(v, u, sizeof(*v), by_weight);
	return u;
}

size_t eval_blocks_kernels(const struct eval_blocks *eb, const struct model *exclude,
			   struct eval_block_kernel **out, struct eval_blocks_stats *st)
{
	struct eval_block_kernel *v = xcalloc(eb->nblocks + 1, sizeof(*v));
	size_t n = 0;
	memset(st, 0, sizeof(*st));
	st->runs = eb->runs;
	st->blocks = eb->nblocks;
	st->insns = eb->insns;
	st->control = eb->control;
	for (size_t b = 0; b < eb->nblocks; b++) {
		struct eval_block_kernel *k = &v[n];
		uint64_t all = 0;
		for (size_t i = 0; i < eb->blocks[b].n; i++)
			all += eb->blocks[b].insns[i].events;
		block_kernel(eb, &eb->blocks[b], &k->kernel, &k->weight);
		st->unrunnable += all - k->weight;
		if (k->kernel.n == 0) {
			st->empty_blocks++;
			kernel_done(&k->kernel);
			continue;
		}
		k->spec = kernel_to_string(&k->kernel);
		if (eval_model_measured(exclude, k->spec)) {
			st->built += k->weight;
			st->built_blocks++;
			kernel_done(&k->kernel);
			free(k->spec);
			continue;
		}
		st->held_out += k->weight;
		st->held_out_blocks++;
		k->blocks = 1;
		n++;
	}
	n = merge_same(v, n);
	*out = v;
	return n;
}

void eval_block_kernels_free(struct eval_block_kernel *v, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		kernel_done(&v[i].kernel);
		free(v[i].spec);
	}
	free(v);
}
