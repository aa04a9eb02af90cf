/* Resources of their own for the forms the core does not explain (a
 * divider, a pipe no core form saturates alone): forms that share such a
 * bottleneck are found by measuring them in pairs, so that a kernel of
 * two of them is not predicted as fast as either alone. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common/util.h"
#include "palmed/infer_map_private.h"

/* Rounds of clustering at most (each measures the forms left against one
 * new cluster); the forms left after them get a resource each. */
#define MAX_CLUSTERS 32

void map_balance(double ci, double cj, unsigned *a, unsigned *b)
{
	double best = INFINITY;
	for (unsigned y = 1; y <= 8; y++) {
		unsigned x = (unsigned)fmax(1, round(y * cj / ci));
		double off = fabs(x * ci - y * cj) / fmax(x * ci, y * cj);
		if (off < best - 1e-12) {
			best = off;
			*a = x;
			*b = y;
		}
	}
}

/* The core resources' cycles for a x form i + b x form j. */
static double core_cycles(const struct mapping *mp, size_t i, size_t j, unsigned a, unsigned b)
{
	double most = 0;
	for (size_t r = 0; r < mp->core.R; r++)
		most = fmax(most, a * model_rho(mp->m, i, r) + b * model_rho(mp->m, j, r));
	return most;
}

/* A new resource that members[0..n) take (their cycles alone, or
 * usage[k] if not NULL), beside the usages they have. */
static void add_cluster(struct mapping *mp, const size_t *members, const double *usage, size_t n)
{
	char name[32];
	snprintf(name, sizeof(name), "R%zu", mp->m->nres);
	size_t r = model_add_resource(mp->m, name, mp->m->forms[members[0]]);
	for (size_t k = 0; k < n; k++)
		model_set_rho(mp->m, members[k], r,
			      usage ? usage[k] : mp->m->form_cycles[members[k]]);
}

/* The forms left (left[0..n)) measured against rep: the ones whose pair
 * takes the sum of both alone share its resource. Returns how many are
 * left in left[], the cluster in *cluster. With usage (not NULL), a pair
 * closer to the sum than to the longer of the two shares it, and
 * usage[] (beside cluster[]) is what the resource's load must be for
 * the pair's cycles: the form's cycles less the overlap measured. */
static int grow_cluster(struct mapping *mp, size_t rep, size_t *left, size_t *n, size_t *cluster,
			size_t *ncluster, double *usage, const char *what)
{
	struct batch b;
	unsigned *xa = xmalloc((*n + 1) * sizeof(unsigned)),
		 *xb = xmalloc((*n + 1) * sizeof(unsigned));
	map_batch_init(&b, *n);
	for (size_t k = 0; k < *n; k++) {
		map_balance(mp->m->form_cycles[left[k]], mp->m->form_cycles[rep], &xa[k], &xb[k]);
		kernel_add(&b.ks[k], mp->m->forms[left[k]], xa[k]);
		kernel_add(&b.ks[k], mp->m->forms[rep], xb[k]);
	}
	infer_meter_label(mp->mt, "mapping: %zu %s, in pairs", *n, what);
	int rc = map_measure(mp, b.ks, b.n, b.cycles, b.status, b.errors);
	size_t kept = 0;
	double ci, cj = mp->m->form_cycles[rep];
	if (usage)
		usage[*ncluster] = cj;
	cluster[(*ncluster)++] = rep;
	for (size_t k = 0; k < *n; k++) {
		ci = mp->m->form_cycles[left[k]];
		double sum = xa[k] * ci + xb[k] * cj,
		       least = usage ? (sum + fmax(xa[k] * ci, xb[k] * cj)) / 2
				     : sum * (1 - 2 * mp->o->tol);
		int shared =
		    rc == 0 && b.status[k] == 0 && b.cycles[k] >= least &&
		    b.cycles[k] > core_cycles(mp, left[k], rep, xa[k], xb[k]) * (1 + mp->o->tol);
		if (shared && usage)
			usage[*ncluster] = fmin(ci, (b.cycles[k] - xb[k] * cj) / xa[k]);
		if (shared)
			cluster[(*ncluster)++] = left[k];
		else
			left[kept++] = left[k];
	}
	*n = kept;
	map_batch_done(&b);
	free(xa);
	free(xb);
	return rc;
}

int map_own_resources(struct mapping *mp, const size_t *own, size_t n)
{
	size_t *left = xmalloc((n + 1) * sizeof(size_t)),
	       *cluster = xmalloc((n + 1) * sizeof(size_t));
	size_t nleft = n;
	int rc = 0;
	memcpy(left, own, n * sizeof(size_t));
	for (unsigned round = 0; nleft && rc == 0; round++) {
		size_t rep = left[0], ncluster = 0;
		memmove(left, left + 1, --nleft * sizeof(size_t));
		if (round < MAX_CLUSTERS && nleft)
			rc = grow_cluster(mp, rep, left, &nleft, cluster, &ncluster, NULL,
					  "forms with no core bottleneck");
		else
			cluster[ncluster++] = rep;
		if (rc == 0) {
			add_cluster(mp, cluster, NULL, ncluster);
			mp->stats->own += (unsigned)ncluster;
			mp->stats->own_resources++;
		}
	}
	free(left);
	free(cluster);
	return rc;
}

/* Whether a form is a locked read-modify-write: the LOCK prefix, or xchg
 * with memory (locked without it). */
static int locked_form(const char *name)
{
	return !strncmp(name, "LOCK.", 5) || !strncmp(name, "XCHG_M", 6);
}

int map_locked(struct mapping *mp)
{
	size_t *left = xmalloc((mp->nt + 1) * sizeof(size_t)),
	       *cluster = xmalloc((mp->nt + 1) * sizeof(size_t));
	double *usage = xmalloc((mp->nt + 1) * sizeof(double));
	size_t nleft = 0, ncluster = 0;
	int rc = 0;
	for (size_t t = 0; t < mp->nt; t++) {
		long i = model_form_index(mp->m, mp->t[t].name);
		if (mp->t[t].twin < 0 && i >= 0 && locked_form(mp->t[t].name))
			left[nleft++] = (size_t)i;
	}
	if (nleft >= 2) {
		size_t rep = left[0];
		memmove(left, left + 1, --nleft * sizeof(size_t));
		rc = grow_cluster(mp, rep, left, &nleft, cluster, &ncluster, usage, "locked forms");
		mp->stats->locked_pairs += (unsigned)(ncluster - 1 + nleft);
		if (rc == 0 && ncluster >= 2) {
			add_cluster(mp, cluster, usage, ncluster);
			mp->stats->locked = (unsigned)ncluster;
		}
	}
	free(left);
	free(cluster);
	free(usage);
	return rc;
}
