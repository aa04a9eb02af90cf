/* The options of the commands that trace or analyse a run (perpi [run],
 * record, report, hist, graph, critical, tui): one table (cmd/options.c)
 * says which commands take each option, how its value is read and what its
 * --help line is; one parser and one --help writer serve them all.
 *
 * Adding an option (docs/HACKING.md): a field where its value goes (here,
 * or in struct trace_options / struct filter_options), and one entry in
 * the table naming the commands that take it; its man page line too. */
#ifndef PERPI_CMD_OPTIONS_H
#define PERPI_CMD_OPTIONS_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "ilp/filter.h"
#include "tracer/options.h"

/* The commands, one bit each: an option's entry names those taking it. */
enum cmd_id {
	CMD_RUN = 1 << 0,
	CMD_RECORD = 1 << 1,
	CMD_REPORT = 1 << 2,
	CMD_HIST = 1 << 3,
	CMD_GRAPH = 1 << 4,
	CMD_CRITICAL = 1 << 5,
	CMD_TUI = 1 << 6,
};
#define CMD_REPLAY (CMD_REPORT | CMD_HIST | CMD_GRAPH | CMD_CRITICAL)
#define CMD_ANALYSE (CMD_RUN | CMD_REPLAY)	   /* the filters and the report */
#define CMD_ENGINE (CMD_ANALYSE | CMD_TUI)	   /* the machine's constraints */
#define CMD_TRACE (CMD_RUN | CMD_RECORD | CMD_TUI) /* what to trace */

/* Everything the options of one command line set. Owned by the command:
 * cmd_args_init, cmd_parse, then cmd_args_done. */
struct cmd_args {
	unsigned command;	       /* the CMD_ bit of the command parsing */
	const char *name;	       /* "perpi", "perpi record"...: for messages */
	struct trace_options trace;    /* what to trace (run, record, tui -- PROGRAM) */
	struct filter_options filter;  /* what to analyse, on which machine */
	struct latency_table *latency; /* --latency's table, loaded by cmd_parse */
	const char *output;	       /* -o FILE; NULL: the command's default */
	const char *model;	       /* --model FILE; NULL: the default model */
	int json;		       /* --json */
	long blocks;		       /* --blocks[=N]: rows of the blocks table; 0: none */
	const char *csv, *svg;	       /* hist --csv, --svg */
	unsigned bins;		       /* hist --bins; 0: the output's default */
	int colour;		       /* hist --color 1, --no-color 0; -1: a terminal's */
	uint64_t max_nodes;	       /* graph --max-nodes */
	unsigned measure;	       /* record --measure[=N]: native runs first; 0: none */
	const char *tracer_option;     /* the first tracer option given (tui), or NULL */
	int program;		       /* argv index of PROGRAM; 0: none */
};

/* How an option's value is read and where it goes. */
enum cmd_option_kind {
	OPT_FLAG,   /* no value: the int at offset becomes 1 */
	OPT_STRING, /* the const char * at offset points into argv */
	OPT_NUMBER, /* a decimal from min to max into the integer at offset (size bytes) */
	OPT_CALL,   /* set() reads the value (NULL when an optional value is absent) */
};

struct cmd_option {
	const char *name;  /* "--only"; NULL: a heading line of the help */
	const char *alias; /* "-o" for "--output", or NULL */
	/* The value in the help: "CLASS,..." (required: "--only CLASS" or
	 * "--only=CLASS"), "[=N]" (optional: only "--blocks=N"), NULL: none. */
	const char *value;
	unsigned commands; /* CMD_ bits of the commands taking it */
	enum cmd_option_kind kind;
	size_t offset, size; /* in struct cmd_args (OPT_FLAG, OPT_STRING, OPT_NUMBER) */
	uint64_t min, max;   /* OPT_NUMBER's range */
	int (*set)(struct cmd_args *a, const char *value); /* OPT_CALL: 0, or -1 with
							    * perpi_error() */
	const char *help; /* the help text; '\n' starts a continuation line */
};

/* The table, ended by an entry with no name and no help. */
extern const struct cmd_option cmd_options[];

/* What a command says about itself in its --help, around the options. */
struct cmd_info {
	unsigned id;	   /* CMD_ bit */
	const char *name;  /* "perpi", "perpi record"... */
	const char *usage; /* the synopsis and a description, ending in "\n\n" */
	const char *notes; /* after the options, or NULL */
};

void cmd_args_init(struct cmd_args *a, const struct cmd_info *info);
void cmd_args_done(struct cmd_args *a);

/* Reads argv[1..] with the table: options, then PROGRAM [ARGS...] (run,
 * record; tui after "--") or FILE (tui). Checks the combination and loads
 * --latency's table into a->filter.engine. Returns CMD_GO_ON when the
 * command is to run; otherwise the exit status to return at once: 0 after
 * --help (or --version), 2 after a bad argument, 1 when --latency's file
 * cannot be read (both after printing "NAME: why"). */
#define CMD_GO_ON (-1)
int cmd_parse(struct cmd_args *a, const struct cmd_info *info, int argc, char **argv);

/* A command's entry point: parses argv, then run(&args, argv) gives the
 * exit status. */
int cmd_main(const struct cmd_info *info, int argc, char **argv,
	     int (*run)(struct cmd_args *a, char **argv));

/* The --help text of a command: usage, its options from the table, notes. */
void cmd_usage(FILE *out, const struct cmd_info *info);

/* The header of the analyses' text outputs (filter_write_header) with the
 * count of instructions --latency's table did not list. */
void cmd_write_header(FILE *out, const struct cmd_args *a, struct filter_result *r);

/* -o FILE opened for writing, or standard output when there is none (or
 * "-"); NULL after saying why it cannot be opened. */
FILE *cmd_open_output(const struct cmd_args *a);
/* Closes (or flushes) what cmd_open_output gave; 0, or -1 after saying why. */
int cmd_close_output(const struct cmd_args *a, FILE *out);

#endif
