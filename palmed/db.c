#include "palmed/db.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <time.h>

#include <sqlite3.h>

#include "common/util.h"

#include "palmed/db_private.h"
#include "palmed/timing.h"

#define QUICK_CHECK_MAX_BYTES (16 << 20)
/* How long a database busy with another perpi is waited for. */
#define BUSY_TIMEOUT_MS 10000

static const char schema[] =
    "CREATE TABLE machine(id INTEGER PRIMARY KEY, vendor TEXT NOT NULL, family INTEGER,"
    " model INTEGER, stepping INTEGER, microcode TEXT, model_name TEXT, kernel TEXT,"
    " UNIQUE(vendor, family, model, stepping, microcode, model_name, kernel));"
    "CREATE TABLE kernel(id INTEGER PRIMARY KEY, spec TEXT NOT NULL UNIQUE);"
    "CREATE TABLE measurement(id INTEGER PRIMARY KEY,"
    " machine_id INTEGER NOT NULL REFERENCES machine(id),"
    " kernel_id INTEGER NOT NULL REFERENCES kernel(id),"
    " kind TEXT NOT NULL, params TEXT NOT NULL, timing TEXT NOT NULL,"
    " cycles REAL, ipc REAL, spread REAL, flagged INTEGER NOT NULL, flag_reason TEXT,"
    " ticks_per_cycle REAL, date TEXT NOT NULL,"
    " samples TEXT NOT NULL, clean TEXT NOT NULL," /* every raw sample, space-separated */
    " UNIQUE(machine_id, kernel_id, kind, params));"
    "CREATE TABLE form(machine_id INTEGER NOT NULL REFERENCES machine(id), name TEXT NOT NULL,"
    " status TEXT NOT NULL, reason TEXT, date TEXT NOT NULL, PRIMARY KEY(machine_id, name));";

/* Tables added since the first format: created when missing. */
static const char schema_additions[] =
    "CREATE TABLE IF NOT EXISTS form_semantics(name TEXT PRIMARY KEY, semantics TEXT NOT NULL);"
    "CREATE TABLE IF NOT EXISTS probe_reference(machine_id INTEGER NOT NULL"
    " REFERENCES machine(id), probe TEXT NOT NULL, cycles_per_insn REAL NOT NULL,"
    " PRIMARY KEY(machine_id, probe));";

char *db_default_path(void)
{
	const char *xdg = getenv("XDG_DATA_HOME"), *home = getenv("HOME");
	if (xdg && *xdg == '/')
		return xasprintf("%s/perpi/measurements.db", xdg);
	return xasprintf("%s/.local/share/perpi/measurements.db", home && *home ? home : ".");
}

static long long query_int(sqlite3 *sql, const char *q, int *rc)
{
	sqlite3_stmt *st;
	long long v = 0;
	*rc = sqlite3_prepare_v2(sql, q, -1, &st, NULL);
	if (*rc != SQLITE_OK)
		return 0;
	*rc = sqlite3_step(st);
	if (*rc == SQLITE_ROW) {
		v = sqlite3_column_int64(st, 0);
		*rc = SQLITE_OK;
	} else if (*rc == SQLITE_DONE) {
		*rc = SQLITE_OK;
	}
	sqlite3_finalize(st);
	return v;
}

static int check_or_create(struct db *db)
{
	int rc;
	long long app = query_int(db->sql, "PRAGMA application_id", &rc);
	if (rc != SQLITE_OK)
		return perpi_set_error("database %s: not an SQLite database, or corrupt (%s); "
				       "move it away or give another with --db",
				       db->path, sqlite3_errstr(rc));
	long long tables = query_int(db->sql, "SELECT count(*) FROM sqlite_master", &rc);
	if (rc != SQLITE_OK)
		return perpi_set_error("database %s: unreadable (%s)", db->path,
				       sqlite3_errstr(rc));
	if (app == 0 && tables == 0) {
		char *err = NULL;
		char *q = xasprintf("PRAGMA application_id = %d; PRAGMA user_version = %d; %s",
				    DB_APPLICATION_ID, DB_VERSION, schema);
		rc = sqlite3_exec(db->sql, q, NULL, NULL, &err);
		free(q);
		if (rc != SQLITE_OK) {
			perpi_set_error("database %s: cannot create tables: %s", db->path, err);
			sqlite3_free(err);
			return -1;
		}
		return 0;
	}
	if (app != DB_APPLICATION_ID)
		return perpi_set_error("database %s: an SQLite file, but not a perpi measurement "
				       "database; refusing to touch it",
				       db->path);
	long long version = query_int(db->sql, "PRAGMA user_version", &rc);
	if (version != DB_VERSION)
		return perpi_set_error("database %s: format version %lld, this perpi reads %d",
				       db->path, version, DB_VERSION);
	/* quick_check reads every page: worth it on opening up to a few MB; a
	 * larger file is checked by SQLite as it is read (SQLITE_CORRUPT) */
	long long pages = query_int(db->sql, "PRAGMA page_count", &rc);
	long long page_size = query_int(db->sql, "PRAGMA page_size", &rc);
	if (pages * page_size > QUICK_CHECK_MAX_BYTES)
		return 0;
	sqlite3_stmt *st;
	if (sqlite3_prepare_v2(db->sql, "PRAGMA quick_check", -1, &st, NULL) != SQLITE_OK)
		return perpi_set_error("database %s: corrupt (%s)", db->path,
				       sqlite3_errmsg(db->sql));
	rc = sqlite3_step(st);
	const char *res = rc == SQLITE_ROW ? (const char *)sqlite3_column_text(st, 0) : NULL;
	int ok = res && !strcmp(res, "ok");
	if (!ok) {
		/* quick_check's first finding, on one line */
		char first[160];
		const char *r = res ? res : sqlite3_errmsg(db->sql);
		if (!strncmp(r, "*** ", 4) && strchr(r, '\n'))
			r = strchr(r, '\n') + 1;
		snprintf(first, sizeof(first), "%.*s", (int)strcspn(r, "\n"), r);
		perpi_set_error(
		    "database %s: corrupt (%s); restore a backup with 'perpi db import'", db->path,
		    first);
	}
	sqlite3_finalize(st);
	return ok ? 0 : -1;
}

/* The file in WAL mode, once for all. The conversion of a new file needs
 * an exclusive lock that SQLite takes without calling the busy handler
 * (a connection that waits for it while holding a shared lock could
 * deadlock), so several perpi processes opening one new database at once
 * (test_db.sh's race, under load) get "database is locked" at once:
 * tried again for as long as the busy timeout. */
static int set_wal(struct db *db)
{
	struct timespec start, now, pause = {0, 5000000};
	clock_gettime(CLOCK_MONOTONIC, &start);
	for (;;) {
		int rc = sqlite3_exec(db->sql, "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;",
				      NULL, NULL, NULL);
		clock_gettime(CLOCK_MONOTONIC, &now);
		double waited = (double)(now.tv_sec - start.tv_sec) +
				(double)(now.tv_nsec - start.tv_nsec) / 1e9;
		if (rc == SQLITE_OK)
			return 0;
		if (((rc & 0xff) != SQLITE_BUSY && (rc & 0xff) != SQLITE_LOCKED) ||
		    waited > BUSY_TIMEOUT_MS / 1000.0)
			return -1;
		nanosleep(&pause, NULL);
	}
}

int db_open(const char *path, struct db **out)
{
	struct db *db = xcalloc(1, sizeof(*db));
	db->path = xstrdup(path);
	int rc = sqlite3_open_v2(path, &db->sql, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, NULL);
	if (rc != SQLITE_OK) {
		perpi_set_error("database %s: %s", path, sqlite3_errstr(rc));
		db_close(db);
		return -1;
	}
	sqlite3_busy_timeout(db->sql, BUSY_TIMEOUT_MS);
	/* Checked and created in one write transaction: two perpi processes
	 * opening a new database at once (a build and 'perpi db export') must
	 * not see it half created. A file that is no database fails here and
	 * gets check_or_create's message. */
	int in_tx = sqlite3_exec(db->sql, "BEGIN IMMEDIATE", NULL, NULL, NULL) == SQLITE_OK;
	int checked = check_or_create(db);
	if (in_tx)
		sqlite3_exec(db->sql, checked < 0 ? "ROLLBACK" : "COMMIT", NULL, NULL, NULL);
	if (checked < 0 || set_wal(db) < 0 ||
	    sqlite3_exec(db->sql, schema_additions, NULL, NULL, NULL) != SQLITE_OK) {
		if (!strstr(perpi_error(), path))
			perpi_set_error("database %s: %s", path, sqlite3_errmsg(db->sql));
		db_close(db);
		return -1;
	}
	*out = db;
	return 0;
}

void db_close(struct db *db)
{
	if (!db)
		return;
	sqlite3_close(db->sql);
	free(db->path);
	free(db);
}

static void cpuinfo_field(const char *text, const char *key, char *out, size_t size)
{
	const char *p = text;
	size_t klen = strlen(key);
	while ((p = strstr(p, key))) {
		if ((p == text || p[-1] == '\n') &&
		    (p[klen] == '\t' || p[klen] == ' ' || p[klen] == ':')) {
			const char *v = strchr(p, ':');
			if (!v)
				break;
			v++;
			while (*v == ' ')
				v++;
			snprintf(out, size, "%.*s", (int)strcspn(v, "\n"), v);
			return;
		}
		p += klen;
	}
}

void machine_identity_current(struct machine_identity *m)
{
	char buf[16384], field[96];
	memset(m, 0, sizeof(*m));
	FILE *f = fopen("/proc/cpuinfo", "r");
	size_t n = f ? fread(buf, 1, sizeof(buf) - 1, f) : 0;
	if (f)
		fclose(f);
	buf[n] = '\0';
	cpuinfo_field(buf, "vendor_id", m->vendor, sizeof(m->vendor));
	cpuinfo_field(buf, "model name", m->model_name, sizeof(m->model_name));
	cpuinfo_field(buf, "microcode", m->microcode, sizeof(m->microcode));
	field[0] = '\0';
	cpuinfo_field(buf, "cpu family", field, sizeof(field));
	m->family = atoi(field);
	field[0] = '\0';
	cpuinfo_field(buf, "model", field, sizeof(field));
	m->model = atoi(field);
	field[0] = '\0';
	cpuinfo_field(buf, "stepping", field, sizeof(field));
	m->stepping = atoi(field);
	struct utsname u;
	if (uname(&u) == 0)
		snprintf(m->kernel, sizeof(m->kernel), "%.20s %.70s", u.sysname, u.release);
	if (!m->vendor[0])
		snprintf(m->vendor, sizeof(m->vendor), "unknown");
}

void machine_identity_describe(const struct machine_identity *m, char *buf, size_t size)
{
	snprintf(buf, size, "%s family %d model %d stepping %d: %s", m->vendor, m->family, m->model,
		 m->stepping, m->model_name);
}

void machine_reference_key(char *buf, size_t size)
{
	struct machine_identity m;
	machine_identity_current(&m);
	machine_identity_describe(&m, buf, size);
	snprintf(buf + strlen(buf), size - strlen(buf), " microcode %s probes %d", m.microcode,
		 TIMING_REFERENCE_GENERATION);
}

int db_sql_error(struct db *db, const char *what)
{
	return perpi_set_error("database %s: %s: %s", db->path, what, sqlite3_errmsg(db->sql));
}

/* The running machine's row id, inserted on first use. */
static long long machine_id(struct db *db)
{
	if (db->machine_id)
		return db->machine_id;
	struct machine_identity m;
	machine_identity_current(&m);
	sqlite3_stmt *st;
	const char *ins =
	    "INSERT OR IGNORE INTO machine(vendor, family, model, stepping, microcode,"
	    " model_name, kernel) VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7)";
	const char *sel =
	    "SELECT id FROM machine WHERE vendor = ?1 AND family = ?2 AND model = ?3"
	    " AND stepping = ?4 AND microcode = ?5 AND model_name = ?6 AND kernel = ?7";
	for (int pass = 0; pass < 2; pass++) {
		if (sqlite3_prepare_v2(db->sql, pass ? sel : ins, -1, &st, NULL) != SQLITE_OK)
			return db_sql_error(db, "machine");
		sqlite3_bind_text(st, 1, m.vendor, -1, SQLITE_TRANSIENT);
		sqlite3_bind_int(st, 2, m.family);
		sqlite3_bind_int(st, 3, m.model);
		sqlite3_bind_int(st, 4, m.stepping);
		sqlite3_bind_text(st, 5, m.microcode, -1, SQLITE_TRANSIENT);
		sqlite3_bind_text(st, 6, m.model_name, -1, SQLITE_TRANSIENT);
		sqlite3_bind_text(st, 7, m.kernel, -1, SQLITE_TRANSIENT);
		int rc = sqlite3_step(st);
		if (pass && rc == SQLITE_ROW)
			db->machine_id = sqlite3_column_int64(st, 0);
		sqlite3_finalize(st);
		if (rc != SQLITE_ROW && rc != SQLITE_DONE)
			return db_sql_error(db, "machine");
	}
	return db->machine_id ? db->machine_id : db_sql_error(db, "machine");
}

static void now_text(char *buf, size_t size)
{
	time_t t = time(NULL);
	struct tm tm;
	gmtime_r(&t, &tm);
	strftime(buf, size, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

static char *join_samples(const struct bench_result *r, int clean)
{
	struct strbuf sb;
	strbuf_init(&sb);
	strbuf_add(&sb, "", 0);
	for (unsigned i = 0; i < r->n_samples; i++) {
		if (clean)
			strbuf_addf(&sb, "%s%d", i ? " " : "", r->clean[i] != 0);
		else
			strbuf_addf(&sb, "%s%.17g", i ? " " : "", r->samples[i]);
	}
	return sb.buf;
}

int db_begin(struct db *db)
{
	return sqlite3_exec(db->sql, "BEGIN IMMEDIATE", NULL, NULL, NULL) == SQLITE_OK
		   ? 0
		   : db_sql_error(db, "begin");
}

int db_commit(struct db *db)
{
	return sqlite3_exec(db->sql, "COMMIT", NULL, NULL, NULL) == SQLITE_OK
		   ? 0
		   : db_sql_error(db, "commit");
}

static void rollback(struct db *db)
{
	sqlite3_exec(db->sql, "ROLLBACK", NULL, NULL, NULL);
}

static int store_rows(struct db *db, long long mid, const char *spec, const char *kind,
		      const char *params, const struct bench_result *r)
{
	sqlite3_stmt *st;
	if (sqlite3_prepare_v2(db->sql, "INSERT OR IGNORE INTO kernel(spec) VALUES(?1)", -1, &st,
			       NULL) != SQLITE_OK)
		return db_sql_error(db, "kernel");
	sqlite3_bind_text(st, 1, spec, -1, SQLITE_TRANSIENT);
	int rc = sqlite3_step(st);
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE)
		return db_sql_error(db, "kernel");
	const char *q =
	    "INSERT OR REPLACE INTO measurement(machine_id, kernel_id, kind, params,"
	    " timing, cycles, ipc, spread, flagged, flag_reason, ticks_per_cycle, date,"
	    " samples, clean) VALUES(?1, (SELECT id FROM kernel WHERE spec = ?2), ?3, ?4,"
	    " ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14)";
	if (sqlite3_prepare_v2(db->sql, q, -1, &st, NULL) != SQLITE_OK)
		return db_sql_error(db, "measurement");
	char date[32], *samples = join_samples(r, 0), *clean = join_samples(r, 1);
	now_text(date, sizeof(date));
	sqlite3_bind_int64(st, 1, mid);
	sqlite3_bind_text(st, 2, spec, -1, SQLITE_TRANSIENT);
	sqlite3_bind_text(st, 3, kind, -1, SQLITE_TRANSIENT);
	sqlite3_bind_text(st, 4, params, -1, SQLITE_TRANSIENT);
	sqlite3_bind_text(st, 5, timing_source_name(r->source), -1, SQLITE_STATIC);
	sqlite3_bind_double(st, 6, r->cycles);
	sqlite3_bind_double(st, 7, r->ipc);
	sqlite3_bind_double(st, 8, r->spread);
	sqlite3_bind_int(st, 9, r->flagged);
	sqlite3_bind_text(st, 10, r->flag_reason, -1, SQLITE_TRANSIENT);
	sqlite3_bind_double(st, 11, r->ticks_per_cycle);
	sqlite3_bind_text(st, 12, date, -1, SQLITE_TRANSIENT);
	sqlite3_bind_text(st, 13, samples, -1, SQLITE_TRANSIENT);
	sqlite3_bind_text(st, 14, clean, -1, SQLITE_TRANSIENT);
	rc = sqlite3_step(st);
	sqlite3_finalize(st);
	free(samples);
	free(clean);
	return rc == SQLITE_DONE ? 0 : db_sql_error(db, "measurement");
}

int db_store(struct db *db, const char *spec, const char *kind, const char *params,
	     const struct bench_result *r)
{
	long long mid = machine_id(db);
	if (mid < 0 || db_begin(db) < 0)
		return -1;
	if (store_rows(db, mid, spec, kind, params, r) < 0) {
		rollback(db);
		return -1;
	}
	return db_commit(db);
}

static unsigned parse_numbers(const char *text, double **out)
{
	unsigned n = 0, cap = 16;
	double *v = xmalloc(cap * sizeof(*v));
	char *end;
	const char *p = text ? text : "";
	for (;;) {
		double x = strtod(p, &end);
		if (end == p)
			break;
		if (n == cap)
			v = xrealloc(v, (cap *= 2) * sizeof(*v));
		v[n++] = x;
		p = end;
	}
	*out = v;
	return n;
}

int db_lookup(struct db *db, const char *spec, const char *kind, const char *params,
	      struct bench_result *out)
{
	long long mid = machine_id(db);
	if (mid < 0)
		return -1;
	sqlite3_stmt *st;
	const char *q =
	    "SELECT timing, cycles, ipc, spread, flagged, flag_reason, ticks_per_cycle,"
	    " samples, clean FROM measurement m JOIN kernel k ON k.id = m.kernel_id"
	    " WHERE m.machine_id = ?1 AND k.spec = ?2 AND m.kind = ?3 AND m.params = ?4";
	if (sqlite3_prepare_v2(db->sql, q, -1, &st, NULL) != SQLITE_OK)
		return db_sql_error(db, "lookup");
	sqlite3_bind_int64(st, 1, mid);
	sqlite3_bind_text(st, 2, spec, -1, SQLITE_TRANSIENT);
	sqlite3_bind_text(st, 3, kind, -1, SQLITE_TRANSIENT);
	sqlite3_bind_text(st, 4, params, -1, SQLITE_TRANSIENT);
	int rc = sqlite3_step(st), found = 0;
	if (rc == SQLITE_ROW) {
		const char *timing = (const char *)sqlite3_column_text(st, 0);
		bench_result_init(out);
		out->source = timing && !strcmp(timing, "papi") ? TIMING_PAPI : TIMING_TSC;
		out->cycles = sqlite3_column_double(st, 1);
		out->ipc = sqlite3_column_double(st, 2);
		out->spread = sqlite3_column_double(st, 3);
		out->flagged = sqlite3_column_int(st, 4);
		const char *reason = (const char *)sqlite3_column_text(st, 5);
		snprintf(out->flag_reason, sizeof(out->flag_reason), "%s", reason ? reason : "");
		out->ticks_per_cycle = sqlite3_column_double(st, 6);
		double *clean;
		out->n_samples =
		    parse_numbers((const char *)sqlite3_column_text(st, 7), &out->samples);
		unsigned nc = parse_numbers((const char *)sqlite3_column_text(st, 8), &clean);
		out->clean = xcalloc(out->n_samples + 1, 1);
		for (unsigned i = 0; i < nc && i < out->n_samples; i++)
			out->clean[i] = clean[i] != 0;
		free(clean);
		out->from_cache = 1;
		found = 1;
	} else if (rc != SQLITE_DONE) {
		found = db_sql_error(db, "lookup");
	}
	sqlite3_finalize(st);
	return found;
}

long db_count(struct db *db)
{
	long long mid = machine_id(db);
	if (mid < 0)
		return -1;
	char *q = xasprintf("SELECT count(*) FROM measurement WHERE machine_id = %lld", mid);
	sqlite3_stmt *st;
	long n = -1;
	if (sqlite3_prepare_v2(db->sql, q, -1, &st, NULL) == SQLITE_OK &&
	    sqlite3_step(st) == SQLITE_ROW)
		n = (long)sqlite3_column_int64(st, 0);
	else
		db_sql_error(db, "count");
	sqlite3_finalize(st);
	free(q);
	return n;
}

int db_store_form(struct db *db, const char *form, const char *status, const char *reason)
{
	long long mid = machine_id(db);
	if (mid < 0)
		return -1;
	sqlite3_stmt *st;
	const char *q = "INSERT OR REPLACE INTO form(machine_id, name, status, reason, date)"
			" VALUES(?1, ?2, ?3, ?4, ?5)";
	if (sqlite3_prepare_v2(db->sql, q, -1, &st, NULL) != SQLITE_OK)
		return db_sql_error(db, "form");
	char date[32];
	now_text(date, sizeof(date));
	sqlite3_bind_int64(st, 1, mid);
	sqlite3_bind_text(st, 2, form, -1, SQLITE_TRANSIENT);
	sqlite3_bind_text(st, 3, status, -1, SQLITE_TRANSIENT);
	sqlite3_bind_text(st, 4, reason, -1, SQLITE_TRANSIENT);
	sqlite3_bind_text(st, 5, date, -1, SQLITE_TRANSIENT);
	int rc = sqlite3_step(st);
	sqlite3_finalize(st);
	return rc == SQLITE_DONE ? 0 : db_sql_error(db, "form");
}

int db_probe_get(struct db *db, const char *probe, double *cycles)
{
	long long mid = machine_id(db);
	*cycles = 0;
	if (mid < 0)
		return -1;
	sqlite3_stmt *st;
	if (sqlite3_prepare_v2(db->sql,
			       "SELECT cycles_per_insn FROM probe_reference WHERE machine_id = ?1"
			       " AND probe = ?2",
			       -1, &st, NULL) != SQLITE_OK)
		return db_sql_error(db, "probe");
	sqlite3_bind_int64(st, 1, mid);
	sqlite3_bind_text(st, 2, probe, -1, SQLITE_TRANSIENT);
	if (sqlite3_step(st) == SQLITE_ROW)
		*cycles = sqlite3_column_double(st, 0);
	sqlite3_finalize(st);
	return 0;
}

int db_probe_put(struct db *db, const char *probe, double cycles, int replace)
{
	long long mid = machine_id(db);
	if (mid < 0)
		return -1;
	sqlite3_stmt *st;
	const char *sql = replace ? "INSERT INTO probe_reference(machine_id, probe, cycles_per_insn)"
				    " VALUES(?1, ?2, ?3) ON CONFLICT(machine_id, probe) DO UPDATE SET"
				    " cycles_per_insn = excluded.cycles_per_insn"
				  : "INSERT INTO probe_reference(machine_id, probe, cycles_per_insn)"
				    " VALUES(?1, ?2, ?3) ON CONFLICT(machine_id, probe) DO UPDATE SET"
				    " cycles_per_insn = min(cycles_per_insn, excluded.cycles_per_insn)";
	if (sqlite3_prepare_v2(db->sql, sql, -1, &st, NULL) != SQLITE_OK)
		return db_sql_error(db, "probe");
	sqlite3_bind_int64(st, 1, mid);
	sqlite3_bind_text(st, 2, probe, -1, SQLITE_TRANSIENT);
	sqlite3_bind_double(st, 3, cycles);
	int rc = sqlite3_step(st);
	sqlite3_finalize(st);
	return rc == SQLITE_DONE ? 0 : db_sql_error(db, "probe");
}

int db_form_semantics_get(struct db *db, const char *form, char **text)
{
	sqlite3_stmt *st;
	if (sqlite3_prepare_v2(db->sql, "SELECT semantics FROM form_semantics WHERE name = ?1", -1,
			       &st, NULL) != SQLITE_OK)
		return db_sql_error(db, "form semantics");
	sqlite3_bind_text(st, 1, form, -1, SQLITE_TRANSIENT);
	int found = 0;
	if (sqlite3_step(st) == SQLITE_ROW) {
		*text = xstrdup((const char *)sqlite3_column_text(st, 0));
		found = 1;
	}
	sqlite3_finalize(st);
	return found;
}

int db_form_semantics_put(struct db *db, const char *form, const char *text)
{
	sqlite3_stmt *st;
	if (sqlite3_prepare_v2(db->sql,
			       "INSERT OR REPLACE INTO form_semantics(name, semantics)"
			       " VALUES(?1, ?2)",
			       -1, &st, NULL) != SQLITE_OK)
		return db_sql_error(db, "form semantics");
	sqlite3_bind_text(st, 1, form, -1, SQLITE_TRANSIENT);
	sqlite3_bind_text(st, 2, text, -1, SQLITE_TRANSIENT);
	int rc = sqlite3_step(st);
	sqlite3_finalize(st);
	return rc == SQLITE_DONE ? 0 : db_sql_error(db, "form semantics");
}

/* The other machine with the most measurements, described. */
static long other_machines(struct db *db, long long mid, char *desc, size_t size)
{
	sqlite3_stmt *st;
	const char *q = "SELECT ma.vendor, ma.family, ma.model, ma.stepping, ma.model_name,"
			" ma.microcode, ma.kernel, count(*) AS n FROM measurement m JOIN machine ma"
			" ON ma.id = m.machine_id WHERE m.machine_id != ?1 GROUP BY m.machine_id"
			" ORDER BY n DESC";
	if (sqlite3_prepare_v2(db->sql, q, -1, &st, NULL) != SQLITE_OK)
		return db_sql_error(db, "machines");
	sqlite3_bind_int64(st, 1, mid);
	long total = 0;
	int rc;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		if (!total) {
			struct machine_identity m;
			memset(&m, 0, sizeof(m));
			snprintf(m.vendor, sizeof(m.vendor), "%s", sqlite3_column_text(st, 0));
			m.family = sqlite3_column_int(st, 1);
			m.model = sqlite3_column_int(st, 2);
			m.stepping = sqlite3_column_int(st, 3);
			snprintf(m.model_name, sizeof(m.model_name), "%s",
				 sqlite3_column_text(st, 4));
			machine_identity_describe(&m, desc, size);
			const char *mc = (const char *)sqlite3_column_text(st, 5);
			snprintf(desc + strlen(desc), size - strlen(desc), " (%s%s%s%s)",
				 mc && *mc ? "microcode " : "", mc && *mc ? mc : "",
				 mc && *mc ? ", " : "", sqlite3_column_text(st, 6));
		}
		total += sqlite3_column_int64(st, 7);
	}
	sqlite3_finalize(st);
	return rc == SQLITE_DONE ? total : db_sql_error(db, "machines");
}

char *db_foreign_note(struct db *db)
{
	long long mid = machine_id(db);
	char desc[320], here[200];
	if (mid < 0)
		return NULL;
	long mine = db_count(db), others = other_machines(db, mid, desc, sizeof(desc));
	if (mine != 0 || others <= 0)
		return NULL;
	struct machine_identity m;
	machine_identity_current(&m);
	machine_identity_describe(&m, here, sizeof(here));
	return xasprintf("database %s holds %ld measurement%s of another machine, %s, and none of "
			 "this one (%s%s%s%s%s): they are kept apart, never used here; this CPU "
			 "is measured anew",
			 db->path, others, others == 1 ? "" : "s", desc, here,
			 m.microcode[0] ? ", microcode " : "", m.microcode, ", ", m.kernel);
}
