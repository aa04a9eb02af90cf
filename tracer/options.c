/* Parsing of the tracer's options. */
#include "tracer/options.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "common/util.h"

void trace_options_init(struct trace_options *opt)
{
	memset(opt, 0, sizeof(*opt));
	opt->cpu = -1;
}

void trace_options_done(struct trace_options *opt)
{
	free(opt->functions);
	trace_options_init(opt);
}

/* "--name VALUE" or "--name=VALUE": the value, advancing *i; NULL if argv[*i]
 * is not this option. *missing is set when the value is absent. */
static const char *option_value(int argc, char **argv, int *i, const char *name, int *missing)
{
	const char *a = argv[*i];
	size_t n = strlen(name);
	if (strncmp(a, name, n))
		return NULL;
	if (a[n] == '=') {
		(*i)++;
		return a + n + 1;
	}
	if (a[n])
		return NULL;
	if (*i + 1 >= argc) {
		*missing = 1;
		return NULL;
	}
	*i += 2;
	return argv[*i - 1];
}

static int parse_long(const char *s, long min, long max, long *out)
{
	char *end;
	errno = 0;
	long v = strtol(s, &end, 10);
	if (errno || end == s || *end || v < min || v > max)
		return -1;
	*out = v;
	return 0;
}

int trace_options_parse(struct trace_options *opt, int argc, char **argv, int *i)
{
	const char *opt_name = argv[*i], *v;
	int missing = 0;
	long n;
	if ((v = option_value(argc, argv, i, "--function", &missing))) {
		opt->functions =
		    xrealloc(opt->functions, (opt->n_functions + 1) * sizeof(*opt->functions));
		opt->functions[opt->n_functions++] = (char *)v;
		return 1;
	}
	if ((v = option_value(argc, argv, i, "--start", &missing))) {
		opt->start = v;
		return 1;
	}
	if ((v = option_value(argc, argv, i, "--stop", &missing))) {
		opt->stop = v;
		return 1;
	}
	if ((v = option_value(argc, argv, i, "--cpu", &missing))) {
		if (parse_long(v, 0, 4095, &n) < 0)
			return perpi_set_error("--cpu %s: not a CPU number", v);
		opt->cpu = (int)n;
		return 1;
	}
	if ((v = option_value(argc, argv, i, "-p", &missing)) ||
	    (v = option_value(argc, argv, i, "--pid", &missing))) {
		if (parse_long(v, 1, 1L << 30, &n) < 0)
			return perpi_set_error("-p %s: not a process id", v);
		opt->pid = (pid_t)n;
		return 1;
	}
	if ((v = option_value(argc, argv, i, "--duration", &missing))) {
		char *end;
		double d = strtod(v, &end);
		if (end == v || *end || !(d > 0) || d > 1e7)
			return perpi_set_error("--duration %s: not a positive number of seconds",
					       v);
		opt->duration = d;
		return 1;
	}
	if ((v = option_value(argc, argv, i, "--backend", &missing))) {
		if (!strcmp(v, "ptrace"))
			opt->backend = TRACE_BACKEND_PTRACE;
		else if (!strcmp(v, "valgrind"))
			opt->backend = TRACE_BACKEND_VALGRIND;
		else
			return perpi_set_error("--backend %s: not a backend (ptrace or valgrind)", v);
		return 1;
	}
	if (missing)
		return perpi_set_error("%s: needs a value", opt_name);
	if (!strcmp(argv[*i], "--all")) {
		opt->all = 1;
		(*i)++;
		return 1;
	}
	return 0;
}

int trace_options_check(const struct trace_options *opt, int have_program)
{
	if (opt->pid && have_program)
		return perpi_set_error("-p %d: give either a PID or a program, not both", opt->pid);
	if (!opt->pid && !have_program)
		return perpi_set_error("no program given (perpi --help tells how to run one)");
	if (opt->n_functions && (opt->start || opt->stop || opt->all))
		return perpi_set_error("--function: cannot be combined with --start, --stop "
				       "or --all");
	if (opt->all && opt->start)
		return perpi_set_error("--all: cannot be combined with --start");
	if (opt->pid && opt->backend == TRACE_BACKEND_VALGRIND)
		return perpi_set_error("-p: the valgrind backend cannot attach to a running "
				       "process; leave out --backend=valgrind");
	if (opt->pid && (opt->all || opt->start))
		return perpi_set_error("-p: tracing starts at attach; --all and --start "
				       "do not apply");
	return 0;
}

void trace_options_usage(FILE *out)
{
	fputs("What to trace (default: main, or between perpi_start() and perpi_stop()\n"
	      "when the program calls them; the entry point of a program without symbols):\n"
	      "  --function SYM     trace only inside calls of SYM (repeatable)\n"
	      "  --start SYM|ADDR   start tracing there\n"
	      "  --stop SYM|ADDR    stop tracing there (tracing resumes at the next start)\n"
	      "  --all              trace from the first instruction, the loader included\n"
	      "  -p, --pid PID      attach to a running process (until Ctrl-C or --duration)\n"
	      "  --duration SECS    stop tracing after SECS seconds\n"
	      "  --cpu N            run perpi and the program on CPU N (default: the current)\n"
	      "  --backend B        ptrace (default: the native CPU, exact) or valgrind\n"
	      "                     (Valgrind's CPU, AVX2 at most: thousands of times faster)\n",
	      out);
}
