/* The tracer's main loop: native runs between regions of interest, single
 * steps inside them, one event per instruction.
 *
 * Life of a run: tracer_start() checks the ELF, resolves the region's
 * symbols and starts the program stopped at exec (or attaches). Then
 * tracer_run() alternates native phases (breakpoints armed, PTRACE_CONT)
 * and regions (breakpoints removed, PTRACE_SINGLESTEP until the region's
 * end). Other threads and children are the job of tracee.c. */
#define _GNU_SOURCE
#include "tracer/trace.h"

#include <elf.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/uio.h>
#include <sys/user.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common/util.h"
#include "tracer/elf.h"
#include "tracer/process.h"
#include "tracer/symbols.h"
#include "tracer/trace_internal.h"
#include "tracer/x86.h"

#define EFLAGS_TF 0x100
#define XSAVE_MAX 16384

volatile sig_atomic_t trace_stop_signal;

static void on_stop_signal(int sig)
{
	trace_stop_signal = sig;
}

struct tracer *tracer_new(const struct trace_options *opt, perpi_event_fn sink, void *ctx)
{
	struct tracer *t = xcalloc(1, sizeof(*t));
	t->opt = *opt;
	t->sink = sink;
	t->ctx = ctx;
	t->dec = x86_decoder_new();
	t->xsave = xmalloc(XSAVE_MAX);
	breakpoints_init(&t->bps);
	insn_cache_init(&t->cache);
	return t;
}

void tracer_delete(struct tracer *t)
{
	if (!t)
		return;
	insn_cache_done(&t->cache);
	if (t->dec)
		x86_decoder_delete(t->dec);
	symbolizer_delete(t->syms);
	elf_image_delete(t->prog);
	breakpoints_done(&t->bps);
	free(t->threads);
	free(t->starts);
	free(t->lib_functions);
	free(t->path);
	free(t->xsave);
	free(t);
}

struct symbolizer *tracer_symbols(struct tracer *t)
{
	return t->syms;
}

/* SYM or ADDR (hex with 0x, as objdump shows it) -> link-time address. */
static int location_resolve(struct tracer *t, const char *what, const char *loc, uint64_t *addr)
{
	char *end;
	if (loc[0] == '0' && (loc[1] == 'x' || loc[1] == 'X')) {
		errno = 0;
		*addr = strtoull(loc, &end, 16);
		if (errno || *end || end == loc + 2)
			return perpi_set_error("%s %s: not an address", what, loc);
		return 0;
	}
	const struct elf_symbol *s = elf_image_lookup(t->prog, loc);
	if (!s)
		return perpi_set_error("%s %s: no function of that name in %s (is it static "
				       "and the program stripped?)",
				       what, loc, t->path);
	*addr = s->value;
	return 0;
}

static void starts_add(struct tracer *t, uint64_t link_addr)
{
	t->starts = xrealloc(t->starts, (t->n_starts + 1) * sizeof(*t->starts));
	t->starts[t->n_starts++] = link_addr;
}

/* Choose the region of interest from the options and the program. */
static int region_choose(struct tracer *t)
{
	const struct trace_options *o = &t->opt;
	const struct elf_symbol *main_sym = elf_image_lookup(t->prog, "main");
	uint64_t a;
	for (size_t i = 0; i < o->n_functions; i++) {
		t->end_kind = END_RETURN;
		const char *f = o->functions[i];
		if (f[0] != '0' && !elf_image_lookup(t->prog, f)) { /* a library's, maybe */
			t->lib_functions = xrealloc(
			    t->lib_functions, (t->n_lib_functions + 1) * sizeof(*t->lib_functions));
			t->lib_functions[t->n_lib_functions++] = (char *)f;
			continue;
		}
		if (location_resolve(t, "--function", f, &a) < 0)
			return -1;
		starts_add(t, a);
	}
	if (o->n_functions)
		return 0;
	if (o->stop) {
		if (location_resolve(t, "--stop", o->stop, &t->stop_addr) < 0)
			return -1;
		t->have_stop = 1;
	}
	t->end_kind = END_EXIT;
	if (o->all || o->pid) {
		t->start_now = 1;
	} else if (o->start) {
		if (location_resolve(t, "--start", o->start, &a) < 0)
			return -1;
		starts_add(t, a);
	} else if (o->stop) {
		if (main_sym)
			starts_add(t, main_sym->value);
		else
			t->start_at_entry = 1;
	} else if (elf_image_lookup(t->prog, "perpi_start")) {
		starts_add(t, elf_image_lookup(t->prog, "perpi_start")->value);
		t->skip_start_call = 1;
		const struct elf_symbol *stop = elf_image_lookup(t->prog, "perpi_stop");
		if (stop) {
			t->stop_addr = stop->value;
			t->have_stop = 1;
		}
	} else if (main_sym) {
		starts_add(t, main_sym->value);
		t->end_kind = END_RETURN;
	} else {
		t->start_at_entry = 1;
	}
	return 0;
}

static int region_plan(struct tracer *t)
{
	if (region_choose(t) < 0)
		return -1;
	/* regions that start at a function's first instruction open its call */
	t->starts_are_functions = t->n_starts && !t->start_at_entry;
	for (size_t i = 0; i < t->n_starts && t->end_kind != END_RETURN; i++) {
		const struct elf_symbol *s = elf_image_find(t->prog, t->starts[i]);
		t->starts_are_functions &= s && s->value == t->starts[i];
	}
	return 0;
}

/* --function names of the libraries, now mapped: breakpoints at them. */
static int region_resolve_libs(struct tracer *t, int final)
{
	size_t left = 0;
	symbolizer_refresh(t->syms);
	for (size_t i = 0; i < t->n_lib_functions; i++) {
		uint64_t addr;
		int r = symbolizer_lookup(t->syms, t->lib_functions[i], &addr);
		if (r == -2)
			return perpi_set_error("--function %s: an IFUNC (its implementation is "
					       "chosen at run time, under another name): trace "
					       "its caller instead",
					       t->lib_functions[i]);
		if (r < 0 && final)
			return perpi_set_error("--function %s: no function of that name in %s or "
					       "the libraries it has loaded",
					       t->lib_functions[i], t->path);
		if (r < 0) {
			t->lib_functions[left++] = t->lib_functions[i];
			continue;
		}
		starts_add(t, addr);
		breakpoints_add(&t->bps, addr);
	}
	t->n_lib_functions = left;
	/* the rest may come with dlopen: the loader calls _dl_debug_state
	 * (r_debug.r_brk) whenever its list of objects changes */
	if (left && !t->debug_state &&
	    symbolizer_lookup(t->syms, "_dl_debug_state", &t->debug_state) == 0)
		breakpoints_add(&t->bps, t->debug_state);
	if (left && !t->debug_state)
		return region_resolve_libs(t, 1);
	return 0;
}

/* Link-time addresses -> run-time ones, and the breakpoints. */
static int region_place(struct tracer *t)
{
	uint64_t entry = process_auxv(t->pid, AT_ENTRY);
	if (!entry)
		return perpi_set_error("%d: cannot read its entry point (/proc/%d/auxv)", t->pid,
				       t->pid);
	uint64_t bias = elf_image_is_pie(t->prog) ? entry - elf_image_entry(t->prog) : 0;
	for (size_t i = 0; i < t->n_starts; i++) {
		t->starts[i] += bias;
		breakpoints_add(&t->bps, t->starts[i]);
	}
	if (t->start_at_entry) {
		starts_add(t, entry);
		breakpoints_add(&t->bps, entry);
	}
	if (t->have_stop)
		t->stop_addr += bias;
	if (t->n_lib_functions && t->opt.pid)
		return region_resolve_libs(t, 0); /* attached: the libraries are there */
	if (t->n_lib_functions) {		  /* started: they are there when main is reached */
		const struct elf_symbol *m = elf_image_lookup(t->prog, "main");
		t->resolve_addr = m ? m->value + bias : entry;
		t->have_resolve = 1;
		breakpoints_add(&t->bps, t->resolve_addr);
	}
	t->starts_are_functions |= t->end_kind == END_RETURN;
	return 0;
}

static int tracer_open_program(struct tracer *t, const char *path)
{
	t->prog = elf_image_open(path);
	return t->prog ? 0 : -1;
}

int tracer_start(struct tracer *t, char *const argv[])
{
	int cpu = process_pin_cpu(t->opt.cpu);
	if (cpu < 0)
		return -1;
	if (t->opt.pid) {
		t->pid = t->opt.pid;
		char exe[64];
		snprintf(exe, sizeof(exe), "/proc/%d/exe", t->pid);
		char *real = realpath(exe, NULL);
		t->path = real ? real : xstrdup(exe);
		if (kill(t->pid, 0) < 0 && errno == ESRCH)
			return perpi_set_error("-p %d: no such process", t->pid);
		if (tracer_open_program(t, exe) < 0 || region_plan(t) < 0)
			return -1;
		if (tracee_attach(t, cpu) < 0)
			return -1;
	} else {
		t->path = elf_find_program(argv[0]);
		if (!t->path || tracer_open_program(t, t->path) < 0 || region_plan(t) < 0)
			return -1;
		if (process_spawn(t->path, argv, &t->pid) < 0)
			return -1;
		t->spawned = 1;
	}
	t->tgid = t->pid;
	t->syms = symbolizer_new(t->pid, t->path);
	return region_place(t);
}

static int fetch_xstate(void *ctx, struct x86_xstate *out)
{
	struct tracer *t = ctx;
	struct iovec iov = {t->xsave, XSAVE_MAX};
	if (ptrace(PTRACE_GETREGSET, t->pid, NT_X86_XSTATE, &iov) < 0)
		return perpi_set_error("reading the extended state: %s", strerror(errno));
	return x86_xstate_parse(t->xsave, iov.iov_len, out);
}

int trace_get_regs(struct tracer *t)
{
	if (ptrace(PTRACE_GETREGS, t->pid, 0, &t->regs) < 0)
		return perpi_set_error("reading registers: %s", strerror(errno));
	return 0;
}

/* After a step: undo what the trap flag leaked into the program's view. */
static void step_fixups(struct tracer *t, const struct insn_entry *e)
{
	if (e->pushf_size) { /* pushf stored TF: clear it in the pushed value */
		uint8_t lo;
		if (process_read(t->pid, t->regs.rsp + 1, &lo, 1) == 1 && (lo & 1))
			process_poke_byte(t->pid, t->regs.rsp + 1, lo & ~1, NULL);
	}
	/* syscall saved RFLAGS, TF included, in r11; but rt_sigreturn (which
	 * leaves orig_rax at -1) restored the program's own r11: keep it. */
	if (e->insn.control == CTRL_SYSCALL && (t->regs.r11 & EFLAGS_TF) &&
	    t->regs.orig_rax != SYS_rt_sigreturn && t->regs.orig_rax != (unsigned long long)-1) {
		t->regs.r11 &= ~EFLAGS_TF;
		ptrace(PTRACE_SETREGS, t->pid, 0, &t->regs);
	}
}

/* What main_stop found besides STEP_* results to return at once. */
enum { STOP_SIGNAL = -1, STOP_AGAIN = -2 };

/* The main thread's stop after perpi resumed it (stepping: a single step):
 * STOP_SIGNAL with its signal in *sig; STOP_AGAIN after a ptrace event or
 * a group stop, handled (resume it again); or a STEP_ result to return
 * (exited, execve, perpi interrupted). */
static int main_stop(struct tracer *t, int stepping, int *sig)
{
	int status, r = tracee_wait_main(t, &status);
	if (r == WAIT_INTERRUPTED && stepping)
		t->step_in_flight = 1;
	if (r != WAIT_STOPPED)
		return r == WAIT_EXITED ? STEP_EXITED : STEP_INTERRUPTED;
	int s = WSTOPSIG(status), event = status >> 16;
	if (event)
		return tracee_main_event(t, event) == STEP_EXECED ? STEP_EXECED : STOP_AGAIN;
	if (tracee_is_group_stop(t, s))
		return STOP_AGAIN;
	if (trace_stop_signal && (s == SIGINT || s == SIGTERM)) {
		t->pending_signal = s;
		return STEP_INTERRUPTED;
	}
	*sig = s;
	return STOP_SIGNAL;
}

/* One step of the main thread. Signal, clone and fork stops on the way
 * are handled here; the instruction is then stepped again. */
int trace_step(struct tracer *t)
{
	int sig = 0, handler = 0;
	for (;;) {
		ptrace(PTRACE_SINGLESTEP, t->pid, 0, sig);
		sig = 0;
		int s, r = main_stop(t, 1, &s);
		if (r == STOP_AGAIN)
			continue;
		if (r != STOP_SIGNAL)
			return r;
		if (s == SIGTRAP) {
			if (trace_get_regs(t) < 0)
				return STEP_ERROR;
			return handler ? STEP_HANDLER : STEP_DONE;
		}
		sig = s; /* deliver it; with a handler the next stop is its entry */
		handler = process_signal_caught(t->pid, s);
	}
}

static struct perpi_event *resolve(struct tracer *t, struct insn_entry *e, struct perpi_event *ev)
{
	struct x86_state st = {&t->regs, fetch_xstate, t};
	if (x86_resolve(&e->insn, &st, ev) < 0) {
		if (!e->warned)
			perpi_warn("%#llx: %s: %s", (unsigned long long)e->insn.addr, e->insn.text,
				   perpi_error());
		e->warned = 1;
		memset(ev, 0, sizeof(*ev));
		ev->insn = &e->insn;
		ev->sp = t->regs.rsp;
		ev->flags = EVENT_UNKNOWN;
	}
	return ev;
}

static int emit(struct tracer *t, const struct perpi_event *ev)
{
	if (t->done_tracing || !t->sink(t->ctx, ev))
		return 0;
	t->done_tracing = 1;
	return 1;
}

/* Single-step from the current stop to the region's end: the return of the
 * call entered at end_rsp (END_RETURN), the stop address, or the exit. */
static int region_trace(struct tracer *t, uint64_t end_rsp, int call_entry)
{
	struct perpi_event *cur = &t->ev[0], *prev = &t->ev[1];
	int have_prev = 0, signal_entry = 0;
	struct symbolizer_plt plt = {{0}, 0, CTRL_NONE}; /* calls through PLT stubs */
	t->res.regions++;
	for (;;) {
		int at_stop = t->have_stop && t->regs.rip == t->stop_addr;
		int at_end = at_stop || (t->end_kind == END_RETURN && t->regs.rsp > end_rsp);
		/* the previous instruction completed; a call into --stop is not traced */
		if (have_prev && !(at_stop && prev->insn->control == CTRL_CALL))
			at_end |= emit(t, prev);
		have_prev = 0;
		if (at_end || trace_stop_signal)
			return STEP_DONE;
		struct insn_entry *e = insn_cache_get(t, t->regs.rip);
		resolve(t, e, cur);
		if (signal_entry)
			cur->flags |= EVENT_SIGNAL_ENTRY;
		if (call_entry) /* a function entered by a call we did not trace */
			cur->flags |= EVENT_CALL_ENTRY;
		signal_entry = call_entry = 0;
		int r = trace_step(t);
		switch (r) {
		case STEP_DONE:
			t->res.steps++;
			step_fixups(t, e);
			cur->flags |= symbolizer_follow_plt(t->syms, &plt, cur);
			struct perpi_event *tmp = prev;
			prev = cur;
			cur = tmp;
			have_prev = 1;
			break;
		case STEP_HANDLER: /* the instruction did not run: a handler starts */
			signal_entry = 1;
			break;
		case STEP_EXITED:
		case STEP_EXECED: /* exit_group or execve ran */
			if (e->insn.control == CTRL_SYSCALL)
				emit(t, cur);
			return r;
		default:
			return r;
		}
	}
}

/* perpi_start() was entered: run it, untraced, up to its return. */
static int region_skip_call(struct tracer *t)
{
	uint64_t entry_rsp = t->regs.rsp;
	while (t->regs.rsp <= entry_rsp) {
		int r = trace_step(t);
		if (r != STEP_DONE)
			return r == STEP_HANDLER ? STEP_DONE : r;
	}
	return STEP_DONE;
}

/* At a region's start (main thread stopped there, breakpoints removed). */
static int region_enter(struct tracer *t)
{
	if (t->done_tracing)
		return STEP_DONE;
	if (t->skip_start_call) {
		int r = region_skip_call(t);
		if (r != STEP_DONE)
			return r;
	}
	return region_trace(t, t->regs.rsp, !t->skip_start_call && t->starts_are_functions);
}

static int is_start(const struct tracer *t, uint64_t addr)
{
	for (size_t i = 0; i < t->n_starts; i++)
		if (t->starts[i] == addr)
			return 1;
	return 0;
}

/* Run natively until a region starts (STEP_DONE, stopped there) or the end. */
static int native_run(struct tracer *t)
{
	int sig = t->pending_signal;
	t->pending_signal = 0;
	if (!t->done_tracing && breakpoints_arm(&t->bps, t->pid) < 0)
		return STEP_ERROR;
	for (;;) {
		if (trace_stop_signal) { /* the main thread is stopped here */
			t->pending_signal = sig;
			return STEP_INTERRUPTED;
		}
		ptrace(PTRACE_CONT, t->pid, 0, sig);
		sig = 0;
		int s, r = main_stop(t, 0, &s);
		if (r == STOP_AGAIN)
			continue;
		if (r != STOP_SIGNAL)
			return r;
		if (s == SIGTRAP && t->step_in_flight) {
			t->step_in_flight = 0; /* the end of a step perpi was interrupted in */
			continue;
		}
		if (s == SIGTRAP) {
			if (trace_get_regs(t) < 0)
				return STEP_ERROR;
			struct breakpoint *b = breakpoints_find(&t->bps, t->regs.rip - 1);
			if (b && b->armed) {
				t->regs.rip--;
				ptrace(PTRACE_SETREGS, t->pid, 0, &t->regs);
				breakpoints_disarm(&t->bps, t->pid);
				if (t->have_resolve && t->regs.rip == t->resolve_addr) {
					t->have_resolve = 0;
					if (!is_start(t, t->resolve_addr))
						breakpoints_remove(&t->bps, t->resolve_addr);
					if (region_resolve_libs(t, 0) < 0)
						return STEP_ERROR;
				} else if (t->debug_state && t->regs.rip == t->debug_state &&
					   t->n_lib_functions) {
					if (region_resolve_libs(t, 0) < 0) /* after a dlopen */
						return STEP_ERROR;
				}
				if (is_start(t, t->regs.rip) && !t->done_tracing)
					return STEP_DONE;
				if (t->done_tracing)
					continue; /* on without breakpoints */
				/* step over the instruction under it, then re-arm */
				int r = trace_step(t);
				if (r != STEP_DONE && r != STEP_HANDLER)
					return r;
				if (breakpoints_arm(&t->bps, t->pid) < 0)
					return STEP_ERROR;
				continue;
			}
		}
		sig = s;
	}
}

static void install_signals(struct tracer *t)
{
	struct sigaction sa;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_stop_signal; /* no SA_RESTART: waitpid returns EINTR */
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGALRM, &sa, NULL);
	if (t->opt.duration > 0) {
		struct itimerval it = {{0, 0}, {0, 0}};
		it.it_value.tv_sec = (time_t)t->opt.duration;
		it.it_value.tv_usec =
		    (suseconds_t)((t->opt.duration - (double)it.it_value.tv_sec) * 1e6);
		setitimer(ITIMER_REAL, &it, NULL);
	}
}

int tracer_run(struct tracer *t, struct trace_result *res)
{
	install_signals(t);
	int r = STEP_DONE;
	if (trace_get_regs(t) < 0)
		return -1;
	if (t->start_now)
		r = region_trace(t, t->regs.rsp, 0);
	while (r == STEP_DONE && !trace_stop_signal) {
		r = native_run(t);
		if (r == STEP_DONE)
			r = region_enter(t);
	}
	if ((r == STEP_DONE || r == STEP_INTERRUPTED) && t->spawned &&
	    trace_stop_signal == SIGALRM) {
		/* --duration: the program runs on, untraced, to its end */
		t->res.interrupted = 1;
		t->done_tracing = 1;
		trace_stop_signal = 0;
		if (!t->main_running)
			breakpoints_disarm(&t->bps, t->pid);
		do
			r = native_run(t);
		while (r == STEP_DONE);
	}
	if (r == STEP_ERROR)
		return -1;
	for (size_t i = 0; i < t->n_lib_functions; i++)
		perpi_warn("--function %s: no function of that name in %s or the libraries it "
			   "loaded: nothing traced for it",
			   t->lib_functions[i], t->path);
	tracee_finish(t, r);
	symbolizer_forget_process(t->syms);
	*res = t->res;
	return 0;
}
