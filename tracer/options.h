/* Options that choose what perpi traces, shared by the commands that run
 * a program (perpi / perpi run, perpi record). */
#ifndef PERPI_TRACER_OPTIONS_H
#define PERPI_TRACER_OPTIONS_H

#include <stdio.h>
#include <sys/types.h>

/* How the program's instructions reach perpi (DESIGN.md: two backends,
 * the same events). */
enum trace_backend {
	TRACE_BACKEND_PTRACE,  /* single-stepping: the default, the native CPU */
	TRACE_BACKEND_VALGRIND /* perpi's Valgrind tool: DBI speed, Valgrind's CPU */
};

struct trace_options {
	char **functions; /* --function SYM, repeatable */
	size_t n_functions;
	const char *start; /* --start SYM|ADDR */
	const char *stop;  /* --stop SYM|ADDR */
	int all;	   /* --all: from the first instruction, the loader included */
	int cpu;	   /* --cpu N; -1: the CPU perpi runs on */
	pid_t pid;	   /* -p PID; 0: start the program */
	double duration;   /* --duration SECONDS; 0: none */
	int backend;	   /* --backend ptrace|valgrind: enum trace_backend */
};

void trace_options_init(struct trace_options *opt);
void trace_options_done(struct trace_options *opt);

/* Try argv[*i] as a tracer option (consuming its value, "--opt VALUE" or
 * "--opt=VALUE"). Returns 1 if taken (*i advanced past it), 0 if it is not
 * a tracer option, -1 with perpi_error() set if its value is bad. */
int trace_options_parse(struct trace_options *opt, int argc, char **argv, int *i);

/* Check the combination once all are parsed. 0 or -1 with perpi_error(). */
int trace_options_check(const struct trace_options *opt, int have_program);

/* The options' lines of a --help text. */
void trace_options_usage(FILE *out);

#endif
