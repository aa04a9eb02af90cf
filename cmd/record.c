/* perpi record: run a program under the tracer and write every event to
 * perpi.data (perpi.data(5)), with the names and source lines of the
 * instructions it ran, for perpi report/hist/graph/critical to replay.
 * (The command of the trace file, so it lives beside it in ilp/.) */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <time.h>

#include "cmd/commands.h"
#include "common/util.h"
#include "ilp/srcline.h"
#include "ilp/trace_file.h"
#include "tracer/elf.h"
#include "tracer/options.h"
#include "tracer/symbols.h"
#include "tracer/trace.h"

struct record {
	struct trace_options trace;
	const char *output;
	int program; /* index of PROGRAM in argv (argc when -p) */
	struct tracer *tracer;
	struct srcline *lines; /* the program's, or NULL */
	char name[512];	       /* last function name returned */
};

static void usage(FILE *out)
{
	fputs("usage: perpi record [-o FILE] [OPTIONS] [--] PROGRAM [ARGS...]\n"
	      "       perpi record [-o FILE] -p PID [OPTIONS]\n"
	      "Trace PROGRAM and write its instructions, with their names and source\n"
	      "lines, to perpi.data for 'perpi report', 'hist', 'graph' and 'critical'.\n\n"
	      "  -o FILE            write FILE instead of perpi.data\n"
	      "  -q                 no warnings\n",
	      out);
	trace_options_usage(out);
	fputs("\nperpi record exits with the program's status (128+N when signal N killed it).\n",
	      out);
}

/* 1: parsed; 0: --help printed; -1: bad options (message set). */
static int parse(struct record *r, int argc, char **argv)
{
	int i = 1;
	while (i < argc && argv[i][0] == '-') {
		const char *a = argv[i];
		if (!strcmp(a, "--")) {
			i++;
			break;
		}
		if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
			usage(stdout);
			return 0;
		}
		if (!strcmp(a, "-q")) {
			perpi_quiet = 1;
			i++;
		} else if (!strcmp(a, "-o")) {
			if (i + 1 >= argc)
				return perpi_set_error("-o needs a file name");
			r->output = argv[i + 1];
			i += 2;
		} else {
			int rc = trace_options_parse(&r->trace, argc, argv, &i);
			if (rc < 0)
				return -1;
			if (rc == 0)
				return perpi_set_error("%s: unknown option (perpi record --help)",
						       a);
		}
	}
	r->program = i;
	return trace_options_check(&r->trace, i < argc) < 0 ? -1 : 1;
}

/* "name", "name+0x1c", "name@libc.so.6", "name+0x1c@libc.so.6" or
 * "0x7f...": the function is the name without the offset. */
static const char *record_function(void *ctx, uint64_t addr, uint64_t *offset)
{
	struct record *r = ctx;
	struct symbolizer *sym = tracer_symbols(r->tracer);
	if (!sym)
		return NULL;
	symbolizer_note(sym, addr);
	const char *s = symbolizer_name(sym, addr);
	if (!s || !strncmp(s, "0x", 2))
		return NULL;
	snprintf(r->name, sizeof(r->name), "%s", s);
	*offset = 0;
	char *plus = strstr(r->name, "+0x");
	if (plus) {
		char *end;
		*offset = strtoull(plus + 3, &end, 16);
		memmove(plus, end, strlen(end) + 1);
	}
	return r->name;
}

static int record_line(void *ctx, uint64_t addr, const char **file, unsigned *line)
{
	struct record *r = ctx;
	uint64_t offset;
	if (!r->lines)
		return -1;
	const char *fn = record_function(r, addr, &offset);
	if (!fn || strchr(fn, '@')) /* a shared object's: its lines are not read */
		return -1;
	return srcline_lookup(r->lines, fn, offset, file, line);
}

static char *cpu_model(void)
{
	FILE *fp = fopen("/proc/cpuinfo", "r");
	char line[512];
	while (fp && fgets(line, sizeof(line), fp)) {
		char *colon = strchr(line, ':');
		if (!strncmp(line, "model name", 10) && colon) {
			fclose(fp);
			colon[strcspn(colon, "\n")] = 0;
			return xstrdup(colon + 1 + strspn(colon + 1, " \t"));
		}
	}
	if (fp)
		fclose(fp);
	return xstrdup("unknown");
}

static char *program_path(const struct record *r, char **argv)
{
	if (r->trace.pid) {
		char exe[64], real[PATH_MAX];
		snprintf(exe, sizeof(exe), "/proc/%d/exe", (int)r->trace.pid);
		return xstrdup(realpath(exe, real) ? real : exe);
	}
	char *path = elf_find_program(argv[r->program]);
	return path ? path : xstrdup(argv[r->program]);
}

static struct trace_writer *open_writer(struct record *r, int argc, char **argv, char *program)
{
	struct strbuf args;
	char date[32];
	time_t now = time(NULL);
	struct utsname uts;
	strbuf_init(&args);
	for (int i = r->program; i < argc; i++)
		strbuf_addf(&args, "%s%s", i > r->program ? " " : "", argv[i]);
	if (r->trace.pid)
		strbuf_addf(&args, "%s(pid %d)", args.len ? " " : "", (int)r->trace.pid);
	strftime(date, sizeof(date), "%Y-%m-%dT%H:%M:%SZ", gmtime(&now));
	char *cpu = cpu_model();
	const struct trace_meta_entry meta[] = {
	    {"program", program},
	    {"argv", args.buf},
	    {"cpu", cpu},
	    {"date", date},
	    {"kernel", uname(&uts) == 0 ? uts.release : "unknown"},
	    {"lines", r->lines ? "libdw" : "none"},
	    {"backend", r->trace.backend == TRACE_BACKEND_VALGRIND ? "valgrind" : "ptrace"}};
	const struct trace_symbolizer sym = {record_function, record_line, r};
	struct trace_writer *w = trace_writer_open(r->output, meta, ARRAY_SIZE(meta), &sym);
	free(cpu);
	strbuf_done(&args);
	return w;
}

static struct trace_end end_of(const struct trace_result *res)
{
	struct trace_end end = {TRACE_END_EXITED, res->exit_code, 0};
	if (res->interrupted)
		end = (struct trace_end){TRACE_END_INTERRUPTED, 0, 0};
	else if (res->term_signal)
		end = (struct trace_end){TRACE_END_SIGNALED, res->term_signal, 0};
	else if (!res->exited)
		end = (struct trace_end){TRACE_END_DETACHED, 0, 0};
	return end;
}

static int record_run(struct record *r, int argc, char **argv)
{
	char *program = program_path(r, argv);
	r->lines = srcline_open(program);
	if (!r->lines)
		perpi_warn("no source lines in the trace: %s", perpi_error());
	struct trace_writer *w = open_writer(r, argc, argv, program);
	free(program);
	if (!w) {
		fprintf(stderr, "perpi record: %s\n", perpi_error());
		return 2;
	}
	struct trace_result res;
	r->tracer = tracer_new(&r->trace, trace_writer_event, w);
	if (tracer_start(r->tracer, argv + r->program) < 0) {
		fprintf(stderr, "perpi record: %s\n", perpi_error());
		trace_writer_abort(w);
		remove(r->output);
		return 127;
	}
	if (tracer_run(r->tracer, &res) < 0) {
		fprintf(stderr, "perpi record: tracing: %s\n", perpi_error());
		res.status = 1;
		res.interrupted = 1;
	}
	struct trace_end end = end_of(&res);
	if (trace_writer_close(w, &end) < 0) {
		fprintf(stderr, "perpi record: %s\n", perpi_error());
		return 1;
	}
	struct stat st;
	if (!perpi_quiet && stat(r->output, &st) == 0)
		fprintf(stderr, "perpi record: %llu instructions written to %s (%lld bytes); %s\n",
			(unsigned long long)res.steps, r->output, (long long)st.st_size,
			trace_end_describe(&end));
	return res.status;
}

int cmd_record(int argc, char **argv)
{
	struct record r;
	memset(&r, 0, sizeof(r));
	r.output = TRACE_FILE_DEFAULT;
	trace_options_init(&r.trace);
	int rc = parse(&r, argc, argv);
	if (rc < 0)
		fprintf(stderr, "perpi record: %s\n", perpi_error());
	else if (rc > 0)
		rc = record_run(&r, argc, argv);
	if (r.tracer)
		tracer_delete(r.tracer);
	srcline_close(r.lines);
	trace_options_done(&r.trace);
	return rc < 0 ? 2 : rc;
}
