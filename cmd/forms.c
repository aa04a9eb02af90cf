/* perpi forms: instruction forms, and which ones this CPU can benchmark. */
#include <stdio.h>
#include <string.h>

#include "cmd/commands.h"
#include "common/util.h"
#include "cmd/bench_cli.h"
#include "palmed/db.h"
#include "palmed/form.h"
#include "palmed/form_discover.h"

static int usage(FILE *out)
{
	fprintf(out, "usage: perpi forms check FORM...\n"
		     "         parse forms and say whether they can be benchmarked\n"
		     "       perpi forms discover [--db FILE|--no-db] [--list] [MNEMONIC...]\n"
		     "         find the forms this CPU assembles and runs (all mnemonics Capstone\n"
		     "         knows by default) and store the catalogue in the database\n");
	return out == stdout ? 0 : 2;
}

static int forms_check(int argc, char **argv)
{
	int rc = 0;
	for (int i = 0; i < argc; i++) {
		struct form f;
		char name[FORM_NAME_MAX];
		if (form_parse(argv[i], &f) < 0) {
			fprintf(stderr, "perpi: forms: %s\n", perpi_error());
			rc = 1;
			continue;
		}
		form_print(&f, name, sizeof(name));
		const char *why = form_unsupported_reason(&f);
		printf("%s\t%s%s\n", name, why ? "unsupported: " : "supported", why ? why : "");
	}
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

int cmd_forms(int argc, char **argv)
{
	if (argc < 2)
		return usage(stderr);
	if (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help"))
		return usage(stdout);
	if (!strcmp(argv[1], "check") && argc > 2)
		return forms_check(argc - 2, argv + 2);
	if (!strcmp(argv[1], "discover"))
		return forms_discover(argc - 2, argv + 2);
	return usage(stderr);
}
