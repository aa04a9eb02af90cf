/* perpi db export|import: back up and restore the measurement database. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "cmd/commands.h"
#include "common/util.h"
#include "cmd/bench_cli.h"
#include "palmed/db.h"

static int usage(FILE *out)
{
	fprintf(out, "usage: perpi db [--db FILE] export [--csv|--sql] [OUTPUT]\n"
		     "       perpi db [--db FILE] import [--csv|--sql] [INPUT]\n"
		     "  Without OUTPUT/INPUT (or with '-'): standard output/input. The format is\n"
		     "  SQL unless --csv is given or the file name ends in .csv.\n");
	return out == stdout ? 0 : 2;
}

static int fail(const char *what)
{
	fprintf(stderr, "perpi: db %s: %s\n", what, perpi_error());
	return 1;
}

int cmd_db(int argc, char **argv)
{
	const char *db_path = NULL, *file = NULL, *verb = NULL;
	int csv = -1;
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--db") && i + 1 < argc)
			db_path = argv[++i];
		else if (!strcmp(argv[i], "--csv"))
			csv = 1;
		else if (!strcmp(argv[i], "--sql"))
			csv = 0;
		else if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help"))
			return usage(stdout);
		else if (argv[i][0] == '-' && argv[i][1])
			return usage(stderr);
		else if (!verb)
			verb = argv[i];
		else if (!file)
			file = argv[i];
		else
			return usage(stderr);
	}
	if (!verb || (strcmp(verb, "export") && strcmp(verb, "import")))
		return usage(stderr);
	int is_export = !strcmp(verb, "export");
	if (csv < 0) {
		size_t len = file ? strlen(file) : 0;
		csv = len > 4 && !strcmp(file + len - 4, ".csv");
	}
	int stdio = !file || !strcmp(file, "-");
	FILE *f = stdio ? (is_export ? stdout : stdin) : fopen(file, is_export ? "w" : "r");
	if (!f) {
		perpi_set_error("%s: %s", file, strerror(errno));
		return fail(verb);
	}
	struct db *db;
	if (bench_cli_open_db(db_path, &db) < 0) {
		if (!stdio)
			fclose(f);
		return fail(verb);
	}
	enum db_format fmt = csv ? DB_FORMAT_CSV : DB_FORMAT_SQL;
	int rc = is_export ? db_export(db, f, fmt) : db_import(db, f, fmt);
	db_close(db);
	if (!stdio && fclose(f) != 0 && rc == 0)
		rc = perpi_set_error("%s: %s", file, strerror(errno));
	return rc < 0 ? fail(verb) : 0;
}
