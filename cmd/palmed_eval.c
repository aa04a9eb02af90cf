/* `perpi palmed eval`: held-out kernels (random mixes of the model's forms
 * and the basic blocks of recorded runs) measured natively, or by a
 * simulated machine, and predicted by the model (and llvm-mca). */
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/util.h"
#include "palmed/bench.h"
#include "cmd/bench_cli.h"
#include "palmed/db.h"
#include "palmed/eval.h"
#include "palmed/eval_blocks.h"
#include "palmed/eval_gen.h"
#include "palmed/harness.h"
#include "palmed/infer.h"
#include "palmed/infer_bench.h"
#include "cmd/palmed.h"
#include "palmed/predict.h"
#include "palmed/sim.h"

struct eval_args {
	const char *model, *sim, *dir, *db_path, *generator, *core;
	const char **from; /* recorded runs, --from (repeatable) */
	size_t nfrom;
	unsigned count, seed, worst, passes;
	int no_db, no_mca;
};

static void usage(FILE *out)
{
	fprintf(out,
		"usage: perpi palmed eval [-m MODEL | --sim MACHINE] [-n KERNELS] [--seed N] "
		"[--from perpi.data]... [-o DIR]\n"
		"  --sim MACHINE  a simulated machine is the native reference; without -m its\n"
		"                 model is inferred first\n"
		"  -n KERNELS     held-out random kernels of 2-5 forms (default 200; 0: none,\n"
		"                 with --from)\n"
		"  --from FILE    also hold out the basic blocks of a run recorded by 'perpi\n"
		"                 record', weighted by their dynamic instructions (repeatable)\n"
		"  -o DIR         raw results (eval.csv) and scatter plots (eval-PREDICTOR.svg,\n"
		"                 eval-blocks-PREDICTOR.svg) (default palmed-eval)\n"
		"  --generator G  who writes the native kernels' code: 'independent' (the\n"
		"                 default: its own registers, memory patterns and loop-shaped\n"
		"                 mixes) or 'pipedream' (the generator the model was trained on)\n"
		"  --db FILE      measurement database for the native runs; --no-db: none\n"
		"  --no-mca       leave llvm-mca out even if llvm-mca-19 is installed\n"
		"  --core FILE    the core's parameters for the cycle model's row (default:\n"
		"                 $XDG_DATA_HOME/perpi/core.json, from 'perpi core'; without\n"
		"                 it the row is left out)\n"
		"  --worst N      list the N kernels that weigh most in the model's error\n"
		"                 after each table (default 10; 0: none)\n"
		"  --passes N     time the independent generator's kernels in N passes, the\n"
		"                 fastest of each kept (default 2; more on a noisy machine)\n");
}

/* The native reference: a simulated machine, or this CPU through the
 * Pipedream runner. */
struct reference {
	const struct sim_machine *sim;
	struct infer_bench ib; /* without sim */
	struct measure ms;     /* ib's, to measure many kernels at once */
	struct eval_gen *gen;  /* the independent generator writes the code, or NULL */
	char *gen_dir;
	int mca;	   /* llvm-mca is a second predictor */
	struct core *core; /* the cycle model on the generated code is a third, or NULL */
};

static volatile sig_atomic_t eval_stop;

static int reference_ipc(struct reference *ref, const struct kernel *k, double *ipc)
{
	if (ref->sim) {
		double cycles;
		if (sim_cycles(ref->sim, k, &cycles) < 0)
			return -1;
		*ipc = kernel_size(k) / cycles;
		return 0;
	}
	struct bench_result r;
	if (infer_bench_measure(&ref->ib, k, &r) < 0)
		return -1;
	*ipc = r.ipc;
	bench_result_done(&r);
	return 0;
}

/* The reference IPC of ks[0..n) into ipc, status (0 or -1) and errors
 * (malloc'd where status is -1): on this CPU all at once (one campaign of
 * the runner, far faster than one by one). */
static void reference_batch(struct reference *ref, const struct kernel *ks, size_t n, double *ipc,
			    int *status, char **errors)
{
	if (ref->gen) {
		eval_gen_measure(ref->gen, ks, n, ipc, status, errors, &eval_stop);
		for (size_t i = 0; i < n; i++)
			if (status[i] == 0)
				ipc[i] = kernel_size(&ks[i]) / ipc[i];
		return;
	}
	if (ref->sim || !ref->ms.cycles_many) {
		for (size_t i = 0; i < n; i++) {
			status[i] = reference_ipc(ref, &ks[i], &ipc[i]);
			errors[i] = status[i] < 0 ? xstrdup(perpi_error()) : NULL;
		}
		return;
	}
	ref->ms.cycles_many(ref->ms.ctx, ks, n, ipc, status, errors, NULL);
	for (size_t i = 0; i < n; i++)
		if (status[i] == 0)
			ipc[i] = kernel_size(&ks[i]) / ipc[i]; /* cycles to IPC */
}

/* Held-out kernels aligned with an eval_set's points once measured. */
struct heldout {
	struct kernel *ks;  /* owned */
	double *weight;	    /* owned; per kernel */
	const char **shape; /* owned array of static strings, or NULL: the set's name */
	size_t n;
	double refused; /* weight of the kernels the reference refused */
};

static void heldout_done(struct heldout *h)
{
	for (size_t i = 0; i < h->n; i++)
		kernel_done(&h->ks[i]);
	free(h->ks);
	free(h->weight);
	free(h->shape);
	memset(h, 0, sizeof(*h));
}

/* The independent generator draws from every form the model knows of,
 * mapped or not (the unmapped ones make its coverage), but those this CPU
 * does not run (an illegal instruction: a whole catalogue's model of a
 * Zen 3 lists 2,700 unmapped, most of them AVX-512, and 90 of 100 kernels
 * drawn faulted natively and were left out); the training generator's
 * mixes, from the mapped forms. */
static void random_heldout(const struct eval_args *a, struct reference *ref, const struct model *m,
			   struct heldout *h)
{
	h->n = a->count;
	h->ks = xcalloc(h->n + 1, sizeof(*h->ks));
	h->weight = xcalloc(h->n + 1, sizeof(*h->weight));
	h->shape = xcalloc(h->n + 1, sizeof(*h->shape));
	if (ref->gen) {
		const char **pool = xmalloc((m->nforms + m->nunmapped + 1) * sizeof(char *));
		size_t n = 0;
		for (size_t i = 0; i < m->nforms; i++)
			pool[n++] = m->forms[i];
		for (size_t i = 0; i < m->nunmapped; i++)
			if (!m->unmapped[i].reason ||
			    !strstr(m->unmapped[i].reason, "Illegal instruction"))
				pool[n++] = m->unmapped[i].form;
		size_t known = 0; /* of the model's (the generator learns their indexed twins too) */
		eval_gen_learn(ref->gen, pool, n);
		for (size_t i = 0; i < n; i++)
			known += eval_gen_refused(ref->gen, pool[i]) == NULL;
		fprintf(stderr,
			"palmed eval: the independent generator writes %zu of the %zu forms "
			"the model knows of\n",
			known, n);
		free(pool);
		eval_gen_draw(ref->gen, a->seed, h->n, m, h->ks, h->shape);
	} else {
		eval_random_kernels((const char *const *)m->forms, m->nforms, a->seed, h->n, m,
				    h->ks);
		for (size_t i = 0; i < h->n; i++)
			h->shape[i] = "random";
	}
	for (size_t i = 0; i < h->n; i++)
		h->weight[i] = 1;
}

/* Forms the reference cannot measure alone are left out of the blocks
 * (the first with its reason, then all of them in one line). */
static void refuse_forms(struct reference *ref, struct eval_blocks *eb)
{
	const char *const *forms;
	size_t n = eval_blocks_forms(eb, &forms), refused = 0;
	struct kernel *ks = xcalloc(n + 1, sizeof(*ks));
	double *ipc = xmalloc((n + 1) * sizeof(double));
	int *status = xmalloc((n + 1) * sizeof(int));
	char **errors = xcalloc(n + 1, sizeof(char *));
	struct strbuf names;
	strbuf_init(&names);
	if (ref->gen)
		eval_gen_learn(ref->gen, forms, n);
	for (size_t i = 0; i < n; i++)
		kernel_add(&ks[i], forms[i], 1);
	fprintf(stderr, "palmed eval: measuring the %zu forms of the blocks alone\n", n);
	reference_batch(ref, ks, n, ipc, status, errors);
	for (size_t i = 0; i < n; i++) {
		if (status[i] < 0) {
			if (!refused)
				perpi_warn("palmed eval: form %s left out of the blocks: %s",
					   forms[i], errors[i]);
			strbuf_addf(&names, " %s", forms[i]);
			eval_blocks_refuse(eb, forms[i]);
			refused++;
		}
		free(errors[i]);
		kernel_done(&ks[i]);
	}
	free(ks);
	free(ipc);
	free(status);
	free(errors);
	if (refused > 1)
		perpi_warn("palmed eval: %zu of %zu forms left out of the blocks (not measurable "
			   "alone):%s",
			   refused, n, names.buf);
	strbuf_done(&names);
}

static int blocks_heldout(const struct eval_args *a, struct reference *ref, const struct model *m,
			  struct heldout *h, struct eval_blocks_stats *st)
{
	struct eval_blocks *eb = eval_blocks_new();
	for (size_t i = 0; i < a->nfrom; i++)
		if (eval_blocks_read(eb, a->from[i]) < 0) {
			eval_blocks_delete(eb);
			return -1;
		}
	refuse_forms(ref, eb);
	struct eval_block_kernel *v;
	h->n = eval_blocks_kernels(eb, m, &v, st);
	h->ks = xcalloc(h->n + 1, sizeof(*h->ks));
	h->weight = xcalloc(h->n + 1, sizeof(*h->weight));
	for (size_t i = 0; i < h->n; i++) {
		h->ks[i] = v[i].kernel; /* moved */
		kernel_init(&v[i].kernel);
		h->weight[i] = (double)v[i].weight;
	}
	eval_block_kernels_free(v, h->n);
	eval_blocks_delete(eb);
	return 0;
}

/* Ctrl-C or SIGTERM: stop measuring, report on what was measured. */
static void on_stop(int sig)
{
	eval_stop = sig;
}

/* The reference IPC of every kernel; kernels it refuses (or that stay too
 * noisy to be a reference) are dropped, counted, and their weight kept. */
/* Kernel i measured: a point of s (kept in h), or dropped (counted). */
static void keep_or_drop(struct heldout *h, struct eval_set *s, size_t i, int status, double ipc,
			 const char *error, size_t *kept, size_t *dropped)
{
	char *spec = kernel_to_string(&h->ks[i]);
	if (status == 0) {
		size_t at = eval_add_point(s, spec, ipc); /* moves s->points */
		s->points[at].weight = h->weight[i];
		s->points[at].set = h->shape ? h->shape[i] : NULL;
		h->weight[*kept] = h->weight[i];
		if (h->shape)
			h->shape[*kept] = h->shape[i];
		h->ks[(*kept)++] = h->ks[i];
	} else {
		if (!(*dropped)++)
			perpi_warn("palmed eval: kernel %s left out: %s", spec, error);
		h->refused += h->weight[i];
		kernel_done(&h->ks[i]);
	}
	free(spec);
}

/* The reference IPC of every kernel, in slices; kernels it refuses (or
 * that stay too noisy to be a reference) are dropped, counted, and their
 * weight kept. A stop request ends the measuring: the kernels measured
 * so far are kept, the report covers them. */
static void measure_set(struct reference *ref, struct heldout *h, struct eval_set *s)
{
	struct bench_cli_progress p;
	size_t kept = 0, dropped = 0, done = 0, measured = 0;
	double *ipc = xmalloc((h->n + 1) * sizeof(double));
	int *status = xmalloc((h->n + 1) * sizeof(int));
	char **errors = xcalloc(h->n + 1, sizeof(char *));
	const char *what = strcmp(s->name, "blocks") ? s->name : "block";
	bench_cli_progress_init(&p, "palmed eval: measuring");
	while (done < h->n && !eval_stop) {
		size_t m = h->n - done < 64 ? h->n - done : 64;
		reference_batch(ref, h->ks + done, m, ipc + done, status + done, errors + done);
		for (size_t i = done; i < done + m; i++) {
			if (status[i] < 0 && errors[i] && !strcmp(errors[i], "interrupted")) {
				kernel_done(&h->ks[i]); /* not measured: neither kept nor dropped */
				continue;
			}
			measured++;
			keep_or_drop(h, s, i, status[i], ipc[i], errors[i], &kept, &dropped);
		}
		done += m;
		bench_cli_progress(&p, done, h->n);
	}
	bench_cli_progress_end(&p);
	if (eval_stop) {
		perpi_warn(
		    "palmed eval: interrupted: %zu of the %zu %s kernels measured, the report "
		    "covers those",
		    measured, h->n, what);
		for (size_t j = done; j < h->n; j++)
			kernel_done(&h->ks[j]);
	}
	if (dropped > 1)
		perpi_warn("palmed eval: %zu %s kernels left out in all", dropped, what);
	h->n = kept;
	for (size_t i = 0; i < done; i++)
		free(errors[i]);
	free(ipc);
	free(status);
	free(errors);
}

static void predict_points(const struct model *m, struct eval_set *s, size_t pred,
			   const struct kernel *ks)
{
	for (size_t i = 0; i < s->n; i++) {
		struct prediction p;
		if (model_predict(m, &ks[i], &p) < 0)
			continue; /* owns nothing on failure (palmed/model.h) */
		if (p.nuncovered == 0)
			s->points[i].pred[pred] = p.ipc;
		prediction_done(&p);
	}
}

static void predict_mca(struct reference *ref, struct eval_set *s, size_t pred,
			const struct kernel *ks)
{
	for (size_t i = 0; i < s->n; i++) {
		char *text = ref->gen ? eval_gen_asm(ref->gen, &ks[i], NULL)
				      : bench_kernel_asm(ref->ib.bench, &ks[i], 0);
		double ipc;
		if (text && eval_mca_ipc(text, &ipc) == 0)
			s->points[i].pred[pred] = ipc;
		free(text);
	}
}

/* The "cycles" row: perpi's cycle model on the code the native run timed
 * (the independent generator's; palmed/eval_code.c). */
static void predict_cycles(struct reference *ref, const struct model *m, struct eval_set *s,
			   size_t pred, const struct kernel *ks)
{
	size_t failed = 0;
	for (size_t i = 0; i < s->n && !eval_stop; i++) {
		unsigned copies;
		char *text = eval_gen_asm(ref->gen, &ks[i], &copies);
		double ipc;
		if (text && eval_code_ipc(m, ref->core, ref->gen_dir, text, copies,
					  (unsigned)kernel_size(&ks[i]), &ipc) == 0)
			s->points[i].pred[pred] = ipc;
		else if (failed++ == 0)
			perpi_warn("palmed eval: cycle model: %s", perpi_error());
		free(text);
	}
	if (failed > 1)
		perpi_warn("palmed eval: cycle model: %zu kernels not predicted", failed);
}

/* The "harness" row: each kernel timed as the build times the kernels a
 * model is made of (perpi bench's loop of the kernel's forms), where the
 * native figure is the independent generator's code of it. The two differ
 * by what a throughput model of forms cannot know (which registers and
 * addresses the code uses); no model fitted to the harness gets closer to
 * native than the harness itself. Kernels the harness times only with
 * helpers are left uncovered. */
static void predict_harness(struct reference *ref, struct eval_set *s, size_t pred,
			    const struct kernel *ks)
{
	struct bench_cli_progress p;
	double *cycles = xmalloc((s->n + 1) * sizeof(double));
	int *status = xmalloc((s->n + 1) * sizeof(int));
	char **errors = xcalloc(s->n + 1, sizeof(char *));
	size_t done = 0;
	bench_cli_progress_init(&p, "palmed eval: the same kernels in perpi's harness");
	while (done < s->n && !eval_stop) {
		size_t m = s->n - done < 64 ? s->n - done : 64;
		ref->ms.cycles_many(ref->ms.ctx, ks + done, m, cycles + done, status + done,
				    errors + done, NULL);
		for (size_t i = done; i < done + m; i++) {
			if (status[i] == 0 && cycles[i] > 0)
				s->points[i].pred[pred] = kernel_size(&ks[i]) / cycles[i];
			free(errors[i]);
		}
		done += m;
		bench_cli_progress(&p, done, s->n);
	}
	bench_cli_progress_end(&p);
	free(cycles);
	free(status);
	free(errors);
}

/* Both sets measured, predicted and reported (sets[1]: the blocks). */
static int evaluate(const struct eval_args *a, struct reference *ref, const struct model *m)
{
	struct heldout h[2] = {{0}};
	struct eval_set s[2];
	struct eval_blocks_stats st;
	eval_set_init(&s[0]);
	eval_set_init(&s[1]);
	s[1].name = "blocks";
	s[1].weighted = 1;
	int rc = 0;
	if (a->count)
		random_heldout(a, ref, m, &h[0]);
	if (a->nfrom)
		rc = blocks_heldout(a, ref, m, &h[1], &st);
	for (size_t k = 0; k < 2 && rc == 0; k++) {
		measure_set(ref, &h[k], &s[k]);
		size_t pred = eval_add_predictor(&s[k], "palmed");
		predict_points(m, &s[k], pred, h[k].ks);
		if (ref->mca)
			predict_mca(ref, &s[k], eval_add_predictor(&s[k], "llvm-mca"), h[k].ks);
		if (ref->gen && ref->core)
			predict_cycles(ref, m, &s[k], eval_add_predictor(&s[k], "cycles"), h[k].ks);
		if (ref->gen && ref->ms.cycles_many && s[k].n && !eval_stop)
			predict_harness(ref, &s[k], eval_add_predictor(&s[k], "harness"), h[k].ks);
	}
	if (rc == 0 && s[0].n + s[1].n == 0)
		rc = perpi_set_error("no held-out kernel could be measured");
	if (rc == 0) {
		if (ref->sim)
			printf("reference: simulated machine '%s'", ref->sim->name);
		else
			printf("reference: this CPU, measured");
		printf("; model of %zu forms, %zu resources, %u benchmarks\n", m->nforms, m->nres,
		       m->benchmarks);
		if (ref->gen) {
			unsigned passes;
			size_t timed, first, later;
			eval_gen_passes(ref->gen, &passes, &timed, &first, &later);
			printf(
			    "native timings: %zu kernels measured in %u passes, the fastest kept "
			    "(%zu ran over 5%% faster in the first, %zu in a later one)\n",
			    timed, passes, first, later);
		}
		if (a->count) {
			palmed_eval_print_table(&s[0]);
			palmed_eval_print_worst(&s[0], a->worst);
		}
		if (a->nfrom) {
			palmed_eval_print_blocks(a->from, a->nfrom, &st, h[1].refused, &s[1]);
			palmed_eval_print_worst(&s[1], a->worst);
		}
		rc = palmed_eval_write_results(s, a->dir);
	}
	for (size_t k = 0; k < 2; k++) {
		heldout_done(&h[k]);
		eval_set_done(&s[k]);
	}
	return rc;
}

static int sim_model(const struct sim_machine *sim, const struct eval_args *a, struct model **m)
{
	if (a->model) {
		if (model_load(a->model, m) < 0)
			return -1;
		if (model_load_measurements(*m) == 0)
			return 0;
		model_delete(*m);
		*m = NULL;
		return -1;
	}
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

static int eval_sim(const struct eval_args *a)
{
	struct reference ref;
	struct model *m;
	memset(&ref, 0, sizeof(ref));
	ref.sim = sim_find(a->sim);
	if (!ref.sim)
		return perpi_set_error("no simulated machine '%s' (try: overlap, intel, zen)",
				       a->sim);
	if (sim_model(ref.sim, a, &m) < 0)
		return -1;
	int rc = evaluate(a, &ref, m);
	model_delete(m);
	return rc;
}

/* The core file for the cycle model's row: --core's (an error if it
 * cannot be read), else the default one if there is one (NULL: no row). */
static int load_core(const struct eval_args *a, struct core **out)
{
	*out = NULL;
	if (a->core) {
		if (core_load(a->core, out) < 0)
			return -1;
		core_check_cpu(*out);
		return 0;
	}
	char *path = core_default_path();
	int rc = 0;
	if (path && access(path, R_OK) == 0) {
		rc = core_load(path, out);
		if (rc == 0)
			core_check_cpu(*out);
	} else {
		perpi_warn("palmed eval: no core file (%s; 'perpi core' measures one): the "
			   "cycle model's row is left out",
			   path ? path : "no data directory");
	}
	free(path);
	return rc;
}

static int eval_native(const struct eval_args *a)
{
	struct model *m;
	struct db *db = NULL;
	if (model_load_for_use(a->model, &m) < 0)
		return -1;
	if (model_load_measurements(m) < 0) { /* never hold out a kernel of the build */
		model_delete(m);
		return -1;
	}
	if (!a->no_db && bench_cli_open_db(a->db_path, &db) < 0) {
		model_delete(m);
		return -1;
	}
	struct bench_options bo;
	struct reference ref;
	memset(&ref, 0, sizeof(ref));
	bench_options_default(&bo);
	bo.stop = &eval_stop; /* the runner stops within a tenth of a second */
	infer_bench_init(&ref.ib, &bo, db, &ref.ms);
	ref.ib.stop = &eval_stop;
	ref.mca = !a->no_mca && eval_mca_available();
	int rc = 0;
	if (strcmp(a->generator, "pipedream"))
		rc = load_core(a, &ref.core);
	if (rc == 0 && strcmp(a->generator, "pipedream")) {
		ref.gen_dir = harness_make_dir();
		if (!ref.gen_dir)
			rc = -1;
		else
			ref.gen = eval_gen_new(ref.gen_dir);
		if (ref.gen)
			eval_gen_set_passes(ref.gen, a->passes);
	}
	if (rc == 0)
		rc = evaluate(a, &ref, m);
	eval_gen_delete(ref.gen);
	if (ref.gen_dir) {
		harness_remove_dir(ref.gen_dir);
		free(ref.gen_dir);
	}
	infer_bench_done(&ref.ib);
	if (ref.core)
		core_delete(ref.core);
	if (db)
		db_close(db);
	model_delete(m);
	return rc;
}

static int parse_number(int c, const char *text, struct eval_args *a)
{
	char *end;
	unsigned long v = strtoul(text, &end, 10);
	if (c == 'p' && (*end || !*text || v < 1 || v > 20)) {
		fprintf(stderr, "perpi: palmed eval: --passes: '%s' is not a number from 1 to 20\n",
			text);
		return -1;
	}
	if (*end || !*text || (c != 'S' && v > 100000)) {
		fprintf(stderr, "perpi: palmed eval: bad number '%s'\n", text);
		return -1;
	}
	*(c == 'n'   ? &a->count
	  : c == 'w' ? &a->worst
	  : c == 'p' ? &a->passes
		     : &a->seed) = (unsigned)v;
	return 0;
}

static const struct option eval_options[] = {
    {"model", required_argument, NULL, 'm'},	 {"sim", required_argument, NULL, 's'},
    {"kernels", required_argument, NULL, 'n'},	 {"seed", required_argument, NULL, 'S'},
    {"output", required_argument, NULL, 'o'},	 {"help", no_argument, NULL, 'h'},
    {"db", required_argument, NULL, 'd'},	 {"no-db", no_argument, NULL, 'D'},
    {"no-mca", no_argument, NULL, 'M'},		 {"from", required_argument, NULL, 'f'},
    {"generator", required_argument, NULL, 'g'}, {"core", required_argument, NULL, 'c'},
    {"worst", required_argument, NULL, 'w'},	 {"passes", required_argument, NULL, 'p'},
    {0}};

/* One option into a; returns 0, 2 (a usage error) or -1 (--help). */
static int parse_option(int c, struct eval_args *a)
{
	switch (c) {
	case 'm':
		a->model = optarg;
		return 0;
	case 's':
		a->sim = optarg;
		return 0;
	case 'o':
		a->dir = optarg;
		return 0;
	case 'd':
		a->db_path = optarg;
		return 0;
	case 'D':
		a->no_db = 1;
		return 0;
	case 'M':
		a->no_mca = 1;
		return 0;
	case 'c':
		a->core = optarg;
		return 0;
	case 'g':
		a->generator = optarg;
		if (!strcmp(optarg, "independent") || !strcmp(optarg, "pipedream"))
			return 0;
		fprintf(stderr,
			"perpi: palmed eval: --generator: '%s' is neither 'independent' nor "
			"'pipedream'\n",
			optarg);
		return 2;
	case 'f':
		a->from = xrealloc(a->from, (a->nfrom + 1) * sizeof(*a->from));
		a->from[a->nfrom++] = optarg;
		return 0;
	case 'n':
	case 'S':
	case 'w':
	case 'p':
		return parse_number(c, optarg, a) < 0 ? 2 : 0;
	default:
		usage(c == 'h' ? stdout : stderr);
		return c == 'h' ? -1 : 2;
	}
}

static int parse_args(int argc, char **argv, struct eval_args *a)
{
	int c, rc = 0;
	optind = 0;
	while (rc == 0 && (c = getopt_long(argc, argv, "+m:n:o:h", eval_options, NULL)) != -1)
		rc = parse_option(c, a);
	if (rc == 0 && a->count == 0 && !a->nfrom) {
		fprintf(stderr, "perpi: palmed eval: -n 0 holds out nothing without --from\n");
		rc = 2;
	}
	if (rc == 0 && optind < argc) {
		fprintf(stderr, "perpi: palmed eval: unexpected argument '%s'\n", argv[optind]);
		rc = 2;
	}
	return rc;
}

int palmed_eval_main(int argc, char **argv)
{
	struct eval_args a = {
	    .dir = "palmed-eval", .generator = "independent", .count = 200, .seed = 1, .worst = 10, .passes = 2};
	int rc = parse_args(argc, argv, &a);
	struct sigaction sa;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_stop;
	sa.sa_flags = SA_RESETHAND; /* a second Ctrl-C stops at once */
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	if (rc == 0 && (a.sim ? eval_sim(&a) : eval_native(&a)) < 0) {
		fprintf(stderr, "perpi: palmed eval: %s\n", perpi_error());
		rc = 1;
	}
	signal(SIGINT, SIG_DFL);
	signal(SIGTERM, SIG_DFL);
	if (rc == 0 && eval_stop)
		rc = 128 + eval_stop;
	free(a.from);
	return rc < 0 ? 0 : rc;
}
