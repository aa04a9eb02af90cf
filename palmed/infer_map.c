/* The mapping stage: see infer_map.h; the bases are infer_map_bases.c. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common/util.h"
#include "palmed/form.h"
#include "palmed/infer.h"
#include "palmed/infer_map_private.h"

/* Forms probed together: the probes of a chunk are one list to measure
 * (far faster on a real machine), and a chunk bounds the memory. */
#define CHUNK 128
/* Copies of a base at most, for a form slower alone than a share of it. */
#define MAX_COPIES 64
#define MAX_INSTANCES 64

void infer_map_options_default(struct infer_map_options *o, double tol)
{
	o->tol = tol;
	o->min_margin = 0.2;
	o->max_base = 32;
	o->exhaustive = 0;
	o->max_probes = 24;
	o->no_siblings = 0;
	o->no_locked = 0;
	o->planned_after = 0;
	o->width = 0;
}

/* The measurement as it ran: k and its helpers. */
static void log_measurement(struct mapping *mp, const struct kernel *k, const char *helpers,
			    double cycles)
{
	model_add_run(mp->m, k, helpers, cycles);
	mp->stats->benchmarks++;
}

int map_measure_helpers(struct mapping *mp, const struct kernel *ks, size_t n, double *cycles,
			int *status, char **errors, char **helpers)
{
	size_t done = infer_meter_run_helpers(mp->mt, ks, n, cycles, status, errors, helpers);
	for (size_t i = 0; i < done; i++)
		if (status[i] == 0)
			log_measurement(mp, &ks[i], helpers[i], cycles[i]);
	return done < n ? perpi_set_error("interrupted") : 0;
}

/* How many more helper instances got holds than want, all of one form
 * (*form, allocated); 0 when none more, -1 when they differ otherwise. */
static long extra_helpers(const char *got, const char *want, char **form)
{
	struct kernel g, w;
	long more = 0;
	*form = NULL;
	if (kernel_parse(got, &g) < 0)
		return -1;
	kernel_init(&w); /* kernel_parse refuses an empty kernel */
	if (want[0] && kernel_parse(want, &w) < 0) {
		kernel_done(&g);
		return -1;
	}
	/* every helper the targets take alone ran */
	for (size_t j = 0; j < w.n && more == 0; j++)
		if (kernel_count(&g, w.terms[j].form) < w.terms[j].count)
			more = -1;
	for (size_t i = 0; i < g.n && more >= 0; i++) {
		unsigned had = kernel_count(&w, g.terms[i].form);
		if (g.terms[i].count == had)
			continue;
		if (*form) {
			more = -1;
			break;
		}
		*form = xstrdup(g.terms[i].form);
		more = (long)(g.terms[i].count - had);
	}
	if (more <= 0) {
		free(*form);
		*form = NULL;
	}
	kernel_done(&g);
	kernel_done(&w);
	return more;
}

int map_measure_extra(struct mapping *mp, const struct kernel *ks, size_t n, double *cycles,
		      int *status, char **errors, unsigned *extra, char **extra_form)
{
	char **helpers = xcalloc(n + 1, sizeof(char *));
	int rc = map_measure_helpers(mp, ks, n, cycles, status, errors, helpers);
	for (size_t i = 0; i < n; i++) {
		char *want = status[i] == 0 ? map_helpers_expected(mp, &ks[i]) : NULL;
		const char *got = helpers[i] ? helpers[i] : "";
		if (extra) {
			extra[i] = 0;
			extra_form[i] = NULL;
		}
		if (status[i] == 0 && strcmp(got, want ? want : "")) {
			long more = extra ? extra_helpers(got, want ? want : "", &extra_form[i]) : -1;
			if (more > 0) {
				extra[i] = (unsigned)more;
			} else {
				status[i] = -1;
				errors[i] = xasprintf("timed with helpers (%s), not its forms' (%s)",
						      got[0] ? got : "none", want ? want : "none");
			}
		}
		free(want);
		free(helpers[i]);
	}
	free(helpers);
	return rc;
}

int map_measure(struct mapping *mp, const struct kernel *ks, size_t n, double *cycles, int *status,
		char **errors)
{
	return map_measure_extra(mp, ks, n, cycles, status, errors, NULL, NULL);
}

void map_batch_init(struct batch *b, size_t n)
{
	b->n = n;
	b->ks = xcalloc(n + 1, sizeof(*b->ks));
	b->cycles = xcalloc(n + 1, sizeof(double));
	b->status = xcalloc(n + 1, sizeof(int));
	b->errors = xcalloc(n + 1, sizeof(char *));
}

void map_batch_done(struct batch *b)
{
	for (size_t i = 0; i < b->n; i++) {
		kernel_done(&b->ks[i]);
		free(b->errors[i]);
	}
	free(b->ks);
	free(b->cycles);
	free(b->status);
	free(b->errors);
}

static int by_string(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* Whether the mapping measures form: not in the model, and not unmapped
 * by the core for a reason the mapping cannot overcome (the core refuses
 * forms timed with helpers; the mapping takes them: infer_map_helpers.c). */
static int to_map(const struct model *m, const char *form)
{
	const char *why = model_unmapped_reason(m, form);
	return model_form_index(m, form) < 0 && (!why || !strncmp(why, "timed with helpers", 18));
}

/* Each form alone; the ones the machine refuses are unmapped with the
 * reason. */
static int measure_singles(struct mapping *mp, const char *const *forms, size_t nforms)
{
	const char **todo = xmalloc((nforms + 1) * sizeof(char *));
	size_t n = 0;
	for (size_t i = 0; i < nforms; i++)
		if (to_map(mp->m, forms[i]))
			todo[n++] = forms[i];
	qsort(todo, n, sizeof(char *), by_string);
	struct batch b;
	map_batch_init(&b, n);
	size_t distinct = 0;
	for (size_t i = 0; i < n; i++)
		if (!distinct || strcmp(todo[i], todo[distinct - 1]))
			todo[distinct++] = todo[i];
	b.n = distinct;
	for (size_t i = 0; i < distinct; i++)
		kernel_add(&b.ks[i], todo[i], 1);
	mp->stats->forms = (unsigned)distinct;
	infer_meter_label(mp->mt, "mapping: %zu forms alone", distinct);
	char **helpers = xcalloc(distinct + 1, sizeof(char *));
	int rc = map_measure_helpers(mp, b.ks, b.n, b.cycles, b.status, b.errors, helpers);
	mp->t = xcalloc(distinct + 1, sizeof(*mp->t));
	for (size_t i = 0; rc == 0 && i < distinct; i++) {
		model_forget_unmapped(mp->m, todo[i]);
		if (b.status[i] < 0) {
			model_add_unmapped(mp->m, todo[i], b.errors[i]);
			continue;
		}
		struct target *t = &mp->t[mp->nt++];
		t->name = xstrdup(todo[i]);
		t->single = b.cycles[i];
		t->helpers = helpers[i];
		t->sibling = -1;
		t->twin = -1;
		helpers[i] = NULL;
		t->upper = xmalloc((mp->core.R + 1) * sizeof(double));
		t->exact = xmalloc((mp->core.R + 1) * sizeof(double));
		for (size_t r = 0; r < mp->core.R; r++) {
			t->upper[r] = INFINITY;
			t->exact[r] = NAN;
		}
	}
	for (size_t i = 0; i < distinct; i++)
		free(helpers[i]);
	free(helpers);
	if (rc == 0)
		map_helpers_check(mp);
	mp->stats->singles = (unsigned)mp->nt;
	map_batch_done(&b);
	free(todo);
	return rc;
}

/* A base whose group is hardly the bottleneck (two resources the noise
 * made nearly equal, one inside the group and one out) would time the
 * probed form's own bottleneck, not the group's: not used. */
static int probeable(const struct map_base *b)
{
	return b->cycles > 0 && b->margin >= 0.1;
}

/* A base measured slower than the core's model says by more than this
 * share runs at a bottleneck the model does not hold (on the Zen 4, a
 * read-modify-write add beside 256-bit stores: 4.85 cycles, the model
 * 2.0): its probes would time that, not its group. */
#define BASE_SLOW 0.15

static int slow_base(const struct map_base *b)
{
	return b->cycles > b->T * (1 + BASE_SLOW);
}

/* A base the machine refused (a flag reader beside a flag writer gets
 * helpers: the ALUs' base of the Zen 4's model 7 held cmovne beside test,
 * and the ALUs, a group of their own, were probed for no form) or that
 * runs slower than its model. */
static int bad_base(const struct map_base *b)
{
	return !(b->cycles > 0) || slow_base(b);
}

/* A chain of bases made again for bad base `of`: each leaves out one of
 * its forms, then every form the LP brought in instead, while what it
 * makes is bad (banning cmovne brought in setne: the flag readers go one
 * at a time). */
struct rebase {
	size_t of;
	unsigned char *ban; /* core forms left out */
	double *prev;	    /* the multiplicities of the last kernel tried */
	struct map_base cand;
	int live;
};

#define REBASE_ROUNDS 4

static int rebase_round(struct mapping *mp, struct rebase *ch, size_t nch, long *best)
{
	struct map_core *c = &mp->core;
	size_t n = 0, *which = xmalloc((nch + 1) * sizeof(size_t));
	for (size_t k = 0; k < nch; k++) {
		if (!ch[k].live || best[ch[k].of] >= 0) {
			ch[k].live = 0;
			continue;
		}
		memcpy(c->banned, ch[k].ban, c->n);
		if (map_base_again(c, mp->o, &mp->bases[ch[k].of], &ch[k].cand) == 0)
			which[n++] = k;
		else
			ch[k].live = 0;
	}
	memset(c->banned, 0, c->n);
	struct batch b;
	map_batch_init(&b, n);
	for (size_t q = 0; q < n; q++)
		map_base_kernel(c, &ch[which[q]].cand, 1, &b.ks[q]);
	if (n)
		infer_meter_label(mp->mt, "mapping: %zu bases again without forms of a bad one", n);
	int rc = n ? map_measure(mp, b.ks, b.n, b.cycles, b.status, b.errors) : 0;
	mp->stats->bases += (unsigned)n;
	for (size_t q = 0; rc == 0 && q < n; q++) {
		struct rebase *r = &ch[which[q]];
		r->cand.cycles = b.status[q] == 0 ? b.cycles[q] : 0;
		if (getenv("PERPI_MAP_DEBUG")) {
			char *spec = kernel_to_string(&b.ks[q]);
			fprintf(stderr,
				"base %zu again: [%s] T %.3f margin %.3f measured %.3f%s%s\n",
				r->of, spec, r->cand.T, r->cand.margin, r->cand.cycles,
				b.errors[q] ? ": " : "", b.errors[q] ? b.errors[q] : "");
			free(spec);
		}
		if (!bad_base(&r->cand)) {
			long *bb = &best[r->of];
			if (*bb < 0 || r->cand.margin > ch[*bb].cand.margin)
				*bb = (long)which[q];
			r->live = 0;
			continue;
		}
		int brought = 0;
		for (size_t j = 0; j < c->n; j++)
			if (r->cand.sigma[j] > 0.5 && !(r->prev[j] > 0.5)) {
				r->ban[j] = 1;
				brought = 1;
			}
		memcpy(r->prev, r->cand.sigma, c->n * sizeof(double));
		r->live = brought;
	}
	/* the candidates of this round that are not kept */
	for (size_t q = 0; q < n; q++) {
		struct rebase *r = &ch[which[q]];
		if (best[r->of] != (long)which[q])
			map_base_done(&r->cand);
	}
	free(which);
	map_batch_done(&b);
	return rc;
}

/* Each bad base made again without one of its forms, each in turn (and
 * the forms the LP then brings in, up to REBASE_ROUNDS times); the one
 * the model times right with the largest margin takes its place. A bad
 * base left is not used (its group probed resource by resource). */
static int replace_bad_bases(struct mapping *mp)
{
	size_t n = mp->core.n, nch = 0, cap = 1;
	for (size_t i = 0; i < mp->nbases; i++)
		for (size_t j = 0; j < n && bad_base(&mp->bases[i]); j++)
			cap += mp->bases[i].sigma[j] > 0.5;
	struct rebase *ch = xcalloc(cap, sizeof(*ch));
	long *best = xmalloc((mp->nbases + 1) * sizeof(long));
	for (size_t i = 0; i < mp->nbases; i++) {
		best[i] = -1;
		mp->stats->bad_bases += bad_base(&mp->bases[i]);
		for (size_t j = 0; j < n && bad_base(&mp->bases[i]); j++) {
			if (!(mp->bases[i].sigma[j] > 0.5))
				continue;
			struct rebase *r = &ch[nch++];
			r->of = i;
			r->ban = xcalloc(n + 1, 1);
			r->ban[j] = 1;
			r->prev = xmalloc((n + 1) * sizeof(double));
			memcpy(r->prev, mp->bases[i].sigma, n * sizeof(double));
			r->live = 1;
		}
	}
	int rc = 0;
	for (unsigned round = 0; rc == 0 && round < REBASE_ROUNDS; round++)
		rc = rebase_round(mp, ch, nch, best);
	for (size_t i = 0; i < mp->nbases; i++) {
		if (rc == 0 && best[i] >= 0) {
			struct map_base old = mp->bases[i];
			mp->bases[i] = ch[best[i]].cand;
			ch[best[i]].cand = old;
			mp->stats->rebased++;
		} else if (slow_base(&mp->bases[i])) {
			mp->bases[i].cycles = 0;
		}
	}
	for (size_t k = 0; k < nch; k++) {
		map_base_done(&ch[k].cand);
		free(ch[k].ban);
		free(ch[k].prev);
	}
	free(ch);
	free(best);
	return rc;
}

/* The bases, measured; a base the machine refuses or that runs slow is
 * replaced, or left out. */
static int measure_bases(struct mapping *mp)
{
	struct batch b;
	map_batch_init(&b, mp->nbases);
	for (size_t i = 0; i < mp->nbases; i++)
		map_base_kernel(&mp->core, &mp->bases[i], 1, &b.ks[i]);
	infer_meter_label(mp->mt, "mapping: %zu base kernels", mp->nbases);
	int rc = map_measure(mp, b.ks, b.n, b.cycles, b.status, b.errors);
	for (size_t i = 0; i < mp->nbases; i++)
		mp->bases[i].cycles = b.status[i] == 0 ? b.cycles[i] : 0;
	mp->stats->bases = (unsigned)mp->nbases;
	mp->stats->groups = (unsigned)mp->ngroups;
	if (rc == 0)
		rc = replace_bad_bases(mp);
	for (size_t g = 0; g < mp->ngroups; g++)
		mp->stats->groups_apart += !probeable(&mp->bases[g]);
	map_batch_done(&b);
	return rc;
}

/* How many copies of base b and instances of target t: the instances add
 * a share of the base's cycles below its margin, so no resource outside
 * its group can become the bottleneck; a form slower alone than that
 * share is added once to enough copies of the base. */
static void plan_probe(const struct mapping *mp, size_t t, size_t b, struct probe *p)
{
	const struct map_base *base = &mp->bases[b];
	double share = fmin(0.5, fmax(0.1, 0.8 * base->margin)) * base->cycles;
	p->target = t;
	p->base = b;
	if (mp->t[t].single <= share) {
		p->copies = 1;
		p->instances =
		    (unsigned)fmin(MAX_INSTANCES, fmax(1, floor(share / mp->t[t].single)));
	} else {
		p->instances = 1;
		p->copies = (unsigned)fmin(MAX_COPIES, ceil(mp->t[t].single / share));
	}
}

static void probe_kernel(const struct mapping *mp, const struct probe *p, struct kernel *k)
{
	map_base_kernel(&mp->core, &mp->bases[p->base], p->copies, k);
	kernel_add(k, mp->t[p->target].name, p->instances);
}

/* What probe p (cycles c) says about its target's usage of its base's
 * group: the usage of the most used resource, 0 below the noise. */
static void read_probe(struct mapping *mp, const struct probe *p, double c, int group)
{
	struct target *t = &mp->t[p->target];
	const struct map_base *base = &mp->bases[p->base];
	double before = p->copies * base->cycles;
	/* what the width explains is no resource's (a dispatch-bound probe
	 * read as a usage of its base's) */
	if (mp->width > 0) {
		double size = p->instances;
		for (size_t j = 0; j < mp->core.n; j++)
			size += p->copies * base->sigma[j];
		before = fmax(before, size / mp->width);
	}
	double added = c - before;
	double v = added / p->instances, tol = mp->o->tol;
	int positive = added > 2 * tol * c && v > tol * t->single;
	/* the form alone outweighed the base: its own bottleneck timed it */
	if (p->instances * t->single > p->copies * base->cycles * (1 + base->margin))
		mp->stats->unreliable++;
	v = positive ? fmin(v, t->single) : 0;
	for (size_t a = 0; a < base->nres; a++) {
		size_t r = base->res[a];
		if (base->nres == 1)
			t->exact[r] = v;
		else
			t->upper[r] = fmin(t->upper[r], v);
	}
	if (group >= 0 && positive && base->nres > 1)
		t->refine[group] = 1;
}

/* Palmed's way, to measure what the groups cost: every resource of group
 * g alone (the group itself for the ones with no base of their own). */
static size_t plan_every_resource(const struct mapping *mp, size_t t, size_t g, struct probe *p)
{
	size_t n = 0, whole = 0;
	for (size_t a = 0; a < mp->bases[g].nres; a++) {
		long s = mp->single_of[mp->bases[g].res[a]];
		if (s >= 0 && probeable(&mp->bases[s]))
			plan_probe(mp, t, (size_t)s, &p[n++]);
		else
			whole = 1;
	}
	if (whole && probeable(&mp->bases[g]))
		plan_probe(mp, t, g, &p[n++]);
	return n;
}

/* The helper cost of every base that probes p[i] with extra helpers
 * ran on and that has none yet: base and helpers as in the first such
 * probe, less the base alone, per helper. */
static int measure_helper_costs(struct mapping *mp, const struct probe *p, size_t np,
				const struct batch *pb, const unsigned *extra, char *const *extra_form)
{
	struct batch b;
	size_t *which = xmalloc((mp->nbases + 1) * sizeof(size_t)), n = 0;
	unsigned char *queued = xcalloc(mp->nbases + 1, 1);
	for (size_t i = 0; i < np; i++)
		if (pb->status[i] == 0 && extra[i] && !mp->bases[p[i].base].helper &&
		    !queued[p[i].base]) {
			queued[p[i].base] = 1;
			which[n++] = i;
		}
	map_batch_init(&b, n);
	for (size_t k = 0; k < n; k++) {
		const struct probe *q = &p[which[k]];
		map_base_kernel(&mp->core, &mp->bases[q->base], q->copies, &b.ks[k]);
		kernel_add(&b.ks[k], extra_form[which[k]], extra[which[k]]);
	}
	if (n)
		infer_meter_label(mp->mt, "mapping: %zu bases beside zero idioms", n);
	int rc = n ? map_measure(mp, b.ks, b.n, b.cycles, b.status, b.errors) : 0;
	for (size_t k = 0; rc == 0 && k < n; k++) {
		const struct probe *q = &p[which[k]];
		struct map_base *base = &mp->bases[q->base];
		double added = b.cycles[k] - q->copies * base->cycles;
		base->helper = xstrdup(extra_form[which[k]]);
		base->helper_cost = b.status[k] == 0 ? fmax(0, added / extra[which[k]]) : NAN;
	}
	map_batch_done(&b);
	free(which);
	free(queued);
	return rc;
}

/* Probes that ran beside more helpers than their target takes alone (a
 * flag reader beside a base that writes flags gets a zero idiom before
 * each instance: gen_plan.c): the helpers' cycles on the base are taken
 * off, or the probe is left out when they are not known. */
static int take_helpers_off(struct mapping *mp, const struct probe *p, size_t np, struct batch *b,
			    const unsigned *extra, char *const *extra_form)
{
	int rc = measure_helper_costs(mp, p, np, b, extra, extra_form);
	for (size_t i = 0; rc == 0 && i < np; i++) {
		if (b->status[i] != 0 || !extra[i])
			continue;
		const struct map_base *base = &mp->bases[p[i].base];
		if (base->helper && !strcmp(base->helper, extra_form[i]) &&
		    isfinite(base->helper_cost)) {
			b->cycles[i] -= extra[i] * base->helper_cost;
			mp->stats->beside_helpers++;
		} else {
			b->status[i] = -1;
		}
	}
	return rc;
}

/* Probes targets [from, to) against every group, then the groups that
 * read positive resource by resource. */
static int probe_chunk(struct mapping *mp, size_t from, size_t to)
{
	size_t G = mp->ngroups, cap = (to - from) * (G + mp->core.R) + 1, np = 0;
	struct probe *p = xmalloc(cap * sizeof(*p));
	int rc = 0;
	if (mp->nprobed)
		cap = (to - from) * mp->nprobed + 1;
	p = xrealloc(p, cap * sizeof(*p));
	for (size_t t = from; t < to; t++) {
		mp->t[t].refine = xcalloc(G + 1, 1);
		if (mp->t[t].sibling >= 0 || mp->t[t].twin >= 0)
			continue; /* its usages are the sibling's, or its twin's */
		for (size_t k = 0; k < mp->nprobed; k++)
			plan_probe(mp, t, mp->probed[k], &p[np++]);
		/* a group whose base cannot be used (the machine refused it: a
		 * flagged mix, a spread; or its margin is too small) is probed
		 * resource by resource: left out, its resources would read
		 * zero for every form */
		for (size_t g = 0; g < G && !mp->nprobed; g++)
			if (mp->o->exhaustive || !probeable(&mp->bases[g]))
				np += plan_every_resource(mp, t, g, &p[np]);
			else
				plan_probe(mp, t, g, &p[np++]);
	}
	for (int round = 0; round < (mp->o->exhaustive || mp->nprobed ? 1 : 2) && rc == 0;
	     round++) {
		struct batch b;
		map_batch_init(&b, np);
		for (size_t i = 0; i < np; i++)
			probe_kernel(mp, &p[i], &b.ks[i]);
		infer_meter_label(mp->mt, "mapping: forms %zu-%zu of %zu, %s", from + 1, to, mp->nt,
				  round ? "resource by resource" : "against each group");
		unsigned *extra = xcalloc(np + 1, sizeof(unsigned));
		char **extra_form = xcalloc(np + 1, sizeof(char *));
		rc = map_measure_extra(mp, b.ks, b.n, b.cycles, b.status, b.errors, extra,
				       extra_form);
		if (rc == 0)
			rc = take_helpers_off(mp, p, np, &b, extra, extra_form);
		for (size_t i = 0; rc == 0 && i < np; i++)
			if (b.status[i] == 0)
				read_probe(mp, &p[i], b.cycles[i], round ? -1 : (int)p[i].base);
		for (size_t i = 0; i < np; i++)
			free(extra_form[i]);
		free(extra);
		free(extra_form);
		mp->stats->probes += (unsigned)np;
		mp->stats->refined += round ? (unsigned)np : 0;
		map_batch_done(&b);
		/* the next round: the resources of the positive groups, alone */
		size_t next = 0;
		for (size_t t = from; t < to && !round; t++)
			for (size_t g = 0; g < G; g++)
				for (size_t a = 0; mp->t[t].refine[g] && a < mp->bases[g].nres;
				     a++) {
					long s = mp->single_of[mp->bases[g].res[a]];
					if (s >= 0 && probeable(&mp->bases[s]))
						plan_probe(mp, t, (size_t)s, &p[next++]);
				}
		np = next;
	}
	free(p);
	return rc;
}

/* The share of a form's cycles alone its largest usage must reach for
 * the resources to explain the form (mapped or core): below it, the form
 * is bounded by a resource of its own. One tolerance (2% on a real
 * machine): a usage read that much low is the form's bottleneck. Until
 * 2026-12-06 it was 7.5 tolerances (15%), and a form bound alone by a unit
 * of its own a little above its share of a resource took the resource
 * for its cycles alone: the Zen 4's insertps (2.75 a cycle alone, the
 * vector pipes' resource read at 0.28-0.33 of its 0.36 cycles) made each
 * of its mixes with pipe forms too slow (`insertps` x3 + `vblendmps` x2 +
 * `vpsrld` x3: 2.0 cycles, predicted 2.55, 2.31 now). Model 8's database
 * rebuilt: independent kernels 9.89% -> 9.51%, tau 0.896 -> 0.900; 5% in
 * between (2.5 tolerances) gave 9.62%, 0.898 (docs/BENCHMARKS.md; test_map
 * "most pipes"). */
static double explained_share(const struct mapping *mp)
{
	return 1 - fmax(mp->o->tol, 1e-9);
}

/* The usages read, into the model. Returns whether no core resource
 * explains the form's cycles alone (it needs one of its own). */
static int add_target(struct mapping *mp, const struct target *t, size_t *index)
{
	size_t R = mp->core.R, own = (size_t)-1;
	double *x = xmalloc((R + 1) * sizeof(double)), top = 0;
	long sib = t->sibling;
	if (sib >= 0)
		for (size_t r = 0; r < R; r++)
			x[r] = mp->core.rho[r][sib] * t->single / mp->core.single[sib];
	else if (mp->nprobed)
		map_template_usage(mp, t, mp->probed, mp->nprobed, x);
	for (size_t r = 0; r < R; r++) {
		if (!mp->nprobed && sib < 0)
			x[r] = !isnan(t->exact[r])     ? t->exact[r]
			       : isfinite(t->upper[r]) ? t->upper[r]
						       : 0;
		if (x[r] < mp->o->tol * t->single)
			x[r] = 0;
		if (x[r] > top)
			top = x[r], own = r;
	}
	/* the resource that nearly explains the form alone is its bottleneck
	 * alone, read a little low */
	int explained = own != (size_t)-1 && top >= t->single * explained_share(mp);
	if (explained)
		x[own] = t->single;
	*index = model_add_form(mp->m, t->name, t->single);
	for (size_t r = 0; r < R; r++)
		model_set_rho(mp->m, *index, r, x[r]);
	free(x);
	return !explained;
}

/* Core forms the core's resources leave well under their cycles alone
 * (the core keeps 16 resources of the hundred its search finds, and a
 * unit only a few forms use goes: on a Zen 3, cmovne r64, r64 at 0.37
 * cycles against 0.50 measured, setne and add m64, r64 alike) are bounded
 * by resources of their own like the mapped forms no core resource
 * explains, and clustered with them (map_own_resources): a kernel of
 * cmove (cmovne's sibling) and cmovne, measured at 1.0 cycles, was
 * predicted at 0.54. Their model indices into own[] from n; how many. */
static size_t short_core_forms(struct mapping *mp, size_t *own, size_t n)
{
	double short_of = explained_share(mp);
	size_t added = 0;
	for (size_t c = 0; c < mp->core.n; c++) {
		long i = model_form_index(mp->m, mp->core.forms[c]);
		double top = 0;
		if (i < 0 || !(mp->m->form_cycles[i] > 0))
			continue;
		for (size_t r = 0; r < mp->m->nres; r++)
			top = fmax(top, model_rho(mp->m, (size_t)i, r));
		if (top < mp->m->form_cycles[i] * short_of)
			own[n + added++] = (size_t)i;
	}
	mp->stats->core_own = (unsigned)added;
	return added;
}

/* Indexed memory forms (M8X...: form.h) whose unindexed form is mapped
 * here too, or is a core form, take its usages, scaled by their cycles
 * alone, instead of probes of their own. Probed against the bases on a
 * Zen 3, TEST_M8X_IMM8 came out on a resource of its own, beside no load
 * (movzx r32, m8 with it predicted at 0.38 cycles where it runs 0.72), and
 * a model of the indexed forms probed so was further from the independent
 * kernels that have them than one predicting them with their unindexed
 * forms (25.6% RMS against 16.6%; 14.3% as twins); what indexing changes
 * beside other forms (a compare with memory among adds and moves, 24%
 * slower there) is the check in mixes' to find (infer_polish.c). Forms
 * with helpers are probed. */
static void map_twins(struct mapping *mp)
{
	for (size_t t = 0; t < mp->nt; t++) {
		char base[FORM_NAME_MAX];
		struct target *x = &mp->t[t];
		if (x->helpers || !form_name_unindexed(x->name, base, sizeof(base)))
			continue;
		for (size_t c = 0; c < mp->core.n && x->sibling < 0; c++)
			if (!strcmp(mp->core.forms[c], base))
				x->sibling = (long)c;
		for (size_t u = 0; u < mp->nt && x->sibling < 0 && x->twin < 0; u++)
			if (!mp->t[u].helpers && !strcmp(mp->t[u].name, base))
				x->twin = (long)u;
		mp->stats->twins += x->sibling >= 0 || x->twin >= 0;
	}
}

/* The twins' usages, from their unindexed forms' as the model now holds
 * them (own resources, splits and helpers done). */
static void add_twins(struct mapping *mp)
{
	for (size_t t = 0; t < mp->nt; t++) {
		const struct target *x = &mp->t[t];
		if (x->twin < 0)
			continue;
		const struct target *u = &mp->t[x->twin];
		long i = model_form_index(mp->m, u->name);
		if (i < 0) {
			char *why = xasprintf("its unindexed form %s is not mapped", u->name);
			model_add_unmapped(mp->m, x->name, why);
			free(why);
			continue;
		}
		double scale = x->single / mp->m->form_cycles[i];
		size_t f = model_add_form(mp->m, x->name, x->single);
		for (size_t r = 0; r < mp->m->nres; r++)
			model_set_rho(mp->m, f, r, model_rho(mp->m, (size_t)i, r) * scale);
	}
}

static void mapping_done(struct mapping *mp)
{
	for (size_t i = 0; i < mp->nt; i++) {
		free(mp->t[i].name);
		free(mp->t[i].upper);
		free(mp->t[i].exact);
		free(mp->t[i].refine);
		free(mp->t[i].helpers);
	}
	free(mp->t);
	map_bases_free(mp->bases, mp->nbases);
	free(mp->probed);
	free(mp->single_of);
	map_core_done(&mp->core);
}

static void dump_bases(const struct mapping *mp)
{
	for (size_t b = 0; b < mp->nbases; b++) {
		struct kernel k;
		fprintf(stderr, "base %zu%s: T %.3f margin %.3f:", b,
			b < mp->ngroups ? " (group)" : "", mp->bases[b].T, mp->bases[b].margin);
		for (size_t a = 0; a < mp->bases[b].nres; a++)
			fprintf(stderr, " R%zu", mp->bases[b].res[a]);
		kernel_init(&k);
		map_base_kernel(&mp->core, &mp->bases[b], 1, &k);
		char *spec = kernel_to_string(&k);
		fprintf(stderr, " [%s]\n", spec);
		free(spec);
		kernel_done(&k);
	}
}

int infer_map(struct infer_meter *mt, struct model *m, const char *const *forms, size_t nforms,
	      const struct infer_map_options *o, struct infer_map_stats *stats)
{
	struct mapping mp = {.mt = mt, .m = m, .o = o, .stats = stats};
	memset(stats, 0, sizeof(*stats));
	map_core_init(&mp.core, m);
	mp.width = o->width ? infer_fastest(m, NULL) : 0;
	stats->core_resources = (unsigned)mp.core.R;
	mp.single_of = xmalloc((mp.core.R + 1) * sizeof(long));
	map_make_bases(&mp.core, o, &mp.bases, &mp.nbases, &mp.ngroups, mp.single_of);
	if (!o->exhaustive && mp.ngroups > o->max_probes) {
		mp.probed = xmalloc((o->max_probes + 1) * sizeof(size_t));
		stats->template_mode = 1;
	}
	if (getenv("PERPI_MAP_DEBUG")) /* the groups and their bases, for bench/ */
		dump_bases(&mp);
	int rc = measure_singles(&mp, forms, nforms);
	if (rc == 0 && !o->no_siblings)
		map_twins(&mp);
	if (rc == 0 && mp.nt && !o->no_siblings)
		rc = map_siblings(&mp);
	if (rc == 0 && mp.nt)
		rc = measure_bases(&mp);
	if (rc == 0 && getenv("PERPI_MAP_DEBUG"))
		for (size_t b = 0; b < mp.nbases; b++)
			fprintf(stderr, "base %zu measured: %.3f cycles (core model %.3f)\n", b,
				mp.bases[b].cycles, mp.bases[b].T);
	if (rc == 0 && mp.probed) /* after the bases: a base not measured is not chosen */
		mp.nprobed = map_choose_probes(&mp, mp.probed, o->max_probes);
	for (size_t at = 0; rc == 0 && at < mp.nt; at += CHUNK) {
		size_t to = at + CHUNK < mp.nt ? at + CHUNK : mp.nt;
		mt->planned =
		    (unsigned long)(mp.nt - to) * (mp.nprobed ? mp.nprobed : mp.ngroups + 2) +
		    o->planned_after;
		rc = probe_chunk(&mp, at, to);
	}
	mt->planned = o->planned_after;
	size_t *own = xmalloc((mp.nt + mp.core.n + 1) * sizeof(size_t)), nown = 0;
	for (size_t i = 0; rc == 0 && i < mp.nt; i++)
		if (mp.t[i].twin < 0 && add_target(&mp, &mp.t[i], &own[nown]))
			nown++;
	/* last: the clusters' first members, measured against the rest, stay
	 * the mapped forms they were before (a resumed build's pairs) */
	if (rc == 0 && mp.nt)
		nown += short_core_forms(&mp, own, nown);
	if (rc == 0 && nown)
		rc = map_own_resources(&mp, own, nown);
	free(own);
	if (rc == 0)
		map_helpers_subtract(&mp);
	if (rc == 0 && !o->no_split)
		rc = map_split_shared(&mp);
	if (rc == 0 && !o->no_locked)
		rc = map_locked(&mp);
	if (rc == 0)
		rc = map_strings(&mp);
	if (rc == 0)
		add_twins(&mp);
	if (rc == 0)
		model_sort(m);
	mapping_done(&mp);
	return rc;
}
