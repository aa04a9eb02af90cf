/* The measurement database (SQLite, WAL): the machine's identity, every
 * kernel measured with its generation parameters, timing source and raw
 * samples, and the catalogue of forms discovered. One transaction per
 * kernel, so a campaign killed at any moment keeps what it finished. */
#ifndef PERPI_DB_H
#define PERPI_DB_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "palmed/bench.h"

struct db;

/* The default path: $XDG_DATA_HOME/perpi/measurements.db, else
 * ~/.local/share/perpi/measurements.db; caller frees. */
char *db_default_path(void);

/* Open or create. A file that is not an SQLite database, or one that is
 * but was not made by perpi, is refused. Returns 0, or -1 with
 * perpi_error() set. */
int db_open(const char *path, struct db **out);
void db_close(struct db *db);

/* The running machine, as recorded. */
struct machine_identity {
	char vendor[16], model_name[64], microcode[24], kernel[96];
	int family, model, stepping;
};
void machine_identity_current(struct machine_identity *m);
/* "AuthenticAMD family 25 model 17 stepping 1: AMD EPYC" */
void machine_identity_describe(const struct machine_identity *m, char *buf, size_t size);
/* This machine's key for the probe references (timing_reference_load):
 * its description, microcode and the references' generation. */
void machine_reference_key(char *buf, size_t size);

/* kind: "throughput" or "latency"; params: bench_options_key(). On this
 * machine. Returns 1 (found, out filled with from_cache = 1), 0, or -1. */
int db_lookup(struct db *db, const char *spec, const char *kind, const char *params,
	      struct bench_result *out);
/* Store (replace) a measurement with all its samples, atomically. */
int db_store(struct db *db, const char *spec, const char *kind, const char *params,
	     const struct bench_result *r);

/* The fewest cycles per instruction a throughput probe ("alu", "load",
 * "fp": palmed/timing.h) took on this machine (0 if not known): the
 * references that tell a disturbed repetition from a clean one. */
int db_probe_get(struct db *db, const char *probe, double *cycles);
/* Keeps the smaller of the two, or with replace this one. */
int db_probe_put(struct db *db, const char *probe, double cycles, int replace);

/* Cached semantics of a form (palmed/gen.h's text): 1 found (*text
 * malloc'd), 0 not, -1 error. */
int db_form_semantics_get(struct db *db, const char *form, char **text);
int db_form_semantics_put(struct db *db, const char *form, const char *text);

/* Measurements are keyed by the machine (vendor, family, model, stepping,
 * name, microcode, kernel): another machine's are kept apart and never
 * used. When the database holds another machine's measurements and none of
 * this one, a message saying so (malloc'd), else NULL. */
char *db_foreign_note(struct db *db);

/* Number of measurements on this machine. */
long db_count(struct db *db);

/* The forms catalogue: status "ok", "unsupported", "assembly", "fault",
 * "mismatch"; reason may be NULL. */
int db_store_form(struct db *db, const char *form, const char *status, const char *reason);
int db_begin(struct db *db);
int db_commit(struct db *db);

enum db_format { DB_FORMAT_SQL, DB_FORMAT_CSV };
/* Export everything (all machines). Returns 0 or -1. */
int db_export(struct db *db, FILE *out, enum db_format fmt);
/* Import an export; rows already present are kept, not duplicated. */
int db_import(struct db *db, FILE *in, enum db_format fmt);

#endif
