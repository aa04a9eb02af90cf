/* `perpi palmed build`: the forms to model and the core, the measuring
 * machine (this CPU through the benchmark runner and its database, or a
 * simulated one), Ctrl-C, and the model file. */
#include <getopt.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cmd/bench_cli.h"
#include "cmd/palmed.h"
#include "common/util.h"
#include "palmed/bench.h"
#include "palmed/db.h"
#include "palmed/form_discover.h"
#include "palmed/infer.h"
#include "palmed/infer_bench.h"
#include "palmed/lift.h"
#include "palmed/model.h"
#include "palmed/sim.h"

static void build_usage(FILE *out)
{
	fprintf(out,
		"usage: perpi palmed build [--forms FILE | --from perpi.data | --sim MACHINE]\n"
		"                          [--core FILE] [--db FILE | --no-db] [--budget N]\n"
		"                          [--training N] [--resources N] [--seed N] [--cores N]\n"
		"                          [-o MODEL] [-q]\n"
		"  (default: every form this CPU can benchmark, 'perpi forms discover': a core\n"
		"  of %zu common forms is inferred first, every other form is mapped onto its\n"
		"  resources)\n"
		"  --forms FILE   model these forms, one per line ('#' comments, '-': stdin);\n"
		"                 without --core they are all the core\n"
		"  --from FILE    model the forms a run recorded by 'perpi record' executed (with\n"
		"                 --sim: on the simulated machine); repeatable\n"
		"  --core FILE    the forms inferred first (default: the built-in list; with\n"
		"                 --forms, those forms; with --sim, the machine's core)\n"
		"  --sim MACHINE  infer the model of a simulated machine:",
		infer_default_nforms);
	for (size_t i = 0; sim_machine_at(i); i++)
		fprintf(out, " %s", sim_machine_at(i)->name);
	fprintf(out,
		"\n  --db FILE      measurement database (default: "
		"$XDG_DATA_HOME/perpi/measurements.db);\n"
		"                 measurements already there are reused: a build resumes\n"
		"  --no-db        neither read nor store measurements\n"
		"  --retry-refused  measure again the kernels the database remembers as\n"
		"                 refused (repetitions that spread, a form's verdict)\n"
		"  --busy-wait S  wait at most S seconds in all for a busy host (a sibling\n"
		"                 thread, another guest) to measure again the kernels it\n"
		"                 disturbed throughout (default 600; 0: leave them out)\n"
		"  --budget N     stop the core's search after N benchmarks (default:\n"
		"                 n^2/2 + 40n + 2000 for n core forms)\n"
		"  --probes N     map a form with at most about N probes (default 24): a\n"
		"                 core with more groups of resources maps each form as a\n"
		"                 combination of core forms, from N probes\n"
		"  --exhaustive   map every form against every core resource alone (Palmed's\n"
		"                 way: slower; for measuring what the groups cost)\n"
		"  --split        split a core resource where pairs of mapped forms show\n"
		"                 that they do not share it (default: keep it whole)\n"
		"  --no-siblings  probe every form against the core's resources, even one\n"
		"                 that runs as a core form of its shape does, or an\n"
		"                 indexed memory form whose unindexed form is mapped\n"
		"  --training N   random short kernels of core forms measured after the\n"
		"                 search, for the final fit (default: 1000 + 100n, at most\n"
		"                 15000; 0: none)\n"
		"  --resources N  keep the N core resources that explain the measurements\n"
		"                 best, then fit again (default 20; 0: every one found)\n"
		"  --mixes N      check every mapped form in N random mixes with core forms,\n"
		"                 and one beside each resource it uses, and refit its\n"
		"                 usages to them (default 3; 0: no check)\n"
		"  --seed N       the seed of the core's random mixes and training kernels\n"
		"                 (default 1)\n"
		"  --cores N      infer N cores (seeds --seed, --seed + 1...), map every form\n"
		"                 onto each, and predict with the mean of their cycles\n"
		"                 (default: 2 for the catalogue of this CPU, else 1)\n"
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
	const char *sim, *forms_file, *core_file, *db_path, *out;
	const char **from; /* --from, repeatable */
	size_t nfrom;
	int no_db, quiet, exhaustive, retry_refused, split, no_siblings;
	long budget, training, probes, resources, mixes, seed, cores;
	double busy_wait; /* --busy-wait (negative: the default) */
};

/* Names to model, owned. */
struct names {
	size_t n;
	char **v;
};

static void names_add(struct names *l, const char *name)
{
	l->v = xrealloc(l->v, (l->n + 1) * sizeof(char *));
	l->v[l->n++] = xstrdup(name);
}

static void names_done(struct names *l)
{
	for (size_t i = 0; i < l->n; i++)
		free(l->v[i]);
	free(l->v);
	memset(l, 0, sizeof(*l));
}

static int names_from_file(const char *path, struct names *l)
{
	struct kernel *ks;
	size_t nk;
	if (bench_cli_read_kernels(NULL, 0, path, 1, &ks, &nk) < 0)
		return -1;
	for (size_t i = 0; i < nk; i++)
		names_add(l, ks[i].terms[0].form);
	bench_cli_free_kernels(ks, nk);
	return 0;
}

/* --from FILE...: the forms of the instructions recorded runs executed
 * (their union: each form is measured once). */
static int names_from_traces(const struct build_args *a, struct names *l)
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
		for (size_t i = 0; i < n; i++) {
			names_add(l, names[i]);
			free(names[i]);
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

/* Every form this CPU can benchmark; the others go to unmapped (the
 * catalogue's reasons) so that coverage can say why. */
static int names_from_catalogue(const struct build_args *a, struct names *l, struct names *refused,
				struct names *why)
{
	struct form_catalogue cat;
	struct bench_cli_progress p;
	bench_cli_progress_init(&p, "palmed: discovering forms");
	int rc = form_discover(NULL, 0, &cat, a->quiet ? NULL : bench_cli_progress, &p);
	bench_cli_progress_end(&p);
	if (rc < 0)
		return -1;
	for (size_t i = 0; i < cat.n; i++)
		if (!strcmp(cat.e[i].status, "ok")) {
			names_add(l, cat.e[i].name);
		} else {
			names_add(refused, cat.e[i].name);
			names_add(why, cat.e[i].reason ? cat.e[i].reason : cat.e[i].status);
		}
	if (!a->quiet)
		fprintf(stderr, "palmed: %zu forms this CPU can benchmark, %zu it cannot\n", l->n,
			refused->n);
	form_catalogue_done(&cat);
	return 0;
}

/* What to model (forms) and what to infer first (core; empty: every form
 * together), with the forms known beforehand not to be measurable. */
struct plan {
	struct names forms, core, refused, why;
};

static void plan_done(struct plan *p)
{
	names_done(&p->forms);
	names_done(&p->core);
	names_done(&p->refused);
	names_done(&p->why);
}

static int names_index(const struct names *l, const char *name)
{
	for (size_t i = 0; i < l->n; i++)
		if (!strcmp(l->v[i], name))
			return (int)i;
	return -1;
}

/* The built-in core less the forms this CPU cannot run (its AVX-512 forms
 * on a CPU without AVX-512): left out up front, listed unmapped with the
 * catalogue's reason, rather than measured into faults. With the whole
 * catalogue discovered its verdicts are in p->refused; otherwise the core
 * is checked alone (about a second). */
static int builtin_core_runnable(const struct build_args *a, struct plan *p)
{
	size_t left_out = 0;
	if (p->refused.n == 0) {
		struct form_catalogue cat;
		if (form_check(infer_default_forms, infer_default_nforms, &cat) < 0)
			return -1;
		for (size_t i = 0; i < cat.n; i++)
			if (strcmp(cat.e[i].status, "ok")) {
				names_add(&p->refused, cat.e[i].name);
				names_add(&p->why,
					  cat.e[i].reason ? cat.e[i].reason : cat.e[i].status);
			}
		form_catalogue_done(&cat);
	}
	for (size_t i = 0; i < infer_default_nforms; i++) {
		int r = names_index(&p->refused, infer_default_forms[i]);
		if (r < 0) {
			names_add(&p->core, infer_default_forms[i]);
			continue;
		}
		if (!a->quiet)
			fprintf(stderr, "palmed: core form %s left out: %s\n",
				infer_default_forms[i], p->why.v[r]);
		left_out++;
	}
	if (left_out && !a->quiet)
		fprintf(
		    stderr,
		    "palmed: a core of %zu forms (%zu of the built-in %zu this CPU cannot run)\n",
		    p->core.n, left_out, infer_default_nforms);
	return 0;
}

static int make_plan(const struct build_args *a, const struct sim_machine *sim, struct plan *p)
{
	int rc = 0, builtin_core = 0;
	memset(p, 0, sizeof(*p));
	if (a->nfrom) {
		rc = names_from_traces(a, &p->forms);
		builtin_core = !sim;
	} else if (a->forms_file) {
		rc = names_from_file(a->forms_file, &p->forms);
	} else if (sim) {
		for (size_t i = 0; i < sim->nforms; i++)
			names_add(&p->forms, sim->forms[i].name);
	} else {
		rc = names_from_catalogue(a, &p->forms, &p->refused, &p->why);
		builtin_core = 1;
	}
	if (rc == 0 && a->core_file) {
		rc = names_from_file(a->core_file, &p->core);
	} else if (rc == 0 && sim && !a->forms_file && sim->core) {
		for (size_t i = 0; i < sim->ncore; i++)
			names_add(&p->core, sim->core[i]);
	} else if (rc == 0 && builtin_core) {
		rc = builtin_core_runnable(a, p);
	}
	if (rc == 0 && p->forms.n == 0)
		rc = perpi_set_error("no instruction forms to model");
	return rc;
}

/* core's measurements that m lacks, into m; returns how many. */
static unsigned take_measurements(struct model *m, const struct model *core)
{
	model_sort_measurements(m);
	char *fresh = xcalloc(core->nmeas + 1, 1);
	for (size_t i = 0; i < core->nmeas; i++)
		fresh[i] = !model_measured(m, core->meas[i].kernel);
	unsigned added = 0;
	for (size_t i = 0; i < core->nmeas; i++)
		if (fresh[i]) {
			model_add_measurement(m, core->meas[i].kernel, core->meas[i].cycles);
			added++;
		}
	free(fresh);
	return added;
}

/* --cores, else 2 for this CPU's catalogue (the default build: two cores
 * predict kernels perpi did not generate better than either alone,
 * docs/MODEL.md, "Several cores"), 1 for chosen forms or a simulated
 * machine. */
static unsigned ncores(const struct build_args *a)
{
	if (a->cores > 0)
		return (unsigned)a->cores;
	return a->sim || a->forms_file || a->nfrom ? 1 : 2;
}

/* infer_model once for each of n cores, from seeds o->seed, o->seed + 1...:
 * the first is the model, the others its further cores (model.cores),
 * their measurements its own. */
static int infer_cores(const struct measure *ms, const struct plan *p, struct infer_options *o,
		       unsigned n, struct model **m, struct infer_stats *stats)
{
	unsigned seed = o->seed;
	int rc = infer_model(ms, (const char *const *)p->forms.v, p->forms.n, o, m, stats);
	for (unsigned c = 1; rc == 0 && c < n; c++) {
		struct model *core;
		struct infer_stats st;
		o->seed = seed + c;
		if (o->progress)
			fprintf(o->progress, "palmed: core %u of %u (--seed %u)\n", c + 1, n,
				o->seed);
		rc = infer_model(ms, (const char *const *)p->forms.v, p->forms.n, o, &core, &st);
		if (rc < 0)
			break;
		stats->benchmarks += take_measurements(*m, core);
		stats->budget_exhausted |= st.budget_exhausted;
		model_add_core(*m, core);
	}
	o->seed = seed;
	if (rc < 0) {
		model_delete(*m);
		*m = NULL;
	}
	return rc;
}

static volatile sig_atomic_t build_stop;

static void on_stop(int sig)
{
	build_stop = sig;
}

static void set_options(const struct build_args *a, const struct plan *p, struct infer_options *o)
{
	size_t n = p->core.n ? p->core.n : p->forms.n;
	infer_options_noisy(o);
	o->max_benchmarks =
	    a->budget >= 0 ? (unsigned)a->budget : (unsigned)(n * n / 2 + 40 * n + 2000);
	o->train_kernels = a->training >= 0
			       ? (unsigned)a->training
			       : (unsigned)(n * 100 + 1000 < 15000 ? n * 100 + 1000 : 15000);
	if (a->resources >= 0)
		o->max_resources = (unsigned)a->resources;
	if (a->busy_wait >= 0)
		o->busy_wait = a->busy_wait > 0 ? a->busy_wait : -1;
}

/* This CPU: the runner, its database, Ctrl-C. */
static int build_native(const struct build_args *a, struct infer_options *o, const struct plan *p,
			struct model **m, struct infer_stats *stats, unsigned *cached)
{
	struct db *db = NULL;
	struct bench_options bo;
	struct infer_bench ib;
	struct measure ms;
	if (!a->no_db && bench_cli_open_db(a->db_path, &db) < 0)
		return -1;
	bench_options_default(&bo);
	bo.stop = &build_stop; /* the runner stops within a tenth of a second */
	infer_bench_init(&ib, &bo, db, &ms);
	ib.stop = &build_stop;
	ib.retry_refused = a->retry_refused;
	/* Ctrl-C: stop between two slices of measurements (a second one
	 * kills at once); what was measured stays in the database. */
	struct sigaction sa, old_int, old_term;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_stop;
	sa.sa_flags = SA_RESETHAND;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, &old_int);
	sigaction(SIGTERM, &sa, &old_term);
	o->stop = &build_stop;
	int rc = infer_cores(&ms, p, o, ncores(a), m, stats);
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
	return rc;
}

static int build_model(const struct build_args *a, struct model **m, struct infer_stats *stats,
		       unsigned *cached)
{
	const struct sim_machine *sim = NULL;
	struct plan p;
	struct infer_options o;
	if (a->sim && !(sim = sim_find(a->sim)))
		return perpi_set_error("no simulated machine '%s' (try: overlap, intel, zen, "
				       "catalogue)",
				       a->sim);
	if (make_plan(a, sim, &p) < 0) {
		plan_done(&p);
		return -1;
	}
	int rc;
	if (sim)
		infer_options_exact(&o);
	else
		set_options(a, &p, &o);
	if (a->seed >= 0)
		o.seed = (unsigned)a->seed;
	o.progress = a->quiet ? NULL : stderr;
	o.core = p.core.n ? (const char *const *)p.core.v : NULL;
	o.map_exhaustive = a->exhaustive;
	o.map_split = a->split;
	o.map_no_siblings = a->no_siblings;
	o.map_probes = a->probes > 0 ? (unsigned)a->probes : 0;
	o.ncore = p.core.n;
	o.polish = a->mixes >= 0 ? (unsigned)a->mixes : 3;
	if (sim) {
		struct measure ms;
		sim_measure(sim, &ms);
		rc = infer_cores(&ms, &p, &o, ncores(a), m, stats);
	} else {
		rc = build_native(a, &o, &p, m, stats, cached);
	}
	for (size_t i = 0; rc == 0 && i < p.refused.n; i++)
		if (model_form_index(*m, p.refused.v[i]) < 0 &&
		    !model_unmapped_reason(*m, p.refused.v[i]))
			model_add_unmapped(*m, p.refused.v[i], p.why.v[i]);
	plan_done(&p);
	return rc;
}

static const struct option build_options[] = {{"sim", required_argument, NULL, 's'},
					      {"forms", required_argument, NULL, 'f'},
					      {"all", no_argument, NULL, 'a'},
					      {"db", required_argument, NULL, 'd'},
					      {"no-db", no_argument, NULL, 'n'},
					      {"budget", required_argument, NULL, 'b'},
					      {"output", required_argument, NULL, 'o'},
					      {"quiet", no_argument, NULL, 'q'},
					      {"from", required_argument, NULL, 'F'},
					      {"help", no_argument, NULL, 'h'},
					      {"training", required_argument, NULL, 't'},
					      {"core", required_argument, NULL, 'c'},
					      {"exhaustive", no_argument, NULL, 'x'},
					      {"no-split", no_argument, NULL, 'S'},
					      {"split", no_argument, NULL, 'P'},
					      {"no-siblings", no_argument, NULL, 'N'},
					      {"probes", required_argument, NULL, 'p'},
					      {"retry-refused", no_argument, NULL, 'R'},
					      {"busy-wait", required_argument, NULL, 'W'},
					      {"resources", required_argument, NULL, 'r'},
					      {"mixes", required_argument, NULL, 'M'},
					      {"seed", required_argument, NULL, 'e'},
					      {"cores", required_argument, NULL, 'C'},
					      {0}};

/* --budget, --training, --probes, --resources, --mixes, --seed, --cores.
 * Returns 0 or 2. */
static int parse_count(int c, struct build_args *a)
{
	long *v = c == 't'   ? &a->training
		  : c == 'b' ? &a->budget
		  : c == 'r' ? &a->resources
		  : c == 'M' ? &a->mixes
		  : c == 'e' ? &a->seed
		  : c == 'C' ? &a->cores
			     : &a->probes;
	int zero = c == 't' || c == 'r' || c == 'M' || c == 'e';
	if (bench_cli_count(optarg, v, !zero,
			    c == 't'   ? 10000000
			    : c == 'M' ? 100
			    : c == 'C' ? 8
				       : 100000000) == 0)
		return 0;
	fprintf(stderr, "perpi: palmed build: --%s: %s\n",
		c == 't'   ? "training"
		: c == 'b' ? "budget"
		: c == 'r' ? "resources"
		: c == 'M' ? "mixes"
		: c == 'e' ? "seed"
		: c == 'C' ? "cores"
			   : "probes",
		perpi_error());
	return 2;
}

/* One option into a; returns 0, 2 (a usage error) or -1 (--help). */
static int parse_option(int c, struct build_args *a)
{
	switch (c) {
	case 's':
		a->sim = optarg;
		return 0;
	case 'f':
		a->forms_file = optarg;
		return 0;
	case 'c':
		a->core_file = optarg;
		return 0;
	case 'F':
		a->from = xrealloc(a->from, (a->nfrom + 1) * sizeof(char *));
		a->from[a->nfrom++] = optarg;
		return 0;
	case 'a':
		return 0; /* the catalogue: the default now */
	case 'x':
		a->exhaustive = 1;
		return 0;
	case 'S':
		a->split = 0; /* --no-split: the default */
		return 0;
	case 'P':
		a->split = 1;
		return 0;
	case 'N':
		a->no_siblings = 1;
		return 0;
	case 'R':
		a->retry_refused = 1;
		return 0;
	case 'W': {
		char *end;
		a->busy_wait = strtod(optarg, &end);
		if (end == optarg || *end || !(a->busy_wait >= 0 && a->busy_wait <= 86400)) {
			fprintf(
			    stderr,
			    "perpi: palmed build: --busy-wait: '%s': give seconds in [0, 86400]\n",
			    optarg);
			return 2;
		}
		return 0;
	}
	case 'd':
		a->db_path = optarg;
		return 0;
	case 'n':
		a->no_db = 1;
		return 0;
	case 'o':
		a->out = optarg;
		return 0;
	case 'q':
		a->quiet = 1;
		return 0;
	case 't':
	case 'b':
	case 'p':
	case 'r':
	case 'M':
	case 'e':
	case 'C':
		return parse_count(c, a);
	default:
		build_usage(c == 'h' ? stdout : stderr);
		return c == 'h' ? 0 : 2;
	}
}

/* Returns -1 to go on, else the exit status. */
static int parse_args(int argc, char **argv, struct build_args *a)
{
	int c, rc = -1;
	a->budget = a->training = a->probes = a->resources = a->mixes = a->seed = a->cores = -1;
	a->busy_wait = -1;
	optind = 0;
	while (rc < 0 && (c = getopt_long(argc, argv, "+o:qh", build_options, NULL)) != -1) {
		rc = parse_option(c, a);
		rc = rc == 0 && c != 'h' ? -1 : rc;
	}
	if (rc < 0 && (optind < argc || (a->forms_file && a->nfrom))) {
		fprintf(stderr, "perpi: palmed build: %s\n",
			optind < argc ? "unexpected argument" : "give --forms or --from, not both");
		return 2;
	}
	return rc;
}

static void print_summary(const char *out, const struct model *m, const struct infer_stats *st,
			  unsigned cached, double seconds)
{
	printf("%s: %zu forms on %zu resources (%zu unmapped) from %u benchmarks", out, m->nforms,
	       m->nres, m->nunmapped, st->benchmarks);
	if (cached)
		printf(" (%u found in the database)", cached);
	if (seconds >= 120)
		printf(" in %.0f min %.0f s", seconds / 60 - fmod(seconds, 60) / 60,
		       fmod(seconds, 60));
	else
		printf(" in %.1f s", seconds);
	printf("%s\n",
	       st->budget_exhausted ? "; the core's search stopped at the benchmark budget" : "");
}

int palmed_build_main(int argc, char **argv)
{
	struct build_args a = {0};
	int rc = parse_args(argc, argv, &a);
	if (rc >= 0) {
		free(a.from);
		return rc;
	}
	char *def = a.out ? NULL : model_default_path();
	const char *out = a.out ? a.out : def;
	struct model *m = NULL;
	struct infer_stats stats;
	unsigned cached = 0;
	double start = perpi_now();
	rc = build_model(&a, &m, &stats, &cached);
	if (rc == 0) {
		m->benchmarks = stats.benchmarks;
		make_parent_dirs(out);
		rc = model_save(m, out);
	}
	if (rc < 0)
		fprintf(stderr, "perpi: palmed build: %s\n", perpi_error());
	else
		print_summary(out, m, &stats, cached, perpi_now() - start);
	model_delete(m);
	free(def);
	free(a.from);
	if (rc < 0 && build_stop)
		return 128 + build_stop;
	return rc < 0 ? 1 : 0;
}
