/* What the commands that trace a program share (perpi [run], perpi record,
 * perpi tui -- PROGRAM): the run's metadata, how it ended, and the names
 * of its instructions from the tracer's symbol tables. */
#ifndef PERPI_CMD_LIVE_H
#define PERPI_CMD_LIVE_H

#include "cmd/options.h"
#include "ilp/filter.h"
#include "ilp/trace_file.h"
#include "tracer/trace.h"

#define LIVE_META_MAX 8

/* The metadata perpi record writes in perpi.data (perpi.data(5)): program,
 * argv, cpu, date, kernel; and room for a command's own. */
struct live_meta {
	struct trace_meta_entry entries[LIVE_META_MAX];
	size_t n;
	char *program, *argv, *cpu; /* owned */
	char date[32], kernel[128];
};

/* PROGRAM is argv[a->program] (or the process of -p). */
void live_meta_init(struct live_meta *m, const struct cmd_args *a, char **argv);
void live_meta_add(struct live_meta *m, const char *key, const char *value);
void live_meta_done(struct live_meta *m);

/* How the traced run ended, as perpi.data stores it. */
struct trace_end live_end(const struct trace_result *res);

/* Warns when the report covers less than the whole run (interrupted,
 * execve, killed, nothing traced). */
void live_explain_end(const char *program, const struct trace_result *res);

/* Names from the tracer's symbol tables (ctx: a struct tracer **, filled
 * once the tracer exists). */
const char *live_function_name(void *tracer, uint64_t addr);
struct insn_namer live_namer(struct tracer **tracer);

#endif
