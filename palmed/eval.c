#include "palmed/eval.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common/util.h"

static unsigned next_random(unsigned long long *state, unsigned bound)
{
	*state = *state * 6364136223846793005ULL + 1442695040888963407ULL;
	return (unsigned)((*state >> 33) % bound);
}

int eval_model_measured(const struct model *m, const char *spec)
{
	return model_measured(m, spec);
}

void eval_random_kernels(const char *const *forms, size_t nforms, unsigned seed, size_t count,
			 const struct model *exclude, struct kernel *kernels)
{
	unsigned long long state = 0x9e3779b97f4a7c15ULL ^ seed;
	size_t made = 0, tries = 0;
	while (made < count) {
		struct kernel *k = &kernels[made];
		size_t want = 2 + next_random(&state, 4);
		if (want > nforms)
			want = nforms;
		kernel_init(k);
		while (k->n < want)
			kernel_add(k, forms[next_random(&state, (unsigned)nforms)], 0);
		for (size_t t = 0; t < k->n; t++)
			k->terms[t].count = 1 + next_random(&state, 4);
		char *spec = kernel_to_string(k);
		/* Held out: never a kernel the model was built from (give up on
		 * that rule only if the forms are too few to avoid it). */
		if (eval_model_measured(exclude, spec) && ++tries < 100 * count)
			kernel_done(k);
		else
			made++;
		free(spec);
	}
}

void eval_set_init(struct eval_set *s)
{
	memset(s, 0, sizeof(*s));
	s->name = "random";
}

void eval_set_done(struct eval_set *s)
{
	for (size_t i = 0; i < s->n; i++)
		free(s->points[i].kernel);
	free(s->points);
	eval_set_init(s);
}

size_t eval_add_predictor(struct eval_set *s, const char *name)
{
	s->pred_names[s->npred] = name;
	return s->npred++;
}

size_t eval_add_point(struct eval_set *s, const char *kernel, double native_ipc)
{
	s->points = xrealloc(s->points, (s->n + 1) * sizeof(*s->points));
	struct eval_point *p = &s->points[s->n];
	p->kernel = xstrdup(kernel);
	p->native = native_ipc;
	p->weight = 1;
	p->set = NULL;
	for (size_t j = 0; j < EVAL_MAX_PREDICTORS; j++)
		p->pred[j] = NAN;
	return s->n++;
}

/* Values equal to 1e-9 relative are ties (two predictors computing the
 * same IPC differently must not make up an order). */
static int order(double a, double b)
{
	double d = a - b, scale = fmax(fabs(a), fabs(b));
	if (fabs(d) <= 1e-9 * scale)
		return 0;
	return d > 0 ? 1 : -1;
}

double eval_kendall_tau(const double *a, const double *b, size_t n)
{
	double concordant = 0, discordant = 0, ties_a = 0, ties_b = 0;
	for (size_t i = 0; i < n; i++) {
		if (isnan(a[i]) || isnan(b[i]))
			continue;
		for (size_t j = i + 1; j < n; j++) {
			if (isnan(a[j]) || isnan(b[j]))
				continue;
			int sa = order(a[i], a[j]), sb = order(b[i], b[j]);
			if (sa == 0 && sb == 0)
				continue;
			if (sa == 0)
				ties_a++;
			else if (sb == 0)
				ties_b++;
			else if (sa == sb)
				concordant++;
			else
				discordant++;
		}
	}
	double denom =
	    sqrt((concordant + discordant + ties_a) * (concordant + discordant + ties_b));
	return denom > 0 ? (concordant - discordant) / denom : NAN;
}

void eval_metrics(const struct eval_set *s, size_t predictor, struct eval_metrics *out)
{
	double sum = 0, covered_weight = 0, all_weight = 0;
	double *pred = xcalloc(s->n + 1, sizeof(double));
	double *native = xcalloc(s->n + 1, sizeof(double));
	memset(out, 0, sizeof(*out));
	for (size_t i = 0; i < s->n; i++) {
		const struct eval_point *p = &s->points[i];
		pred[i] = p->pred[predictor];
		native[i] = p->native;
		all_weight += p->weight;
		if (isnan(pred[i]))
			continue;
		double rel = (pred[i] - native[i]) / native[i];
		sum += p->weight * rel * rel;
		covered_weight += p->weight;
		out->covered++;
	}
	out->rms = covered_weight > 0 ? sqrt(sum / covered_weight) : NAN;
	out->tau = eval_kendall_tau(pred, native, s->n);
	out->coverage = all_weight > 0 ? covered_weight / all_weight : 0;
	free(pred);
	free(native);
}

/* A point's term w e^2 of the RMS error (eval_worst sorts them, largest first). */
struct worst_term {
	size_t index;
	double term;
};

static int by_term(const void *a, const void *b)
{
	double x = ((const struct worst_term *)a)->term, y = ((const struct worst_term *)b)->term;
	return (x < y) - (x > y);
}

size_t eval_worst(const struct eval_set *s, size_t predictor, size_t n, size_t *idx, double *share,
		  double *over)
{
	struct worst_term *t = xmalloc((s->n + 1) * sizeof(*t));
	double total = 0, above = 0;
	size_t m = 0;
	for (size_t i = 0; i < s->n; i++) {
		const struct eval_point *p = &s->points[i];
		double pred = p->pred[predictor];
		if (isnan(pred) || !(p->native > 0))
			continue;
		double rel = (pred - p->native) / p->native, term = p->weight * rel * rel;
		total += term;
		if (pred > p->native)
			above += term;
		if (fabs(rel) > 1e-6) /* not rounding */
			t[m++] = (struct worst_term){i, term};
	}
	qsort(t, m, sizeof(*t), by_term);
	m = m < n ? m : n;
	for (size_t k = 0; k < m; k++) {
		idx[k] = t[k].index;
		share[k] = t[k].term / total;
	}
	if (over)
		*over = total > 0 ? above / total : 0;
	free(t);
	return m;
}

int eval_write_csv(const struct eval_set *const *sets, size_t nsets, const char *path)
{
	FILE *f = fopen(path, "w");
	if (!f)
		return perpi_set_error("cannot write '%s': %s", path, strerror(errno));
	fprintf(f, "kernel,native_ipc");
	for (size_t j = 0; nsets && j < sets[0]->npred; j++)
		fprintf(f, ",%s_ipc", sets[0]->pred_names[j]);
	fprintf(f, ",set,weight\n");
	for (size_t k = 0; k < nsets; k++) {
		const struct eval_set *s = sets[k];
		for (size_t i = 0; i < s->n; i++) {
			fprintf(f, "\"%s\",%.6g", s->points[i].kernel, s->points[i].native);
			for (size_t j = 0; j < s->npred; j++)
				if (isnan(s->points[i].pred[j]))
					fprintf(f, ",");
				else
					fprintf(f, ",%.6g", s->points[i].pred[j]);
			fprintf(f, ",%s,%.17g\n", s->points[i].set ? s->points[i].set : s->name,
				s->points[i].weight);
		}
	}
	if (fclose(f) != 0)
		return perpi_set_error("cannot write '%s': %s", path, strerror(errno));
	return 0;
}

/* One circle per covered point; in a weighted set its area is
 * proportional to the weight (the heaviest 8 units of radius, none below
 * 1.5 so that light points stay visible). */
static void write_points(FILE *f, const struct eval_set *s, size_t predictor, double margin,
			 double plot, double top)
{
	double heaviest = 0;
	for (size_t i = 0; i < s->n; i++)
		heaviest = fmax(heaviest, s->points[i].weight);
	for (size_t i = 0; i < s->n; i++) {
		const struct eval_point *p = &s->points[i];
		double pred = p->pred[predictor], r = 2.5;
		if (isnan(pred))
			continue;
		if (s->weighted && heaviest > 0)
			r = fmax(1.5, 8 * sqrt(p->weight / heaviest));
		fprintf(f,
			"<circle cx=\"%.1f\" cy=\"%.1f\" r=\"%.2f\" fill=\"#1f77b4\" "
			"fill-opacity=\"0.6\"><title>%s",
			margin + plot * p->native / top, margin + plot - plot * pred / top, r,
			p->kernel);
		if (s->weighted)
			fprintf(f, " (weight %.17g)", p->weight);
		fprintf(f, "</title></circle>\n");
	}
}

int eval_write_svg(const struct eval_set *s, size_t predictor, const char *path)
{
	const double size = 480, margin = 60, plot = size - 2 * margin;
	double top = 0;
	for (size_t i = 0; i < s->n; i++) {
		top = fmax(top, s->points[i].native);
		if (!isnan(s->points[i].pred[predictor]))
			top = fmax(top, s->points[i].pred[predictor]);
	}
	top = top > 0 ? ceil(top) : 1;
	FILE *f = fopen(path, "w");
	if (!f)
		return perpi_set_error("cannot write '%s': %s", path, strerror(errno));
	struct eval_metrics mt;
	eval_metrics(s, predictor, &mt);
	fprintf(f,
		"<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%g\" height=\"%g\" "
		"font-family=\"sans-serif\" font-size=\"12\">\n"
		"<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>\n",
		size, size);
	if (s->weighted) /* the metrics' line would not fit with the set's name */
		fprintf(f,
			"<text x=\"%g\" y=\"20\" text-anchor=\"middle\" font-size=\"14\">%s "
			"on %s (point area: weight)</text>\n"
			"<text x=\"%g\" y=\"40\" text-anchor=\"middle\">weighted RMS IPC error "
			"%.1f%%, Kendall tau %.3f, coverage %.0f%%</text>\n",
			size / 2, s->pred_names[predictor],
			strcmp(s->name, "blocks") ? s->name : "basic blocks", size / 2,
			100 * mt.rms, mt.tau, 100 * mt.coverage);
	else
		fprintf(f,
			"<text x=\"%g\" y=\"24\" text-anchor=\"middle\" font-size=\"14\">%s: "
			"RMS IPC error %.1f%%, Kendall tau %.3f, coverage %.0f%%</text>\n",
			size / 2, s->pred_names[predictor], 100 * mt.rms, mt.tau,
			100 * mt.coverage);
	fprintf(f,
		"<rect x=\"%g\" y=\"%g\" width=\"%g\" height=\"%g\" fill=\"none\" "
		"stroke=\"black\"/>\n",
		margin, margin, plot, plot);
	fprintf(f,
		"<line x1=\"%g\" y1=\"%g\" x2=\"%g\" y2=\"%g\" stroke=\"gray\" "
		"stroke-dasharray=\"4\"/>\n",
		margin, margin + plot, margin + plot, margin);
	for (int t = 0; t <= (int)top; t++) {
		double at = plot * t / top;
		fprintf(f, "<text x=\"%g\" y=\"%g\" text-anchor=\"middle\">%d</text>\n",
			margin + at, margin + plot + 16, t);
		fprintf(f, "<text x=\"%g\" y=\"%g\" text-anchor=\"end\">%d</text>\n", margin - 6,
			margin + plot - at + 4, t);
	}
	fprintf(f, "<text x=\"%g\" y=\"%g\" text-anchor=\"middle\">native IPC</text>\n", size / 2,
		size - 16);
	fprintf(f,
		"<text x=\"16\" y=\"%g\" text-anchor=\"middle\" transform=\"rotate(-90 16 %g)\">"
		"predicted IPC</text>\n",
		size / 2, size / 2);
	write_points(f, s, predictor, margin, plot, top);
	fprintf(f, "</svg>\n");
	if (fclose(f) != 0)
		return perpi_set_error("cannot write '%s': %s", path, strerror(errno));
	return 0;
}
