/* perpi forms: instruction forms, and which ones this CPU can benchmark. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/commands.h"
#include "common/util.h"
#include "cmd/bench_cli.h"
#include "palmed/db.h"
#include "palmed/form.h"
#include "palmed/form_discover.h"
#include "palmed/form_trace.h"
#include "palmed/kernel.h"
#include "palmed/bench.h"

static int usage(FILE *out)
{
	fprintf(out,
		"usage: perpi forms check [--run] FORM...\n"
		"         parse forms and say whether they can be benchmarked (--run: assemble\n"
		"         and run each one's kernel once, as discover does: ok, fault...)\n"
		"       perpi forms discover [--db FILE|--no-db] [--list] [MNEMONIC...]\n"
		"         find the forms this CPU assembles and runs (all mnemonics Capstone\n"
		"         knows by default) and store the catalogue in the database\n"
		"       perpi forms trace [--measure] [--db FILE|--no-db] perpi.data...\n"
		"         the forms recorded runs executed, by dynamic count, and whether\n"
		"         they can be benchmarked (--measure: measure each one alone)\n");
	return out == stdout ? 0 : 2;
}

/* --run: each parsed form's kernel assembled and run once, as discovery
 * checks its candidates; the catalogue's line per form. */
static int check_running(char **names, size_t n)
{
	struct form_catalogue c;
	if (form_check((const char *const *)names, n, &c) < 0) {
		fprintf(stderr, "perpi: forms check: %s\n", perpi_error());
		return -1;
	}
	for (size_t i = 0; i < n; i++)
		for (size_t j = 0; j < c.n; j++)
			if (!strcmp(c.e[j].name, names[i])) {
				printf("%s\t%s%s%s\n", names[i], c.e[j].status,
				       c.e[j].reason ? "\t" : "",
				       c.e[j].reason ? c.e[j].reason : "");
				break;
			}
	form_catalogue_done(&c);
	return 0;
}

static int forms_check(int argc, char **argv)
{
	int rc = 0, run = 0;
	char **names = xcalloc((size_t)argc + 1, sizeof(char *));
	size_t n = 0;
	for (int i = 0; i < argc; i++) {
		struct form f;
		char name[FORM_NAME_MAX];
		if (!strcmp(argv[i], "--run")) {
			run = 1;
			continue;
		}
		if (form_parse(argv[i], &f) < 0) {
			fprintf(stderr, "perpi: forms: %s\n", perpi_error());
			rc = 1;
			continue;
		}
		form_print(&f, name, sizeof(name));
		const char *why = form_unsupported_reason(&f);
		if (run && !why)
			names[n++] = xstrdup(name);
		else if (run)
			printf("%s\tunsupported\t%s\n", name, why);
		else
			printf("%s\t%s%s\n", name, why ? "unsupported: " : "supported",
			       why ? why : "");
	}
	if (n && check_running(names, n) < 0)
		rc = 1;
	for (size_t i = 0; i < n; i++)
		free(names[i]);
	free(names);
	return rc;
}

static int store(const char *db_path, const struct form_catalogue *c)
{
	struct db *db;
	if (bench_cli_open_db(db_path, &db) < 0)
		return -1;
	int rc = db_begin(db);
	for (size_t i = 0; i < c->n && rc == 0; i++)
		rc = db_store_form(db, c->e[i].name, c->e[i].status, c->e[i].reason);
	if (rc == 0)
		rc = db_commit(db);
	db_close(db);
	return rc;
}

static int forms_discover(int argc, char **argv)
{
	const char *db_path = NULL;
	int no_db = 0, list = 0, n_mn = 0;
	const char **mn = xcalloc((size_t)argc + 1, sizeof(char *));
	for (int i = 0; i < argc; i++) {
		if (!strcmp(argv[i], "--db") && i + 1 < argc)
			db_path = argv[++i];
		else if (!strcmp(argv[i], "--no-db"))
			no_db = 1;
		else if (!strcmp(argv[i], "--list"))
			list = 1;
		else if (argv[i][0] == '-') {
			free(mn);
			return usage(stderr);
		} else
			mn[n_mn++] = argv[i];
	}
	struct form_catalogue c;
	struct bench_cli_progress p;
	bench_cli_progress_init(&p, "discover (candidates, assembly, run)");
	int rc = form_discover(mn, (size_t)n_mn, &c, bench_cli_progress, &p);
	bench_cli_progress_end(&p);
	free(mn);
	if (rc == 0 && !no_db)
		rc = store(db_path, &c);
	if (rc < 0) {
		fprintf(stderr, "perpi: forms discover: %s\n", perpi_error());
		form_catalogue_done(&c);
		return 1;
	}
	size_t ok = 0, unsupported = 0, fault = 0, other = 0;
	for (size_t i = 0; i < c.n; i++) {
		const char *s = c.e[i].status;
		if (list)
			printf("%s\t%s%s%s\n", c.e[i].name, s, c.e[i].reason ? "\t" : "",
			       c.e[i].reason ? c.e[i].reason : "");
		ok += !strcmp(s, "ok");
		unsupported += !strcmp(s, "unsupported");
		fault += !strcmp(s, "fault");
		other += !strcmp(s, "probe");
	}
	fprintf(list ? stderr : stdout,
		"%zu candidates: %zu forms can be benchmarked, %zu fault on this CPU, %zu not "
		"understood; %zu mnemonics unsupported\n",
		c.candidates, ok, fault, other, unsupported);
	form_catalogue_done(&c);
	return 0;
}

/* Measure every non-control form alone: its status becomes what the runner
 * says (flagged kernels keep a dependency: not measured right). */
static int measure_uses(const char *db_path, int no_db, struct form_uses *u, char **status)
{
	struct db *db = NULL;
	if (!no_db && bench_cli_open_db(db_path, &db) < 0)
		return -1;
	struct bench_options o;
	bench_options_default(&o);
	struct bench_ctx *b = bench_new(&o, db);
	struct kernel *ks = xcalloc(u->n + 1, sizeof(*ks));
	size_t *which = xcalloc(u->n + 1, sizeof(size_t)), n = 0;
	for (size_t i = 0; i < u->n; i++)
		if (!u->v[i].control && !u->v[i].reason && strcmp(u->v[i].form, "(undecoded)")) {
			kernel_init(&ks[n]);
			kernel_add(&ks[n], u->v[i].form, 1);
			which[n++] = i;
		}
	struct bench_result *res = xcalloc(n + 1, sizeof(*res));
	int *st = xcalloc(n + 1, sizeof(int));
	char **errors = xcalloc(n + 1, sizeof(char *));
	struct bench_cli_progress p;
	bench_cli_progress_init(&p, "forms trace --measure");
	bench_measure_many(b, ks, n, res, st, errors, bench_cli_progress, &p);
	bench_cli_progress_end(&p);
	for (size_t j = 0; j < n; j++) {
		size_t i = which[j];
		if (st[j] < 0)
			status[i] = xasprintf("failed: %s", errors[j]);
		else if (res[j].flagged)
			status[i] = xasprintf("flagged: %s", res[j].flag_reason);
		else
			status[i] = xasprintf("measured: %.3f cycles", res[j].cycles);
		free(errors[j]);
		bench_result_done(&res[j]);
		kernel_done(&ks[j]);
	}
	free(res);
	free(st);
	free(errors);
	free(ks);
	free(which);
	bench_delete(b);
	db_close(db);
	return 0;
}

static void print_uses(const struct form_uses *u, char **status)
{
	uint64_t control = 0, refused = 0;
	for (size_t i = 0; i < u->n; i++) {
		const struct form_use *f = &u->v[i];
		const char *st = f->control	       ? "control transfer"
				 : status && status[i] ? status[i]
						       : "ok";
		char *own = NULL;
		if (!f->control && f->reason)
			st = own = xasprintf("unsupported: %s", f->reason);
		printf("%10llu %6.2f%%  %-34s %s\n", (unsigned long long)f->count,
		       100.0 * f->count / (u->total ? u->total : 1), f->form, st);
		free(own);
		control += f->control ? f->count : 0;
		if (!f->control &&
		    (f->reason || (status && (!status[i] || strncmp(status[i], "measured", 8)))))
			refused += f->count;
	}
	uint64_t others = u->total - control;
	printf("%llu dynamic instructions: %llu control transfers; of the %llu others, %llu "
	       "(%.2f%%) in forms %s\n",
	       (unsigned long long)u->total, (unsigned long long)control,
	       (unsigned long long)others, (unsigned long long)(others - refused),
	       100.0 * (others - refused) / (others ? others : 1),
	       status ? "measured" : "the runner accepts");
}

static int forms_trace(int argc, char **argv)
{
	const char *db_path = NULL;
	int no_db = 0, measure = 0, rc = 0;
	struct form_uses u = {0};
	for (int i = 0; i < argc && rc == 0; i++) {
		if (!strcmp(argv[i], "--db") && i + 1 < argc)
			db_path = argv[++i];
		else if (!strcmp(argv[i], "--no-db"))
			no_db = 1;
		else if (!strcmp(argv[i], "--measure"))
			measure = 1;
		else if (argv[i][0] == '-')
			return usage(stderr);
		else
			rc = form_uses_add_trace(&u, argv[i]);
	}
	if (rc == 0 && !u.total)
		rc = perpi_set_error("no recorded run given (perpi forms trace perpi.data)");
	form_uses_sort(&u);
	char **status = xcalloc(u.n + 1, sizeof(char *));
	if (rc == 0 && measure)
		rc = measure_uses(db_path, no_db, &u, status);
	if (rc == 0)
		print_uses(&u, measure ? status : NULL);
	else
		fprintf(stderr, "perpi: forms trace: %s\n", perpi_error());
	for (size_t i = 0; i < u.n; i++)
		free(status[i]);
	free(status);
	form_uses_done(&u);
	return rc < 0 ? 1 : 0;
}

int cmd_forms(int argc, char **argv)
{
	if (argc < 2)
		return usage(stderr);
	if (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help"))
		return usage(stdout);
	if (!strcmp(argv[1], "check") && argc > 2)
		return forms_check(argc - 2, argv + 2);
	if (!strcmp(argv[1], "trace"))
		return forms_trace(argc - 2, argv + 2);
	if (!strcmp(argv[1], "discover"))
		return forms_discover(argc - 2, argv + 2);
	return usage(stderr);
}
