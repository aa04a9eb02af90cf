/* Forms that run only beside helper instructions (mul, div, adc, cdqe,
 * cmpxchg: gen_plan.c breaks their implicit chains with a zero idiom, sets
 * a division's dividend): mapped with their helpers, as one pseudo-form
 * whose usages the probes read like any other, then the helpers' usages
 * taken off. The model adds usages (a kernel loads each resource by the
 * sum of its forms' usages), so form + helpers measured together is
 * exactly what the model says of the form beside them. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common/util.h"
#include "palmed/infer_map_private.h"

static int by_name(const void *key, const void *t)
{
	return strcmp(key, ((const struct target *)t)->name);
}

/* The targets are sorted by name (measure_singles). */
static const struct target *find_target(const struct mapping *mp, const char *form)
{
	return mp->nt ? bsearch(form, mp->t, mp->nt, sizeof(*mp->t), by_name) : NULL;
}

char *map_helpers_expected(const struct mapping *mp, const struct kernel *k)
{
	struct kernel want, h;
	kernel_init(&want);
	for (size_t i = 0; i < k->n; i++) {
		const struct target *t = find_target(mp, k->terms[i].form);
		if (!t || !t->helpers || kernel_parse(t->helpers, &h) < 0)
			continue;
		for (size_t j = 0; j < h.n; j++)
			kernel_add(&want, h.terms[j].form, h.terms[j].count * k->terms[i].count);
		kernel_done(&h);
	}
	char *spec = want.n ? kernel_to_string(&want) : NULL;
	kernel_done(&want);
	return spec;
}

/* Whether every helper of t is a form whose usages the mapping knows
 * without helpers of its own: a core form, or a target measured alone. */
static int helpers_known(const struct mapping *mp, const struct target *t)
{
	struct kernel h;
	if (kernel_parse(t->helpers, &h) < 0)
		return 0;
	int known = 1;
	for (size_t j = 0; j < h.n && known; j++) {
		const struct target *ht = find_target(mp, h.terms[j].form);
		known = model_form_index(mp->m, h.terms[j].form) >= 0 || (ht && !ht->helpers);
	}
	kernel_done(&h);
	return known;
}

void map_helpers_check(struct mapping *mp)
{
	unsigned char *drop = xcalloc(mp->nt + 1, 1);
	for (size_t i = 0; i < mp->nt; i++)
		drop[i] = mp->t[i].helpers && !helpers_known(mp, &mp->t[i]);
	size_t kept = 0;
	for (size_t i = 0; i < mp->nt; i++) {
		struct target *t = &mp->t[i];
		if (!drop[i]) {
			mp->t[kept++] = *t;
			continue;
		}
		char *why =
		    xasprintf("timed with helpers (%s), which the model does not map", t->helpers);
		model_add_unmapped(mp->m, t->name, why);
		free(why);
		free(t->name);
		free(t->upper);
		free(t->exact);
		free(t->helpers);
	}
	mp->nt = kept;
	free(drop);
}

void map_helpers_subtract(struct mapping *mp)
{
	struct model *m = mp->m;
	for (size_t i = 0; i < mp->nt; i++) {
		const struct target *t = &mp->t[i];
		struct kernel h;
		long f = t->helpers ? model_form_index(m, t->name) : -1;
		if (f < 0 || kernel_parse(t->helpers, &h) < 0)
			continue;
		double top = 0;
		for (size_t r = 0; r < m->nres; r++) {
			double x = model_rho(m, (size_t)f, r);
			for (size_t j = 0; j < h.n; j++) {
				long hf = model_form_index(m, h.terms[j].form);
				if (hf >= 0)
					x -= h.terms[j].count * model_rho(m, (size_t)hf, r);
			}
			x = x < mp->o->tol * t->single ? 0 : x;
			model_set_rho(m, (size_t)f, r, x);
			top = fmax(top, x);
		}
		/* its cycles alone, as the model now predicts them */
		m->form_cycles[f] = top > 0 ? top : t->single;
		mp->stats->with_helpers++;
		kernel_done(&h);
	}
}
