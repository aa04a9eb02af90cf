/* Export and import of the measurement database, as SQL (every table) or
 * CSV (one row per measurement). Rows are keyed by their natural keys, not
 * by row ids, so an export imports into any database without duplicates. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/util.h"
#include "palmed/db.h"
#include "palmed/db_private.h"

#define SQL_HEADER "-- perpi measurement database export, format 1"

static const char *const csv_columns[] = {
    "vendor",	   "family",	      "model", "stepping", "microcode",
    "model_name",  "kernel_version",  "spec",  "kind",	   "params",
    "timing",	   "cycles",	      "ipc",   "spread",   "flagged",
    "flag_reason", "ticks_per_cycle", "date",  "samples",  "clean"};
#define N_COLUMNS 20

static const char machine_ref[] =
    "'(SELECT id FROM machine WHERE vendor = ' || quote(ma.vendor) || ' AND family = ' ||"
    " quote(ma.family) || ' AND model = ' || quote(ma.model) || ' AND stepping = ' ||"
    " quote(ma.stepping) || ' AND microcode = ' || quote(ma.microcode) ||"
    " ' AND model_name = ' || quote(ma.model_name) || ' AND kernel = ' || quote(ma.kernel) || ')'";

static int export_query(struct db *db, FILE *out, const char *q)
{
	sqlite3_stmt *st;
	if (sqlite3_prepare_v2(db->sql, q, -1, &st, NULL) != SQLITE_OK)
		return db_sql_error(db, "export");
	int rc;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW)
		fprintf(out, "%s\n", (const char *)sqlite3_column_text(st, 0));
	sqlite3_finalize(st);
	return rc == SQLITE_DONE ? 0 : db_sql_error(db, "export");
}

static int export_sql(struct db *db, FILE *out)
{
	fprintf(out, SQL_HEADER "\nBEGIN;\n");
	char *machines = xasprintf(
	    "SELECT 'INSERT OR IGNORE INTO machine(vendor, family, model, stepping, microcode,"
	    " model_name, kernel) VALUES(' || quote(vendor) || ', ' || quote(family) || ', ' ||"
	    " quote(model) || ', ' || quote(stepping) || ', ' || quote(microcode) || ', ' ||"
	    " quote(model_name) || ', ' || quote(kernel) || ');' FROM machine ORDER BY id");
	char *kernels = xasprintf("SELECT 'INSERT OR IGNORE INTO kernel(spec) VALUES(' ||"
				  " quote(spec) || ');' FROM kernel ORDER BY id");
	char *measurements = xasprintf(
	    "SELECT 'INSERT OR IGNORE INTO measurement(machine_id, kernel_id, kind, params,"
	    " timing, cycles, ipc, spread, flagged, flag_reason, ticks_per_cycle, date, samples,"
	    " clean) VALUES(' || %s || ', (SELECT id FROM kernel WHERE spec = ' || quote(k.spec)"
	    " || '), ' || quote(m.kind) || ', ' || quote(m.params) || ', ' || quote(m.timing) ||"
	    " ', ' || quote(m.cycles) || ', ' || quote(m.ipc) || ', ' || quote(m.spread) || ', '"
	    " || quote(m.flagged) || ', ' || quote(m.flag_reason) || ', ' ||"
	    " quote(m.ticks_per_cycle) || ', ' || quote(m.date) || ', ' || quote(m.samples) ||"
	    " ', ' || quote(m.clean) || ');' FROM measurement m JOIN machine ma ON"
	    " ma.id = m.machine_id JOIN kernel k ON k.id = m.kernel_id ORDER BY m.id",
	    machine_ref);
	char *forms = xasprintf(
	    "SELECT 'INSERT OR IGNORE INTO form(machine_id, name, status, reason, date) VALUES('"
	    " || %s || ', ' || quote(f.name) || ', ' || quote(f.status) || ', ' ||"
	    " quote(f.reason) || ', ' || quote(f.date) || ');' FROM form f JOIN machine ma ON"
	    " ma.id = f.machine_id ORDER BY f.name",
	    machine_ref);
	int rc = export_query(db, out, machines) < 0 || export_query(db, out, kernels) < 0 ||
		 export_query(db, out, measurements) < 0 || export_query(db, out, forms) < 0;
	free(machines);
	free(kernels);
	free(measurements);
	free(forms);
	if (rc)
		return -1;
	fprintf(out, "COMMIT;\n");
	return 0;
}

static void csv_field(FILE *out, const char *s, int last)
{
	s = s ? s : "";
	if (strpbrk(s, ",\"\n\r")) {
		fputc('"', out);
		for (; *s; s++) {
			if (*s == '"')
				fputc('"', out);
			fputc(*s, out);
		}
		fputc('"', out);
	} else {
		fputs(s, out);
	}
	fputc(last ? '\n' : ',', out);
}

static int export_csv(struct db *db, FILE *out)
{
	for (int i = 0; i < N_COLUMNS; i++)
		csv_field(out, csv_columns[i], i == N_COLUMNS - 1);
	const char *q =
	    "SELECT ma.vendor, ma.family, ma.model, ma.stepping, ma.microcode,"
	    " ma.model_name, ma.kernel, k.spec, m.kind, m.params, m.timing,"
	    " m.cycles, m.ipc, m.spread, m.flagged, m.flag_reason, m.ticks_per_cycle, m.date,"
	    " m.samples, m.clean FROM measurement m JOIN machine ma ON ma.id = m.machine_id"
	    " JOIN kernel k ON k.id = m.kernel_id ORDER BY m.id";
	sqlite3_stmt *st;
	if (sqlite3_prepare_v2(db->sql, q, -1, &st, NULL) != SQLITE_OK)
		return db_sql_error(db, "export");
	int rc;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW)
		for (int i = 0; i < N_COLUMNS; i++) {
			char num[32];
			const char *text = (const char *)sqlite3_column_text(st, i);
			/* C's %.17g round-trips a double; SQLite's printf may not */
			if (sqlite3_column_type(st, i) == SQLITE_FLOAT) {
				snprintf(num, sizeof(num), "%.17g", sqlite3_column_double(st, i));
				text = num;
			}
			csv_field(out, text, i == N_COLUMNS - 1);
		}
	sqlite3_finalize(st);
	return rc == SQLITE_DONE ? 0 : db_sql_error(db, "export");
}

int db_export(struct db *db, FILE *out, enum db_format fmt)
{
	int rc = fmt == DB_FORMAT_CSV ? export_csv(db, out) : export_sql(db, out);
	if (rc == 0 && (fflush(out) != 0 || ferror(out)))
		return perpi_set_error("export: write error");
	return rc;
}

static struct strbuf read_all(FILE *in)
{
	struct strbuf sb;
	char buf[65536];
	size_t n;
	strbuf_init(&sb);
	strbuf_add(&sb, "", 0);
	while ((n = fread(buf, 1, sizeof(buf), in)) > 0)
		strbuf_add(&sb, buf, n);
	return sb;
}

/* An SQL import may only insert rows: nothing else passes the authorizer. */
static int only_inserts(void *arg, int action, const char *a, const char *b, const char *c,
			const char *d)
{
	switch (action) {
	case SQLITE_INSERT:
	case SQLITE_SELECT:
	case SQLITE_READ:
	case SQLITE_TRANSACTION:
	case SQLITE_FUNCTION:
		return SQLITE_OK;
	}
	return SQLITE_DENY;
}

static int import_sql(struct db *db, FILE *in)
{
	struct strbuf sb = read_all(in);
	if (strncmp(sb.buf, SQL_HEADER, strlen(SQL_HEADER))) {
		strbuf_done(&sb);
		return perpi_set_error("import: not a perpi SQL export (first line must be '%s')",
				       SQL_HEADER);
	}
	char *err = NULL;
	sqlite3_set_authorizer(db->sql, only_inserts, NULL);
	int rc = sqlite3_exec(db->sql, sb.buf, NULL, NULL, &err);
	sqlite3_set_authorizer(db->sql, NULL, NULL);
	strbuf_done(&sb);
	if (rc != SQLITE_OK) {
		perpi_set_error("import: %s", err ? err : sqlite3_errstr(rc));
		sqlite3_free(err);
		if (!sqlite3_get_autocommit(db->sql))
			sqlite3_exec(db->sql, "ROLLBACK", NULL, NULL, NULL);
		return -1;
	}
	return 0;
}

/* Parse one CSV record from *p into fields (pointers into a rewritten
 * buffer). Returns the field count, 0 at the end. */
static int csv_record(char **p, char **fields, int max)
{
	char *s = *p, *w;
	int n = 0;
	if (!*s)
		return 0;
	for (;;) {
		w = s;
		if (n < max)
			fields[n] = w;
		n++;
		if (*s == '"') {
			s++;
			for (;;) {
				if (!*s)
					break;
				if (*s == '"' && s[1] == '"') {
					*w++ = '"';
					s += 2;
				} else if (*s == '"') {
					s++;
					break;
				} else {
					*w++ = *s++;
				}
			}
		} else {
			while (*s && *s != ',' && *s != '\n' && *s != '\r')
				*w++ = *s++;
		}
		char sep = *s;
		*w = '\0';
		if (sep == ',') {
			s++;
			continue;
		}
		if (sep == '\r' && s[1] == '\n')
			s += 2;
		else if (sep == '\r' || sep == '\n')
			s++;
		break;
	}
	*p = s;
	return n;
}

/* Numbers are bound as numbers: glibc's strtod rounds correctly, SQLite's
 * own text-to-real conversion may miss the last bit. */
static void bind_csv_field(sqlite3_stmt *st, int i, const char *text)
{
	static const unsigned char is_real[N_COLUMNS] = {[11] = 1, [12] = 1, [13] = 1, [16] = 1};
	static const unsigned char is_int[N_COLUMNS] = {[1] = 1, [2] = 1, [3] = 1, [14] = 1};
	char *end;
	if (is_real[i] && *text) {
		double v = strtod(text, &end);
		if (!*end) {
			sqlite3_bind_double(st, i + 1, v);
			return;
		}
	} else if (is_int[i] && *text) {
		long long v = strtoll(text, &end, 10);
		if (!*end) {
			sqlite3_bind_int64(st, i + 1, v);
			return;
		}
	}
	sqlite3_bind_text(st, i + 1, text, -1, SQLITE_TRANSIENT);
}

static int import_csv(struct db *db, FILE *in)
{
	struct strbuf sb = read_all(in);
	char *p = sb.buf, *f[N_COLUMNS + 1];
	int n = csv_record(&p, f, N_COLUMNS + 1), line = 1, rc = 0;
	if (n != N_COLUMNS || strcmp(f[0], "vendor") || strcmp(f[N_COLUMNS - 1], "clean")) {
		strbuf_done(&sb);
		return perpi_set_error(
		    "import: not a perpi CSV export (header must list %d columns, "
		    "vendor ... clean)",
		    N_COLUMNS);
	}
	const char *q[] = {
	    "INSERT OR IGNORE INTO machine(vendor, family, model, stepping, microcode, model_name,"
	    " kernel) VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7)",
	    "INSERT OR IGNORE INTO kernel(spec) VALUES(?8)",
	    "INSERT OR IGNORE INTO measurement(machine_id, kernel_id, kind, params, timing,"
	    " cycles, ipc, spread, flagged, flag_reason, ticks_per_cycle, date, samples, clean)"
	    " VALUES((SELECT id FROM machine WHERE vendor = ?1 AND family = ?2 AND model = ?3 AND"
	    " stepping = ?4 AND microcode = ?5 AND model_name = ?6 AND kernel = ?7),"
	    " (SELECT id FROM kernel WHERE spec = ?8), ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16,"
	    " ?17, ?18, ?19, ?20)"};
	if (db_begin(db) < 0) {
		strbuf_done(&sb);
		return -1;
	}
	while (rc == 0 && (n = csv_record(&p, f, N_COLUMNS + 1)) > 0) {
		line++;
		if (n == 1 && !f[0][0])
			continue;
		if (n != N_COLUMNS) {
			rc = perpi_set_error("import: line %d has %d fields, expected %d", line, n,
					     N_COLUMNS);
			break;
		}
		for (size_t s = 0; s < ARRAY_SIZE(q) && rc == 0; s++) {
			sqlite3_stmt *st;
			if (sqlite3_prepare_v2(db->sql, q[s], -1, &st, NULL) != SQLITE_OK) {
				rc = db_sql_error(db, "import");
				break;
			}
			for (int i = 0; i < sqlite3_bind_parameter_count(st); i++)
				bind_csv_field(st, i, f[i]);
			if (sqlite3_step(st) != SQLITE_DONE)
				rc = perpi_set_error("import: line %d: %s", line,
						     sqlite3_errmsg(db->sql));
			sqlite3_finalize(st);
		}
	}
	strbuf_done(&sb);
	if (rc < 0) {
		sqlite3_exec(db->sql, "ROLLBACK", NULL, NULL, NULL);
		return -1;
	}
	return db_commit(db);
}

int db_import(struct db *db, FILE *in, enum db_format fmt)
{
	return fmt == DB_FORMAT_CSV ? import_csv(db, in) : import_sql(db, in);
}
