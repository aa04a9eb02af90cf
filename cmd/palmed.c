/* `perpi palmed`: build a resource model from benchmarks, show it, predict
 * with it, evaluate it. */
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cmd/commands.h"
#include "common/util.h"
#include "palmed/bench.h"
#include "cmd/bench_cli.h"
#include "palmed/db.h"
#include "palmed/form_discover.h"
#include "palmed/infer.h"
#include "palmed/lift.h"
#include "palmed/infer_bench.h"
#include "palmed/model.h"
#include "cmd/palmed.h"
#include "palmed/predict.h"
#include "palmed/sim.h"

static void build_usage(FILE *out)
{
	fprintf(out,
		"usage: perpi palmed build [--forms FILE | --from perpi.data | --all | --sim MACHINE]\n"
		"                          [--db FILE | --no-db] [--budget N] [--training N]\n"
		"                          [-o MODEL] [-q]\n"
		"  (default forms: a built-in list of %zu common forms)\n"
		"  --forms FILE   the forms to model, one per line ('#' comments, '-': stdin)\n"
		"  --from FILE    the forms a run recorded by 'perpi record' executed (with\n"
		"                 --sim: measured on the simulated machine); repeatable: the\n"
		"                 forms of all the runs\n"
		"  --all          every form this CPU can benchmark (thousands: hours)\n"
		"  --sim MACHINE  infer the model of a simulated machine:",
		infer_default_nforms);
	for (size_t i = 0; sim_machine_at(i); i++)
		fprintf(out, " %s", sim_machine_at(i)->name);
	fprintf(out, "\n  --db FILE      measurement database (default: "
		     "$XDG_DATA_HOME/perpi/measurements.db);\n"
		     "                 measurements already there are reused: a build resumes\n"
		     "  --no-db        neither read nor store measurements\n"
		     "  --budget N     stop searching after N benchmarks (default: n^2/2 + 40n + 2000\n"
		     "                 for n forms)\n"
		     "  --training N   random short kernels measured after the search, for the\n"
		     "                 final fit of the usages (default: 1000 + 100n, at most\n"
		     "                 15000; 0: none)\n"
		     "  -o MODEL       where to write the model (default: "
		     "$XDG_DATA_HOME/perpi/model.json)\n"
		     "  -q             no progress\n");
}

/* mkdir -p of the directory part of path. */
static void make_parent_dirs(const char *path)
{
	char *dir = xstrdup(path);
	for (char *p = dir + 1; *p; p++)
		if (*p == '/') {
			*p = '\0';
			mkdir(dir, 0755);
			*p = '/';
		}
	free(dir);
}

struct build_args {
	const char *sim, *forms_file, *db_path, *out;
	const char **from; /* --from, repeatable */
	size_t nfrom;
	int all, no_db, quiet;
	long budget, training;
};

struct form_list {
	size_t n;
	const char **names; /* borrowed from kernels, the catalogue or static tables */
	struct kernel *kernels;
	size_t nkernels;
	struct form_catalogue catalogue;
	int have_catalogue;
	char **owned; /* --from: the names, owned */
};

static void form_list_done(struct form_list *l)
{
	free(l->names);
	if (l->kernels)
		bench_cli_free_kernels(l->kernels, l->nkernels);
	if (l->have_catalogue)
		form_catalogue_done(&l->catalogue);
	for (size_t i = 0; l->owned && i < l->n; i++)
		free(l->owned[i]);
	free(l->owned);
}

/* --from FILE...: the forms of the instructions recorded runs executed
 * (their union: the inference measures each form once). */
static int forms_from_trace(const struct build_args *a, struct form_list *l)
{
	for (size_t f = 0; f < a->nfrom; f++) {
		size_t n, undecoded;
		char **names;
		if (lift_trace_forms(a->from[f], &names, &n, &undecoded) < 0) {
			char *why = xstrdup(perpi_error());
			perpi_set_error("--from %s", why);
			free(why);
			return -1;
		}
		l->owned = xrealloc(l->owned, (l->n + n + 1) * sizeof(char *));
		l->names = xrealloc(l->names, (l->n + n + 1) * sizeof(char *));
		for (size_t i = 0; i < n; i++) {
			l->owned[l->n] = names[i];
			l->names[l->n++] = names[i];
		}
		free(names);
		if (!a->quiet)
			fprintf(stderr, "palmed: %zu forms from %s\n", n, a->from[f]);
		if (undecoded)
			perpi_warn("palmed build: %zu instructions of %s have no form (neither "
				   "Capstone nor Zydis decodes them)",
				   undecoded, a->from[f]);
	}
	return 0;
}

static int collect_forms(const struct build_args *a, const struct sim_machine *sim,
			 struct form_list *l)
{
	memset(l, 0, sizeof(*l));
	if (a->from) {
		if (forms_from_trace(a, l) < 0)
			return -1;
	} else if (sim) {
		l->names = xmalloc(sim->nforms * sizeof(char *));
		for (size_t i = 0; i < sim->nforms; i++)
			l->names[l->n++] = sim->forms[i].name;
	} else if (a->forms_file) {
		if (bench_cli_read_kernels(NULL, 0, a->forms_file, 1, &l->kernels, &l->nkernels) < 0)
			return -1;
		l->names = xmalloc((l->nkernels + 1) * sizeof(char *));
		for (size_t i = 0; i < l->nkernels; i++)
			l->names[l->n++] = l->kernels[i].terms[0].form;
	} else if (a->all) {
		struct bench_cli_progress p;
		bench_cli_progress_init(&p, "palmed: discovering forms");
		int rc = form_discover(NULL, 0, &l->catalogue, a->quiet ? NULL : bench_cli_progress,
				       &p);
		bench_cli_progress_end(&p);
		if (rc < 0)
			return -1;
		l->have_catalogue = 1;
		l->names = xmalloc((l->catalogue.n + 1) * sizeof(char *));
		for (size_t i = 0; i < l->catalogue.n; i++)
			if (!strcmp(l->catalogue.e[i].status, "ok"))
				l->names[l->n++] = l->catalogue.e[i].name;
	} else {
		l->names = xmalloc(infer_default_nforms * sizeof(char *));
		for (size_t i = 0; i < infer_default_nforms; i++)
			l->names[l->n++] = infer_default_forms[i];
	}
	if (l->n == 0)
		return perpi_set_error("no instruction forms to model");
	return 0;
}

static volatile sig_atomic_t build_stop;

static void on_stop(int sig)
{
	build_stop = sig;
}

static int build_model(const struct build_args *a, struct model **m, struct infer_stats *stats,
		       unsigned *cached)
{
	const struct sim_machine *sim = NULL;
	struct form_list forms;
	struct infer_options o;
	struct measure ms;
	if (a->sim && !(sim = sim_find(a->sim)))
		return perpi_set_error("no simulated machine '%s' (try: overlap, intel, zen)", a->sim);
	if (collect_forms(a, sim, &forms) < 0)
		return -1;
	int rc;
	if (sim) {
		infer_options_exact(&o);
		o.progress = a->quiet ? NULL : stderr;
		sim_measure(sim, &ms);
		rc = infer_model(&ms, forms.names, forms.n, &o, m, stats);
	} else {
		struct db *db = NULL;
		struct bench_options bo;
		struct infer_bench ib;
		if (!a->no_db && bench_cli_open_db(a->db_path, &db) < 0) {
			form_list_done(&forms);
			return -1;
		}
		bench_options_default(&bo);
		bo.stop = &build_stop;
		infer_bench_init(&ib, &bo, db, &ms);
		infer_options_noisy(&o);
		o.max_benchmarks = a->budget >= 0 ? (unsigned)a->budget
						  : (unsigned)(forms.n * forms.n / 2 + 40 * forms.n + 2000);
		o.train_kernels = a->training >= 0 ? (unsigned)a->training
						   : (unsigned)(forms.n * 100 + 1000 < 15000
								    ? forms.n * 100 + 1000
								    : 15000);
		o.progress = a->quiet ? NULL : stderr;
		/* Ctrl-C: stop, the kernels of the batch not measured yet given
		 * up (a second one kills at once); what was measured stays in
		 * the database. */
		struct sigaction sa, old_int, old_term;
		memset(&sa, 0, sizeof(sa));
		sa.sa_handler = on_stop;
		sa.sa_flags = SA_RESETHAND;
		sigemptyset(&sa.sa_mask);
		sigaction(SIGINT, &sa, &old_int);
		sigaction(SIGTERM, &sa, &old_term);
		o.stop = &build_stop;
		rc = infer_model(&ms, forms.names, forms.n, &o, m, stats);
		sigaction(SIGINT, &old_int, NULL);
		sigaction(SIGTERM, &old_term, NULL);
		if (rc < 0 && build_stop) {
			char *why = xstrdup(perpi_error());
			char *where = a->db_path ? xstrdup(a->db_path) : db_default_path();
			if (db)
				perpi_set_error("%s; the measurements are in %s: the same command "
						"resumes from them",
						why, where);
			else
				perpi_set_error("%s (--no-db: none kept)", why);
			free(where);
			free(why);
		}
		*cached = ib.cached;
		infer_bench_done(&ib);
		if (db)
			db_close(db);
	}
	form_list_done(&forms);
	return rc;
}

static int palmed_build(int argc, char **argv)
{
	static const struct option longopts[] = {
		{"sim", required_argument, NULL, 's'},   {"forms", required_argument, NULL, 'f'},
		{"all", no_argument, NULL, 'a'},         {"db", required_argument, NULL, 'd'},
		{"no-db", no_argument, NULL, 'n'},       {"budget", required_argument, NULL, 'b'},
		{"output", required_argument, NULL, 'o'}, {"quiet", no_argument, NULL, 'q'},
		{"from", required_argument, NULL, 'F'},  {"help", no_argument, NULL, 'h'},
		{"training", required_argument, NULL, 't'}, {0}};
	struct build_args a = {0};
	int c;
	a.budget = -1;
	a.training = -1;
	optind = 0;
	while ((c = getopt_long(argc, argv, "+o:qh", longopts, NULL)) != -1) {
		switch (c) {
		case 's': a.sim = optarg; break;
		case 'f': a.forms_file = optarg; break;
		case 'F':
			a.from = xrealloc(a.from, (a.nfrom + 1) * sizeof(char *));
			a.from[a.nfrom++] = optarg;
			break;
		case 'a': a.all = 1; break;
		case 'd': a.db_path = optarg; break;
		case 'n': a.no_db = 1; break;
		case 'o': a.out = optarg; break;
		case 'q': a.quiet = 1; break;
		case 't':
			if (bench_cli_count(optarg, &a.training, 0, 10000000) < 0) {
				fprintf(stderr, "perpi: palmed build: --training: %s\n",
					perpi_error());
				return 2;
			}
			break;
		case 'b':
			if (bench_cli_count(optarg, &a.budget, 1, 100000000) < 0) {
				fprintf(stderr, "perpi: palmed build: --budget: %s\n", perpi_error());
				return 2;
			}
			break;
		default: build_usage(c == 'h' ? stdout : stderr); return c == 'h' ? 0 : 2;
		}
	}
	if (optind < argc || (!!a.sim + !!a.forms_file + a.all) > 1 ||
	    (a.nfrom && (a.forms_file || a.all))) {
		fprintf(stderr, "perpi: palmed build: %s\n",
			optind < argc ? "unexpected argument"
				      : "give one of --forms, --from, --all (--sim goes with --from)");
		free(a.from);
		return 2;
	}
	char *def = a.out ? NULL : model_default_path();
	const char *out = a.out ? a.out : def;
	struct model *m = NULL;
	struct infer_stats stats;
	unsigned cached = 0;
	double start = perpi_now();
	int rc = build_model(&a, &m, &stats, &cached);
	if (rc == 0) {
		make_parent_dirs(out);
		rc = model_save(m, out);
	}
	if (rc < 0) {
		fprintf(stderr, "perpi: palmed build: %s\n", perpi_error());
		if (build_stop) {
			model_delete(m);
			free(def);
			free(a.from);
			return 128 + build_stop;
		}
	} else {
		printf("%s: %zu forms on %zu resources (%zu unmapped) from %u benchmarks", out,
		       m->nforms, m->nres, m->nunmapped, stats.benchmarks);
		if (cached)
			printf(" (%u found in the database)", cached);
		printf(" in %.1f s%s\n", perpi_now() - start,
		       stats.budget_exhausted ? "; the search stopped at the benchmark budget" : "");
	}
	model_delete(m);
	free(def);
	free(a.from);
	return rc < 0 ? 1 : 0;
}

static int palmed_show(int argc, char **argv)
{
	static const struct option longopts[] = {{"model", required_argument, NULL, 'm'},
						 {"dot", required_argument, NULL, 'd'},
						 {"help", no_argument, NULL, 'h'},
						 {0}};
	const char *path = NULL, *dot = NULL;
	int c;
	optind = 0;
	while ((c = getopt_long(argc, argv, "+m:h", longopts, NULL)) != -1) {
		if (c == 'm') {
			path = optarg;
		} else if (c == 'd') {
			dot = optarg;
		} else {
			fprintf(c == 'h' ? stdout : stderr,
				"usage: perpi palmed show [-m MODEL] [--dot FILE]\n"
				"  --dot FILE  also write the form/resource graph (Graphviz; '-' for "
				"stdout)\n");
			return c == 'h' ? 0 : 2;
		}
	}
	struct model *m;
	char *def = path ? NULL : model_default_path();
	if (model_load(path ? path : def, &m) < 0) {
		fprintf(stderr, "perpi: palmed show: %s\n", perpi_error());
		free(def);
		return 1;
	}
	printf("model: %s\n", path ? path : def);
	free(def);
	int rc = 0;
	if (dot && !strcmp(dot, "-")) {
		model_write_dot(m, stdout);
	} else {
		model_show(m, stdout);
		if (dot) {
			FILE *f = fopen(dot, "w");
			if (!f) {
				fprintf(stderr, "perpi: palmed show: cannot write '%s': %s\n", dot,
					strerror(errno));
				rc = 1;
			} else {
				model_write_dot(m, f);
				fclose(f);
			}
		}
	}
	model_delete(m);
	return rc;
}

static const struct {
	const char *name;
	int (*run)(int argc, char **argv);
	const char *summary;
} subcommands[] = {
	{"build", palmed_build, "infer the CPU's resource model from benchmarks"},
	{"show", palmed_show, "resources, the forms using each, and the graph"},
	{"predict", palmed_predict_main, "cycles, IPC and bottleneck of a kernel"},
	{"eval", palmed_eval_main, "accuracy on held-out kernels"},
};

int cmd_palmed(int argc, char **argv)
{
	if (argc >= 2)
		for (size_t i = 0; i < ARRAY_SIZE(subcommands); i++)
			if (!strcmp(argv[1], subcommands[i].name))
				return subcommands[i].run(argc - 1, argv + 1);
	int help = argc >= 2 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "help"));
	FILE *out = help ? stdout : stderr;
	if (argc >= 2 && !help)
		fprintf(stderr, "perpi: palmed: unknown subcommand '%s'\n", argv[1]);
	fprintf(out, "usage: perpi palmed SUBCOMMAND [OPTIONS]\n\n");
	for (size_t i = 0; i < ARRAY_SIZE(subcommands); i++)
		fprintf(out, "  %-8s %s\n", subcommands[i].name, subcommands[i].summary);
	fprintf(out, "\n'perpi palmed SUBCOMMAND --help' and 'man perpi-palmed' tell more.\n");
	return help ? 0 : 2;
}
