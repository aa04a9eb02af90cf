/* perpi forms: instruction forms, and which ones this CPU can benchmark. */
#include <stdio.h>
#include <string.h>

#include "commands.h"
#include "common/util.h"
#include "palmed/form.h"

static int usage(FILE *out)
{
	fprintf(out, "usage: perpi forms check FORM...     parse forms, say if they can be benchmarked\n");
	return out == stdout ? 0 : 2;
}

static int forms_check(int argc, char **argv)
{
	int rc = 0;
	for (int i = 0; i < argc; i++) {
		struct form f;
		char name[FORM_NAME_MAX];
		if (form_parse(argv[i], &f) < 0) {
			fprintf(stderr, "perpi: forms: %s\n", perpi_error());
			rc = 1;
			continue;
		}
		form_print(&f, name, sizeof(name));
		const char *why = form_unsupported_reason(&f);
		printf("%s\t%s%s\n", name, why ? "unsupported: " : "supported", why ? why : "");
	}
	return rc;
}

int cmd_forms(int argc, char **argv)
{
	if (argc < 2)
		return usage(stderr);
	if (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help"))
		return usage(stdout);
	if (!strcmp(argv[1], "check") && argc > 2)
		return forms_check(argc - 2, argv + 2);
	return usage(stderr);
}
