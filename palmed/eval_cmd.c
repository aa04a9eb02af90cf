/* `perpi palmed eval`: held-out kernels measured natively (or by a
 * simulated machine) and predicted by the model. */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "common/util.h"
#include "palmed/eval.h"
#include "palmed/infer.h"
#include "palmed/predict.h"
#include "palmed/sim.h"

struct eval_args {
	const char *model, *sim, *dir;
	unsigned count, seed;
};

static void usage(FILE *out)
{
	fprintf(out, "usage: perpi palmed eval [-m MODEL | --sim MACHINE] [-n KERNELS] [--seed N] "
		     "[-o DIR]\n"
		     "  --sim MACHINE  a simulated machine is the native reference; without -m its\n"
		     "                 model is inferred first\n"
		     "  -n KERNELS     held-out random kernels of 2-5 forms (default 200)\n"
		     "  -o DIR         raw results (eval.csv) and scatter plots (eval-PREDICTOR.svg)\n"
		     "                 (default palmed-eval)\n");
}

static int sim_model(const struct sim_machine *sim, const struct eval_args *a, struct model **m)
{
	if (a->model)
		return model_load(a->model, m);
	struct measure ms;
	struct infer_options o;
	const char **forms = xmalloc(sim->nforms * sizeof(char *));
	for (size_t i = 0; i < sim->nforms; i++)
		forms[i] = sim->forms[i].name;
	sim_measure(sim, &ms);
	infer_options_exact(&o);
	int rc = infer_model(&ms, forms, sim->nforms, &o, m, NULL);
	free(forms);
	return rc;
}

static void predict_points(const struct model *m, struct eval_set *s, size_t pred,
			   const struct kernel *ks)
{
	for (size_t i = 0; i < s->n; i++) {
		struct prediction p;
		if (model_predict(m, &ks[i], &p) == 0 && p.nuncovered == 0)
			s->points[i].pred[pred] = p.ipc;
		if (p.total)
			prediction_done(&p);
	}
}

static int report(const struct eval_set *s, const char *dir)
{
	printf("%-10s %8s %9s %14s %12s\n", "predictor", "kernels", "coverage", "RMS IPC error",
	       "Kendall tau");
	for (size_t j = 0; j < s->npred; j++) {
		struct eval_metrics mt;
		eval_metrics(s, j, &mt);
		printf("%-10s %8zu %8.1f%% %13.2f%% %12.3f\n", s->pred_names[j], s->n,
		       100 * mt.coverage, 100 * mt.rms, mt.tau);
	}
	mkdir(dir, 0755);
	char *csv = xasprintf("%s/eval.csv", dir);
	int rc = eval_write_csv(s, csv);
	for (size_t j = 0; j < s->npred && rc == 0; j++) {
		char *svg = xasprintf("%s/eval-%s.svg", dir, s->pred_names[j]);
		rc = eval_write_svg(s, j, svg);
		free(svg);
	}
	if (rc == 0)
		printf("raw results: %s; scatter plots: %s/eval-*.svg\n", csv, dir);
	free(csv);
	return rc;
}

static int eval_sim(const struct eval_args *a)
{
	const struct sim_machine *sim = sim_find(a->sim);
	struct model *m;
	if (!sim)
		return perpi_set_error("no simulated machine '%s' (try: overlap, intel, zen)", a->sim);
	if (sim_model(sim, a, &m) < 0)
		return -1;
	struct kernel *ks = xcalloc(a->count, sizeof(*ks));
	struct eval_set s;
	eval_set_init(&s);
	eval_random_kernels((const char *const *)m->forms, m->nforms, a->seed, a->count, m, ks);
	size_t pred = eval_add_predictor(&s, "palmed");
	int rc = 0;
	for (size_t i = 0; i < a->count && rc == 0; i++) {
		double cycles;
		char *spec = kernel_to_string(&ks[i]);
		rc = sim_cycles(sim, &ks[i], &cycles);
		if (rc == 0)
			eval_add_point(&s, spec, kernel_size(&ks[i]) / cycles);
		free(spec);
	}
	if (rc == 0) {
		predict_points(m, &s, pred, ks);
		printf("reference: simulated machine '%s'; model of %zu forms, %zu resources, %u "
		       "benchmarks\n",
		       sim->name, m->nforms, m->nres, m->benchmarks);
		rc = report(&s, a->dir);
	}
	for (size_t i = 0; i < a->count; i++)
		kernel_done(&ks[i]);
	free(ks);
	eval_set_done(&s);
	model_delete(m);
	return rc;
}

int palmed_eval_main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{"model", required_argument, NULL, 'm'}, {"sim", required_argument, NULL, 's'},
		{"kernels", required_argument, NULL, 'n'}, {"seed", required_argument, NULL, 'S'},
		{"output", required_argument, NULL, 'o'}, {"help", no_argument, NULL, 'h'},
		{0}};
	struct eval_args a = {NULL, NULL, "palmed-eval", 200, 1};
	int c;
	char *end;
	optind = 0;
	while ((c = getopt_long(argc, argv, "+m:n:o:h", longopts, NULL)) != -1) {
		switch (c) {
		case 'm': a.model = optarg; break;
		case 's': a.sim = optarg; break;
		case 'o': a.dir = optarg; break;
		case 'n':
		case 'S': {
			unsigned long v = strtoul(optarg, &end, 10);
			if (*end || !*optarg || (c == 'n' && (v == 0 || v > 100000))) {
				fprintf(stderr, "perpi: palmed eval: bad number '%s'\n", optarg);
				return 2;
			}
			*(c == 'n' ? &a.count : &a.seed) = (unsigned)v;
			break;
		}
		default: usage(c == 'h' ? stdout : stderr); return c == 'h' ? 0 : 2;
		}
	}
	if (!a.sim) {
		fprintf(stderr, "perpi: palmed eval: measuring this CPU needs the benchmark runner, "
				"not built in; use --sim MACHINE\n");
		return 2;
	}
	if (eval_sim(&a) < 0) {
		fprintf(stderr, "perpi: palmed eval: %s\n", perpi_error());
		return 1;
	}
	return 0;
}
