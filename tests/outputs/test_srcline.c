/* Source lines by function+offset (libdw) against a second method:
 * binutils' nm and addr2line on the same binary, for every byte offset of
 * the examples' algorithm functions. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "common/util.h"
#include "ilp/srcline.h"

static int failures, compared;

static void check_function(struct srcline *s, const char *binary, const char *fn)
{
	char *cmd = xasprintf("nm -S %s | awk '$4 == \"%s\" { print $1, $2 }'", binary, fn);
	FILE *p = popen(cmd, "r");
	unsigned long long addr = 0, size = 0;
	int got = fscanf(p, "%llx %llx", &addr, &size);
	pclose(p);
	free(cmd);
	if (got != 2) {
		printf("FAIL: nm found no %s in %s\n", fn, binary);
		failures++;
		return;
	}
	for (unsigned long long off = 0; off < size; off++) {
		cmd = xasprintf("addr2line -e %s %#llx", binary, addr + off);
		p = popen(cmd, "r");
		char want[512] = "";
		if (!fgets(want, sizeof(want), p))
			want[0] = 0;
		pclose(p);
		free(cmd);
		char *colon = strrchr(want, ':');
		if (!colon || colon[1] == '?')
			continue; /* addr2line does not know either */
		*colon = 0;
		unsigned want_line = (unsigned)strtoul(colon + 1, NULL, 10);
		const char *file;
		unsigned line;
		if (srcline_lookup(s, fn, off, &file, &line) < 0) {
			printf("FAIL: %s+%#llx: no line, addr2line says %s:%u\n", fn, off, want,
			       want_line);
			failures++;
			continue;
		}
		const char *base = strrchr(file, '/') ? strrchr(file, '/') + 1 : file;
		const char *want_base = strrchr(want, '/') ? strrchr(want, '/') + 1 : want;
		if (line != want_line || strcmp(base, want_base)) {
			printf("FAIL: %s+%#llx: %s:%u, addr2line says %s:%u\n", fn, off, file, line,
			       want, want_line);
			failures++;
		}
		compared++;
	}
}

int main(void)
{
#ifndef HAVE_LIBDW
	printf("SKIP: perpi was built without libdw\n");
	return 77;
#else
	if (system("command -v addr2line >/dev/null && command -v nm >/dev/null") != 0) {
		printf("SKIP: binutils' nm and addr2line are needed as the second method\n");
		return 77;
	}
	const char *top = getenv("top_builddir") ? getenv("top_builddir") : ".";
	char *binary = xasprintf("%s/examples/horner", top);
	struct srcline *s = srcline_open(binary);
	if (!s) {
		printf("FAIL: %s\n", perpi_error());
		return 1;
	}
	const char *fns[] = {"Horner", "CompHorner", "DDHorner"};
	for (unsigned i = 0; i < 3; i++)
		check_function(s, binary, fns[i]);
	const char *file;
	unsigned line;
	if (srcline_lookup(s, "no_such_function", 0, &file, &line) == 0) {
		printf("FAIL: a line for an unknown function\n");
		failures++;
	}
	srcline_close(s);
	if (!srcline_open("/dev/null")) {
		/* refused, as it must be */
	} else {
		printf("FAIL: /dev/null accepted\n");
		failures++;
	}
	free(binary);
	if (compared < 50) {
		printf("FAIL: only %d offsets compared\n", compared);
		failures++;
	}
	if (!failures)
		printf("PASS: %d function offsets have addr2line's source line\n", compared);
	return failures ? 1 : 0;
#endif
}
