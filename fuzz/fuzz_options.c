/* The options of the commands that trace or analyse a run, numeric ones
 * above all (cmd/options.h: one table, one parser): the input is a command
 * line, one argument per line, parsed as the command its first byte picks
 * (perpi run, record, report, hist, graph, critical, tui) would parse it.
 * --latency's file is read by the parser: it is fuzzed by fuzz_latency, so
 * command lines naming one are skipped here (a name like /dev/stdin would
 * wait for input). */
#define _GNU_SOURCE 1
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmd/options.h"
#include "common/util.h"
#include "fuzz/fuzz_util.h"

static int devnull = -1, saved_stdout = -1, saved_stderr = -1;

static void quiet(int on) /* the parser says what is wrong on stderr */
{
	if (on) {
		dup2(devnull, 1);
		dup2(devnull, 2);
	} else {
		dup2(saved_stdout, 1);
		dup2(saved_stderr, 2);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const unsigned ids[] = {CMD_RUN,	  CMD_RECORD,	CMD_REPORT, CMD_HIST,
				       CMD_GRAPH, CMD_CRITICAL, CMD_TUI};
	if (size < 1 || memmem(data, size, "-l", 2)) /* --latency, abbreviated or not */
		return 0;
	char *text = fuzz_string(data + 1, size - 1), *argv[66];
	int argc = 0;
	argv[argc++] = "perpi";
	for (char *p = text, *nl; p && argc < 65; p = nl ? nl + 1 : NULL) {
		nl = strchr(p, '\n');
		if (nl)
			*nl = 0;
		argv[argc++] = p;
	}
	argv[argc] = NULL;
	struct cmd_info info = {ids[data[0] % 7], "perpi fuzz", "usage\n\n", NULL};
	struct cmd_args a;
	cmd_args_init(&a, &info);
	quiet(1);
	cmd_parse(&a, &info, argc, argv);
	quiet(0);
	cmd_args_done(&a);
	free(text);
	return 0;
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	fuzz_quiet();
	devnull = open("/dev/null", O_WRONLY);
	saved_stdout = dup(1);
	saved_stderr = dup(2);
	return 0;
}
