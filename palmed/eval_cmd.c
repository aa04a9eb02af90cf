/* `perpi palmed eval`: held-out kernels measured natively (or by a
 * simulated machine) and predicted by the model. */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "common/util.h"
#include "palmed/bench.h"
#include "palmed/bench_cli.h"
#include "palmed/db.h"
#include "palmed/eval.h"
#include "palmed/infer.h"
#include "palmed/infer_bench.h"
#include "palmed/predict.h"
#include "palmed/sim.h"

struct eval_args {
	const char *model, *sim, *dir, *db_path;
	unsigned count, seed;
	int no_db, no_mca;
};

static void usage(FILE *out)
{
	fprintf(out, "usage: perpi palmed eval [-m MODEL | --sim MACHINE] [-n KERNELS] [--seed N] "
		     "[-o DIR]\n"
		     "  --sim MACHINE  a simulated machine is the native reference; without -m its\n"
		     "                 model is inferred first\n"
		     "  -n KERNELS     held-out random kernels of 2-5 forms (default 200)\n"
		     "  -o DIR         raw results (eval.csv) and scatter plots (eval-PREDICTOR.svg)\n"
		     "                 (default palmed-eval)\n"
		     "  --db FILE      measurement database for the native runs; --no-db: none\n"
		     "  --no-mca       leave llvm-mca out even if llvm-mca-19 is installed\n");
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

/* Native IPC of every kernel; kernels the runner refuses, or that stay
 * too noisy to be a reference, are dropped (and counted). */
static void measure_native(struct infer_bench *ib, struct kernel *ks, size_t *n,
			   struct eval_set *s)
{
	struct bench_cli_progress p;
	size_t kept = 0, dropped = 0;
	bench_cli_progress_init(&p, "palmed eval: measuring");
	for (size_t i = 0; i < *n; i++) {
		struct bench_result r;
		bench_cli_progress(&p, i, *n);
		if (infer_bench_measure(ib, &ks[i], &r) == 0) {
			char *spec = kernel_to_string(&ks[i]);
			eval_add_point(s, spec, r.ipc);
			free(spec);
			bench_result_done(&r);
			ks[kept++] = ks[i];
			continue;
		}
		if (!dropped++) {
			char *spec = kernel_to_string(&ks[i]);
			perpi_warn("palmed eval: kernel %s left out: %s", spec, perpi_error());
			free(spec);
		}
		kernel_done(&ks[i]);
	}
	bench_cli_progress_end(&p);
	if (dropped > 1)
		perpi_warn("palmed eval: %zu kernels left out in all", dropped);
	*n = kept;
}

static void predict_mca(struct bench_ctx *bench, struct eval_set *s, size_t pred,
			const struct kernel *ks)
{
	for (size_t i = 0; i < s->n; i++) {
		char *text = bench_kernel_asm(bench, &ks[i], 0);
		double ipc;
		if (text && eval_mca_ipc(text, &ipc) == 0)
			s->points[i].pred[pred] = ipc;
		free(text);
	}
}

static int eval_native(const struct eval_args *a)
{
	struct model *m;
	struct db *db = NULL;
	if (model_load_for_use(a->model, &m) < 0)
		return -1;
	if (!a->no_db && bench_cli_open_db(a->db_path, &db) < 0) {
		model_delete(m);
		return -1;
	}
	struct bench_options bo;
	struct infer_bench ib;
	struct measure unused;
	bench_options_default(&bo);
	infer_bench_init(&ib, &bo, db, &unused);
	struct kernel *ks = xcalloc(a->count, sizeof(*ks));
	size_t n = a->count;
	struct eval_set s;
	eval_set_init(&s);
	eval_random_kernels((const char *const *)m->forms, m->nforms, a->seed, n, m, ks);
	measure_native(&ib, ks, &n, &s);
	int rc = 0;
	if (n == 0) {
		rc = perpi_set_error("no held-out kernel could be measured");
	} else {
		predict_points(m, &s, eval_add_predictor(&s, "palmed"), ks);
		if (!a->no_mca && eval_mca_available())
			predict_mca(ib.bench, &s, eval_add_predictor(&s, "llvm-mca"), ks);
		printf("reference: this CPU, measured; model of %zu forms, %zu resources, %u "
		       "benchmarks\n",
		       m->nforms, m->nres, m->benchmarks);
		rc = report(&s, a->dir);
	}
	for (size_t i = 0; i < n; i++)
		kernel_done(&ks[i]);
	free(ks);
	eval_set_done(&s);
	infer_bench_done(&ib);
	if (db)
		db_close(db);
	model_delete(m);
	return rc;
}

int palmed_eval_main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{"model", required_argument, NULL, 'm'}, {"sim", required_argument, NULL, 's'},
		{"kernels", required_argument, NULL, 'n'}, {"seed", required_argument, NULL, 'S'},
		{"output", required_argument, NULL, 'o'}, {"help", no_argument, NULL, 'h'},
		{"db", required_argument, NULL, 'd'},     {"no-db", no_argument, NULL, 'D'},
		{"no-mca", no_argument, NULL, 'M'},       {0}};
	struct eval_args a = {NULL, NULL, "palmed-eval", NULL, 200, 1, 0, 0};
	int c;
	char *end;
	optind = 0;
	while ((c = getopt_long(argc, argv, "+m:n:o:h", longopts, NULL)) != -1) {
		switch (c) {
		case 'm': a.model = optarg; break;
		case 's': a.sim = optarg; break;
		case 'o': a.dir = optarg; break;
		case 'd': a.db_path = optarg; break;
		case 'D': a.no_db = 1; break;
		case 'M': a.no_mca = 1; break;
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
	if ((a.sim ? eval_sim(&a) : eval_native(&a)) < 0) {
		fprintf(stderr, "perpi: palmed eval: %s\n", perpi_error());
		return 1;
	}
	return 0;
}
