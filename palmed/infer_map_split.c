/* Splitting a core resource that mapped forms share only in the model.
 *
 * A form is mapped by probing it against the bases of the core's
 * resources, never beside another mapped form. Two mapped forms that each
 * load a resource r fully, beside r's base, are then predicted to share r
 * when they run together, which they need not: on a Zen 5, addpd and mulpd
 * each take as long beside pshufb (r's base) as their sum, yet together
 * run 4 a cycle (`addpd^3 mulpd^3`: 1.51 cycles, the model said 2.9): an
 * abstract resource of a core with few resources stands for several pipes.
 *
 * So, for each core resource r that is not the front end's (a NOP loads
 * none of it), the mapped forms whose cycles alone r carries for the most
 * part are measured in pairs against a representative (a and b instances,
 * as many cycles each), one round per representative: the forms whose pair
 * takes the sum of both, as sharing r predicts, form its cluster; the
 * others wait for the next round. The first cluster keeps r; each later
 * one moves to a copy of r, which every form that uses r and is not in a
 * cluster (the core's forms, the forms r carries only a part of) also
 * uses, as much as r: only two clusters' forms stop sharing. A pair that
 * cannot tell sharing from not (the other resources take nearly as long)
 * counts as sharing: nothing changes without a measurement saying so. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/util.h"
#include "palmed/infer_map_private.h"

#define SPLIT_SHARE 0.75  /* r carries this share of a form's cycles alone, or more */
#define SPLIT_ROUNDS 6	  /* clusters per resource at most; the forms left stay on r */
#define SPLIT_CONTRAST 0.25 /* sharing must predict this much more than not sharing */

/* The model's cycles for a x form i + b x form j: *shared with r as it is,
 * *apart if i and j did not share r (the most of their cycles alone and
 * every other resource). */
static void pair_cycles(const struct model *m, size_t r, size_t i, size_t j, unsigned a,
			unsigned b, double *shared, double *apart)
{
	*shared = a * model_rho(m, i, r) + b * model_rho(m, j, r);
	*apart = fmax(a * m->form_cycles[i], b * m->form_cycles[j]);
	for (size_t q = 0; q < m->nres; q++)
		if (q != r) {
			double load = a * model_rho(m, i, q) + b * model_rho(m, j, q);
			*shared = fmax(*shared, load);
			*apart = fmax(*apart, load);
		}
}

/* One round: left[0] is the representative; the forms of left[1..n) whose
 * pair with it takes the sum go into cluster[] (with it), the others stay
 * in left[] (their count into *n). */
static int round_of(struct mapping *mp, size_t r, size_t *left, size_t *n, size_t *cluster,
		    size_t *ncluster)
{
	const struct model *m = mp->m;
	size_t rep = left[0], k = *n - 1;
	struct batch b;
	unsigned *xa = xmalloc((k + 1) * sizeof(unsigned)), *xb = xmalloc((k + 1) * sizeof(unsigned));
	map_batch_init(&b, k);
	for (size_t q = 0; q < k; q++) {
		map_balance(m->form_cycles[left[q + 1]], m->form_cycles[rep], &xa[q], &xb[q]);
		kernel_add(&b.ks[q], m->forms[left[q + 1]], xa[q]);
		kernel_add(&b.ks[q], m->forms[rep], xb[q]);
	}
	infer_meter_label(mp->mt, "mapping: %zu forms sharing %s, in pairs with %s", *n,
			  m->res[r].name, m->forms[rep]);
	int rc = map_measure(mp, b.ks, b.n, b.cycles, b.status, b.errors);
	size_t kept = 0;
	*ncluster = 0;
	cluster[(*ncluster)++] = rep;
	for (size_t q = 0; q < k; q++) {
		double shared, apart;
		pair_cycles(m, r, left[q + 1], rep, xa[q], xb[q], &shared, &apart);
		int tells = shared >= apart * (1 + SPLIT_CONTRAST);
		int shares = rc != 0 || b.status[q] != 0 || !tells ||
			     b.cycles[q] >= (shared + apart) / 2;
		if (shares)
			cluster[(*ncluster)++] = left[q + 1];
		else
			left[kept++] = left[q + 1];
	}
	*n = kept;
	map_batch_done(&b);
	free(xa);
	free(xb);
	mp->stats->split_pairs += (unsigned)k;
	return rc;
}

/* A copy of r for the forms of cluster[0..n) (moved there), which every
 * form that uses r and is in no cluster (in_cluster[j] 0) also uses. */
static void move_cluster(struct mapping *mp, size_t r, const size_t *cluster, size_t n,
			 const unsigned char *in_cluster)
{
	struct model *m = mp->m;
	char name[32];
	snprintf(name, sizeof(name), "R%zu", m->nres);
	size_t copy = model_add_resource(m, name, m->forms[cluster[0]]);
	for (size_t j = 0; j < m->nforms; j++)
		if (!in_cluster[j] && model_rho(m, j, r) > 0)
			model_set_rho(m, j, copy, model_rho(m, j, r));
	for (size_t q = 0; q < n; q++) {
		model_set_rho(m, cluster[q], copy, model_rho(m, cluster[q], r));
		model_set_rho(m, cluster[q], r, 0);
	}
	mp->stats->split_resources++;
	mp->stats->split_forms += (unsigned)n;
}

/* The mapped forms (tf: the targets' model indices, -1 for those measured
 * with helpers) that r carries for SPLIT_SHARE of their cycles alone or
 * more. */
static size_t sharing(const struct mapping *mp, const long *tf, size_t r, size_t *out)
{
	size_t n = 0;
	for (size_t i = 0; i < mp->nt; i++)
		if (tf[i] >= 0 &&
		    model_rho(mp->m, (size_t)tf[i], r) >= SPLIT_SHARE * mp->m->form_cycles[tf[i]])
			out[n++] = (size_t)tf[i];
	return n;
}

int map_split_shared(struct mapping *mp)
{
	struct model *m = mp->m;
	size_t *left = xmalloc((mp->nt + 1) * sizeof(size_t));
	size_t *cluster = xmalloc((mp->nt + 1) * sizeof(size_t));
	unsigned char *in_cluster = xmalloc(m->nforms + 1);
	long *tf = xmalloc((mp->nt + 1) * sizeof(long));
	int rc = 0;
	for (size_t i = 0; i < mp->nt; i++)
		tf[i] = mp->t[i].helpers ? -1 : model_form_index(m, mp->t[i].name);
	for (size_t r = 0; r < mp->core.R && rc == 0; r++) {
		/* the front end's: every form shares them */
		size_t n = model_nop_loads(m, r) ? 0 : sharing(mp, tf, r, left);
		if (n < 2)
			continue;
		memset(in_cluster, 0, m->nforms + 1);
		for (size_t q = 0; q < n; q++)
			in_cluster[left[q]] = 1;
		for (unsigned round = 0; round < SPLIT_ROUNDS && n > 1 && rc == 0; round++) {
			size_t ncluster;
			rc = round_of(mp, r, left, &n, cluster, &ncluster);
			if (rc == 0 && round > 0)
				move_cluster(mp, r, cluster, ncluster, in_cluster);
		}
		/* a last form alone, not measured against the others: it stays */
	}
	free(left);
	free(cluster);
	free(in_cluster);
	free(tf);
	return rc;
}
