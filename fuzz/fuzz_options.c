/* Options with values, numeric ones above all: the input is a command
 * line, one argument per line, given to the tracer's options
 * (tracer/options.h) and the analyses' (ilp/filter.h) as perpi run and
 * perpi report take them. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "common/util.h"
#include "fuzz/fuzz_util.h"
#include "ilp/filter.h"
#include "tracer/options.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = fuzz_string(data, size), *argv[64];
	int argc = 0;
	for (char *p = text, *nl; p && argc < 63; p = nl ? nl + 1 : NULL) {
		nl = strchr(p, '\n');
		if (nl)
			*nl = 0;
		argv[argc++] = p;
	}
	argv[argc] = NULL;
	struct trace_options topt;
	struct filter_options fopt;
	trace_options_init(&topt);
	filter_options_init(&fopt);
	for (int i = 0; i < argc;) {
		/* trace_options_parse moves i past what it takes; filter_parse_option
		 * leaves it on the last argument it takes, as their callers expect */
		int rc = trace_options_parse(&topt, argc, argv, &i);
		if (rc == 0 && filter_parse_option(&fopt, argc, argv, &i) != 0)
			i++;
		else if (rc <= 0)
			i++; /* not an option, or a bad value: perpi would stop here */
	}
	trace_options_check(&topt, argc & 1);
	unsigned mask;
	filter_parse_classes(argv[0], &mask);
	trace_options_done(&topt);
	free(text);
	return 0;
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	fuzz_quiet();
	return 0;
}
