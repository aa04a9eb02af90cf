/* The tracer's options: defaults and the combinations refused (they are
 * read by cmd/options.c's table). */
#include "tracer/options.h"

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
	if (opt->pid && (opt->all || opt->start))
		return perpi_set_error("-p: tracing starts at attach; --all and --start "
				       "do not apply");
	return 0;
}
