/* The traced run's metadata, its end and its names (cmd/live.h). */
#include "cmd/live.h"

#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <time.h>

#include "common/util.h"
#include "config.h"
#include "tracer/elf.h"
#include "tracer/symbols.h"

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

static char *program_path(const struct cmd_args *a, char **argv)
{
	if (a->trace.pid) {
		char exe[64], real[PATH_MAX];
		snprintf(exe, sizeof(exe), "/proc/%d/exe", (int)a->trace.pid);
		return xstrdup(realpath(exe, real) ? real : exe);
	}
	char *path = elf_find_program(argv[a->program]);
	return path ? path : xstrdup(argv[a->program]);
}

static char *program_argv(const struct cmd_args *a, char **argv)
{
	struct strbuf args;
	strbuf_init(&args);
	for (int i = a->program; a->program && argv[i]; i++)
		strbuf_addf(&args, "%s%s", i > a->program ? " " : "", argv[i]);
	if (a->trace.pid)
		strbuf_addf(&args, "%s(pid %d)", args.len ? " " : "", (int)a->trace.pid);
	return args.buf ? args.buf : xstrdup("");
}

void live_meta_add(struct live_meta *m, const char *key, const char *value)
{
	if (m->n < LIVE_META_MAX)
		m->entries[m->n++] = (struct trace_meta_entry){key, value};
}

void live_meta_init(struct live_meta *m, const struct cmd_args *a, char **argv)
{
	time_t now = time(NULL);
	struct utsname uts;
	memset(m, 0, sizeof(*m));
	m->program = program_path(a, argv);
	m->argv = program_argv(a, argv);
	m->cpu = cpu_model();
	strftime(m->date, sizeof(m->date), "%Y-%m-%dT%H:%M:%SZ", gmtime(&now));
	snprintf(m->kernel, sizeof(m->kernel), "%s", uname(&uts) == 0 ? uts.release : "unknown");
	live_meta_add(m, "program", m->program);
	live_meta_add(m, "argv", m->argv);
	live_meta_add(m, "cpu", m->cpu);
	live_meta_add(m, "date", m->date);
	live_meta_add(m, "kernel", m->kernel);
}

void live_meta_done(struct live_meta *m)
{
	free(m->program);
	free(m->argv);
	free(m->cpu);
	memset(m, 0, sizeof(*m));
}

struct trace_end live_end(const struct trace_result *res)
{
	struct trace_end end = {TRACE_END_EXITED, res->exit_code, res->steps};
	if (res->interrupted)
		end = (struct trace_end){TRACE_END_INTERRUPTED, 0, res->steps};
	else if (res->term_signal)
		end = (struct trace_end){TRACE_END_SIGNALED, res->term_signal, res->steps};
	else if (!res->exited)
		end = (struct trace_end){TRACE_END_DETACHED, 0, res->steps};
	return end;
}

void live_explain_end(const char *program, const struct trace_result *res)
{
	if (res->interrupted)
		perpi_warn("tracing stopped early (signal or --duration): the report covers the "
			   "%llu instructions traced until then",
			   (unsigned long long)res->steps);
	else if (res->execed)
		perpi_warn("%s called execve: the report covers what ran before", program);
	else if (res->term_signal)
		perpi_warn("%s killed by signal %d (%s)", program, res->term_signal,
			   strsignal(res->term_signal));
	if (!res->steps && !res->execed && !res->interrupted)
		perpi_warn("%s: nothing was traced (the region of interest never ran)", program);
}

const char *live_function_name(void *tracer, uint64_t addr)
{
	struct tracer *t = *(struct tracer **)tracer;
	struct symbolizer *sym = t ? tracer_symbols(t) : NULL;
	return sym ? symbolizer_name(sym, addr) : NULL;
}

static const char *insn_function(void *tracer, const struct perpi_insn *insn, uint64_t *offset)
{
	struct tracer *t = *(struct tracer **)tracer;
	struct symbolizer *sym = t ? tracer_symbols(t) : NULL;
	return sym ? symbolizer_function(sym, insn->addr, offset) : NULL;
}

struct insn_namer live_namer(struct tracer **tracer)
{
	return (struct insn_namer){insn_function, NULL, tracer};
}
