/* The tables and files of `perpi palmed eval` (cmd/palmed_eval.c). */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cmd/palmed.h"
#include "palmed/eval.h"
#include "palmed/eval_blocks.h"
#include "common/util.h"

static void print_rows(const struct eval_set *s, const char *label)
{
	for (size_t j = 0; j < s->npred; j++) {
		struct eval_metrics mt;
		eval_metrics(s, j, &mt);
		printf("%-10s %-9s %8zu %8.1f%% %13.2f%% %12.3f\n", s->pred_names[j], label, s->n,
		       100 * mt.coverage, 100 * mt.rms, mt.tau);
	}
}

/* The index of the predictor named name in s (s->npred: none). */
static size_t predictor_index(const struct eval_set *s, const char *name)
{
	size_t j = 0;
	while (j < s->npred && strcmp(s->pred_names[j], name))
		j++;
	return j;
}

/* The other predictors against the "harness" row (cmd/palmed_eval.c) on
 * the kernels it covers: a model's error against the timings it was
 * fitted to, apart from what the code of a kernel adds. */
static void print_against_harness(const struct eval_set *s)
{
	size_t h = predictor_index(s, "harness");
	if (h == s->npred)
		return;
	struct eval_set sub = *s;
	sub.n = 0;
	sub.npred = 0;
	sub.points = xmalloc((s->n + 1) * sizeof(*s->points));
	for (size_t j = 0; j < s->npred; j++)
		if (j != h)
			sub.pred_names[sub.npred++] = s->pred_names[j];
	for (size_t i = 0; i < s->n; i++) {
		const struct eval_point *p = &s->points[i];
		if (p->pred[h] != p->pred[h])
			continue;
		struct eval_point *q = &sub.points[sub.n++];
		*q = *p;
		q->native = p->pred[h];
		for (size_t j = 0, k = 0; j < s->npred; j++)
			if (j != h)
				q->pred[k++] = p->pred[j];
	}
	if (sub.n && sub.npred) {
		printf("against the harness's timings of the %zu kernels it covers (shape "
		       "'harness'):\n",
		       sub.n);
		print_rows(&sub, "harness");
	}
	free(sub.points);
}

/* All the points, then each shape of kernel apart when there are several;
 * then the predictors against the harness, when it is a row. */
void palmed_eval_print_table(const struct eval_set *s)
{
	static const char *const shapes[] = {"uniform", "loop"};
	printf("%-10s %-9s %8s %9s %14s %12s\n", "predictor", "shape", "kernels", "coverage",
	       "RMS IPC error", "Kendall tau");
	print_rows(s, "all");
	for (size_t k = 0; k < ARRAY_SIZE(shapes); k++) {
		struct eval_set sub = *s;
		sub.n = 0;
		sub.points = xmalloc((s->n + 1) * sizeof(*s->points));
		for (size_t i = 0; i < s->n; i++)
			if (s->points[i].set && !strcmp(s->points[i].set, shapes[k]))
				sub.points[sub.n++] = s->points[i];
		if (sub.n && sub.n < s->n)
			print_rows(&sub, shapes[k]);
		free(sub.points);
	}
	print_against_harness(s);
}

/* The n kernels that weigh most in the palmed row's error, with their
 * share of its squared error, native and predicted IPC (and the harness's,
 * the weight's share in a weighted set): where to look first. */
void palmed_eval_print_worst(const struct eval_set *s, size_t n)
{
	size_t j = predictor_index(s, "palmed"), h = predictor_index(s, "harness");
	if (j == s->npred || n == 0)
		return;
	size_t *idx = xmalloc(n * sizeof(*idx));
	double *share = xmalloc(n * sizeof(*share)), over, all = 0;
	size_t m = eval_worst(s, j, n, idx, share, &over);
	for (size_t i = 0; i < s->n; i++)
		all += s->points[i].weight;
	if (m) {
		printf(
		    "the %zu kernel%s weighing most in palmed's error (%.0f%% of its squared error "
		    "from kernels predicted faster than they run):\n",
		    m, m == 1 ? "" : "s", 100 * over);
		printf("%7s %8s %8s%s%s  kernel\n", "share", "native", "palmed",
		       h < s->npred ? "  harness" : "", s->weighted ? "   weight" : "");
	}
	for (size_t k = 0; k < m; k++) {
		const struct eval_point *p = &s->points[idx[k]];
		printf("%6.1f%% %8.3f %8.3f", 100 * share[k], p->native, p->pred[j]);
		if (h < s->npred && !isnan(p->pred[h]))
			printf(" %8.3f", p->pred[h]);
		else if (h < s->npred)
			printf(" %8s", "-");
		if (s->weighted)
			printf(" %7.2f%%", all > 0 ? 100 * p->weight / all : 0);
		printf("  %s\n", p->kernel);
	}
	free(idx);
	free(share);
}

static double percent(double part, uint64_t whole)
{
	return whole ? 100 * part / whole : 0;
}

/* Where the runs' dynamic instructions went, then the table. */
void palmed_eval_print_blocks(const char *const *runs, size_t nruns,
			      const struct eval_blocks_stats *st, double refused,
			      const struct eval_set *s)
{
	double measured = st->held_out - refused;
	char *what = nruns == 1 ? xstrdup(runs[0]) : xasprintf("%zu runs", nruns);
	printf("\nbasic blocks of %s: %zu blocks, %" PRIu64 " dynamic instructions; "
	       "held out %.0f (%.1f%%) in %zu kernels\n",
	       what, st->blocks, st->insns, measured, percent(measured, st->insns), s->n);
	free(what);
	printf("left out: control transfers %" PRIu64
	       " (%.1f%%), forms not measurable alone %" PRIu64
	       " (%.1f%%), kernels the model was built from %" PRIu64 " (%.1f%%, %zu block%s), "
	       "kernels not measurable %.0f (%.1f%%); %zu block%s with nothing left\n",
	       st->control, percent(st->control, st->insns), st->unrunnable,
	       percent(st->unrunnable, st->insns), st->built, percent(st->built, st->insns),
	       st->built_blocks, st->built_blocks == 1 ? "" : "s", refused,
	       percent(refused, st->insns), st->empty_blocks, st->empty_blocks == 1 ? "" : "s");
	printf("weights: dynamic instructions; coverage and RMS error weighted, Kendall tau over "
	       "the kernels\n");
	palmed_eval_print_table(s);
}

int palmed_eval_write_results(const struct eval_set *sets, const char *dir)
{
	const struct eval_set *with[2];
	size_t n = 0;
	for (size_t k = 0; k < 2; k++)
		if (sets[k].n)
			with[n++] = &sets[k];
	mkdir(dir, 0755);
	char *csv = xasprintf("%s/eval.csv", dir);
	int rc = eval_write_csv(with, n, csv);
	for (size_t k = 0; k < n && rc == 0; k++)
		for (size_t j = 0; j < with[k]->npred && rc == 0; j++) {
			int blocks = with[k] == &sets[1];
			char *svg = xasprintf("%s/eval-%s%s.svg", dir, blocks ? "blocks-" : "",
					      with[k]->pred_names[j]);
			rc = eval_write_svg(with[k], j, svg);
			free(svg);
		}
	if (rc == 0)
		printf("raw results: %s; scatter plots: %s/eval-*.svg\n", csv, dir);
	free(csv);
	return rc;
}
