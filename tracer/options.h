/* Options that choose what perpi traces, shared by the commands that run
 * a program (perpi / perpi run, perpi record, perpi tui -- PROGRAM); the
 * command line fills them through cmd/options.c's table. */
#ifndef PERPI_TRACER_OPTIONS_H
#define PERPI_TRACER_OPTIONS_H

#include <stdio.h>
#include <sys/types.h>

struct trace_options {
	char **functions; /* --function SYM, repeatable */
	size_t n_functions;
	const char *start; /* --start SYM|ADDR */
	const char *stop;  /* --stop SYM|ADDR */
	int all;	   /* --all: from the first instruction, the loader included */
	int cpu;	   /* --cpu N; -1: the CPU perpi runs on */
	pid_t pid;	   /* -p PID; 0: start the program */
	double duration;   /* --duration SECONDS; 0: none */
};

void trace_options_init(struct trace_options *opt);
void trace_options_done(struct trace_options *opt);

/* Check the combination once all are parsed. 0 or -1 with perpi_error(). */
int trace_options_check(const struct trace_options *opt, int have_program);

#endif
