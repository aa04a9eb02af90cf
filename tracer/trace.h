/* The tracer: runs a program natively up to its region of interest, then
 * single-steps it and turns every instruction into a perpi_event for a
 * sink (the engine, the trace writer). See DESIGN.md, "Architecture". */
#ifndef PERPI_TRACER_TRACE_H
#define PERPI_TRACER_TRACE_H

#include <stdint.h>
#include <sys/types.h>

#include "tracer/event.h"
#include "tracer/options.h"

struct symbolizer;

/* How the traced program ended, as perpi reports it. */
struct trace_result {
	int status;	  /* exit status to return: the program's, or 128+signal */
	int exit_code;	  /* when exited */
	int term_signal;  /* when killed by a signal (0 otherwise) */
	int exited;	  /* the program ended while perpi watched it */
	int execed;	  /* tracing stopped at an execve */
	int interrupted;  /* Ctrl-C / SIGTERM / --duration stopped perpi */
	uint64_t steps;	  /* instructions single-stepped and traced */
	uint64_t regions; /* regions of interest entered */
};

struct tracer;

/* A tracer for one run; sink receives one event per traced instruction. */
struct tracer *tracer_new(const struct trace_options *opt, perpi_event_fn sink, void *ctx);
void tracer_delete(struct tracer *t);

/* Check program (ELF, 64-bit x86...), find the region's symbols and start
 * it stopped at its first instruction; or attach to opt->pid. 0, or -1
 * with perpi_error() set ("./x: not an ELF file"). */
int tracer_start(struct tracer *t, char *const argv[]);

/* Run to the end (the program exits, execs, perpi is interrupted or the
 * --duration ends) and fill res. -1 with perpi_error() on a tracer failure. */
int tracer_run(struct tracer *t, struct trace_result *res);

/* Names for the report; valid after tracer_run, until tracer_delete. */
struct symbolizer *tracer_symbols(struct tracer *t);

#endif
