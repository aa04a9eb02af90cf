/* A measured run from its first instruction to its end: the program runs
 * with PTRACE_CONT; perpi wakes for a full buffer, a breakpoint entry, a
 * signal, a new thread or process, and the end. Finished calls are read
 * from the shared buffer: none is lost when the program crashes or is
 * killed. */
#define _GNU_SOURCE
#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/user.h>
#include <sys/wait.h>

#include "common/util.h"
#include "tracer/inject.h"
#include "tracer/measure_layout.h"
#include "tracer/measure_run.h"
#include "tracer/process.h"

static uint64_t get64(const uint8_t *p)
{
	uint64_t v;
	memcpy(&v, p, 8);
	return v;
}

static uint32_t get32(const uint8_t *p)
{
	uint32_t v;
	memcpy(&v, p, 4);
	return v;
}

static void keep_min(uint64_t *m, uint64_t v)
{
	if (v < *m)
		*m = v;
}

static void calibration_record(struct run *u, uint32_t probe, uint64_t begin, uint64_t end)
{
	uint64_t d = (end - begin) & u->clock_mask;
	switch (probe) {
	case CAL_PROBE_FUNC:
		keep_min(&u->cal_func, d);
		break;
	case CAL_PROBE_START:
		u->cal_start = begin, u->cal_have_start = 1;
		break;
	case CAL_PROBE_STOP:
		if (u->cal_have_start)
			keep_min(&u->cal_region, (begin - u->cal_start) & u->clock_mask);
		u->cal_have_start = 0;
		break;
	case CAL_PROBE_OUTER:
		keep_min(&u->cal_outer, d);
		break;
	case CAL_PROBE_PLAIN:
		keep_min(&u->cal_plain, d);
		break;
	}
}

static void event_add(struct run *u, uint64_t clock, int stop)
{
	if (u->n_events == u->cap_events) {
		u->cap_events = u->cap_events ? 2 * u->cap_events : 64;
		u->events = xrealloc(u->events, u->cap_events * sizeof(*u->events));
	}
	u->events[u->n_events++] = (struct region_event){clock, stop};
}

static void user_record(struct run *u, const uint8_t *rec)
{
	uint32_t probe = get32(rec + RC_PROBE) - CAL_PROBES;
	if (probe >= u->s->n_probes)
		return;
	const struct probe *p = &u->s->probes[probe];
	struct measure_run *r = u->r;
	uint64_t begin = get64(rec + RC_BEGIN), end = get64(rec + RC_END);
	double v;
	if (!begin)
		return; /* a mark being written when the program was killed */
	switch (p->role) {
	case ROLE_CALLS:
		v = (double)((end - begin) & u->clock_mask) - r->overhead -
		    get32(rec + RC_NESTED) * r->nested_overhead;
		v = v > 0 ? v : 0;
		measure_series_add(&r->series[p->figure], v);
		if (get32(rec + RC_DEPTH) == 0 && u->s->region_figure < 0)
			r->whole += v;
		break;
	default:
		event_add(u, begin, p->role == ROLE_STOP);
	}
}

void run_take_records(struct run *u, int calibrating)
{
	uint64_t n = *run_field(u, MD_COUNT), cap = u->records;
	const uint8_t *rec = u->data + u->records_at;
	for (uint64_t i = 0; i < (n < cap ? n : cap); i++, rec += RC_SIZE) {
		uint32_t probe = get32(rec + RC_PROBE);
		if (probe < CAL_PROBES && calibrating)
			calibration_record(u, probe, get64(rec + RC_BEGIN), get64(rec + RC_END));
		else if (probe >= CAL_PROBES && !calibrating)
			user_record(u, rec);
	}
	*run_field(u, MD_COUNT) = 0;
}

int run_calibration_done(struct run *u)
{
	struct measure_run *r = u->r;
	if (u->cal_func == UINT64_MAX || u->cal_region == UINT64_MAX ||
	    u->cal_outer == UINT64_MAX || u->cal_plain == UINT64_MAX)
		return perpi_set_error("the timing stubs' calibration timed nothing");
	/* the chain's own cycles, in the clock's units */
	double chain = CAL_CHAIN * (r->clock == MEASURE_CLOCK_CYCLES ? 1 : u->ticks_per_cycle);
	r->overhead = fmax(0, (double)u->cal_func - chain);
	r->region_overhead = fmax(0, (double)u->cal_region - chain);
	r->nested_overhead =
	    u->cal_outer > u->cal_plain ? (double)(u->cal_outer - u->cal_plain) : 0;
	return 0;
}

static struct run_child *child_get(struct run *u, pid_t pid)
{
	for (size_t i = 0; i < u->n_children; i++)
		if (u->children[i].pid == pid)
			return &u->children[i];
	u->children = xrealloc(u->children, (u->n_children + 1) * sizeof(*u->children));
	u->children[u->n_children] = (struct run_child){pid, 0, 0};
	return &u->children[u->n_children++];
}

/* A forked copy of the program: its entries restored and its data area
 * made private (the shadow stack kept, so calls in flight still return),
 * so that nothing it does reaches perpi's figures. */
static void child_disarm(struct run *u, pid_t pid)
{
	for (size_t i = 0; i < u->s->n_probes; i++)
		inject_write(pid, u->entries[i], u->patches[i].orig, u->patches[i].len);
	for (size_t i = 0; i < u->n_sites; i++)
		inject_write(pid, u->sites[i].at, u->sites[i].orig, 4);
	long got;
	const long a[6] = {(long)u->data_addr,
			   (long)u->data_size,
			   PROT_READ | PROT_WRITE,
			   MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED,
			   -1,
			   0};
	if (inject_syscall(pid, u->gadget, SYS_mmap, a, &got, NULL) < 0 ||
	    (uint64_t)got != u->data_addr)
		return;
	uint64_t top = *run_field(u, MD_TOP);
	size_t len = MD_HEADER + (top < u->shadow ? top : u->shadow) * SH_SIZE;
	uint8_t *copy = xmalloc(len);
	memcpy(copy, u->data, len);
	const uint64_t one = 1, zero = 0;
	memcpy(copy + MD_DISABLED, &one, 8);
	memcpy(copy + MD_COUNT, &zero, 8);
	inject_write(pid, u->data_addr, copy, len);
	free(copy);
}

/* Let a child process go once both its first stop and how it was made
 * are known. */
static void child_settle(struct run *u, struct run_child *c)
{
	if (!c->kind || !c->stopped)
		return;
	if (c->kind == 'f')
		child_disarm(u, c->pid);
	ptrace(PTRACE_DETACH, c->pid, 0, 0);
	*c = u->children[--u->n_children];
}

static int thread_known(const struct run *u, pid_t tid)
{
	for (size_t i = 0; i < u->n_threads; i++)
		if (u->threads[i] == tid)
			return 1;
	return 0;
}

static void thread_forget(struct run *u, pid_t tid)
{
	for (size_t i = 0; i < u->n_threads; i++)
		if (u->threads[i] == tid)
			u->threads[i] = u->threads[--u->n_threads];
}

/* fork, vfork, clone of tid: a thread of ours, or a child process. */
static void new_task(struct run *u, pid_t tid, int event)
{
	unsigned long msg = 0;
	ptrace(PTRACE_GETEVENTMSG, tid, 0, &msg);
	pid_t child = (pid_t)msg;
	if (child <= 0)
		return;
	if (event == PTRACE_EVENT_CLONE && process_tgid(child) == u->pid) {
		if (!thread_known(u, child)) {
			u->threads = xrealloc(u->threads, (u->n_threads + 1) * sizeof(*u->threads));
			u->threads[u->n_threads++] = child;
		}
		return;
	}
	struct run_child *c = child_get(u, child);
	c->kind = event == PTRACE_EVENT_FORK ? 'f' : 'v';
	if (c->kind == 'f' && !c->stopped) { /* disarm it before the parent runs on */
		int status;
		while (waitpid(child, &status, __WALL) < 0 && errno == EINTR)
			;
		c->stopped = WIFSTOPPED(status);
		if (!c->stopped) {
			*c = u->children[--u->n_children];
			return;
		}
	}
	child_settle(u, c);
}

/* A SIGTRAP perpi caused: 1 if handled (the tracee may go on). */
static int own_trap(struct run *u, pid_t tid)
{
	struct user_regs_struct regs;
	if (ptrace(PTRACE_GETREGS, tid, 0, &regs) < 0)
		return 0;
	if (tid == u->pid && regs.rip == code_buffer_full(&u->code)) {
		run_take_records(u, 0);
		return 1;
	}
	for (size_t i = 0; i < u->s->n_probes; i++)
		if (u->patches[i].kind == ENTRY_BREAKPOINT && regs.rip - 1 == u->entries[i]) {
			regs.rip = u->patches[i].stub;
			ptrace(PTRACE_SETREGS, tid, 0, &regs);
			return 1;
		}
	return 0;
}

static int is_group_stop(pid_t tid, int sig)
{
	if (sig != SIGSTOP && sig != SIGTSTP && sig != SIGTTIN && sig != SIGTTOU)
		return 0;
	siginfo_t si;
	return ptrace(PTRACE_GETSIGINFO, tid, 0, &si) < 0 && errno == EINVAL;
}

static void note_signal(struct run *u, pid_t tid, int sig)
{
	struct user_regs_struct regs;
	if (sig == SIGILL && ptrace(PTRACE_GETREGS, tid, 0, &regs) == 0 &&
	    regs.rip == code_lost_return(&u->code))
		snprintf(u->r->problem, sizeof(u->r->problem),
			 "the timing stubs lost the return of a timed call (a longjmp into "
			 "one, or a thread switching stacks?)");
}

/* The program's main thread ended (status from waitpid). */
static void main_ended(struct run *u, int status)
{
	struct measure_run *r = u->r;
	r->exited = 1;
	if (WIFEXITED(status)) {
		r->exit_code = WEXITSTATUS(status);
	} else {
		r->term_signal = WTERMSIG(status);
		if (!r->problem[0])
			snprintf(r->problem, sizeof(r->problem), "killed by signal %d (SIG%s)",
				 r->term_signal,
				 sigabbrev_np(r->term_signal) ? sigabbrev_np(r->term_signal) : "?");
	}
}

/* A stop of tid; returns the signal to deliver when resuming it, or -1
 * to leave it stopped (a child waiting for its parent's event). */
static int on_stop(struct run *u, pid_t tid, int status)
{
	int sig = WSTOPSIG(status), event = status >> 16;
	if (tid != u->pid && !thread_known(u, tid)) {
		if (process_tgid(tid) == u->pid) { /* a new thread, before its clone event */
			u->threads = xrealloc(u->threads, (u->n_threads + 1) * sizeof(*u->threads));
			u->threads[u->n_threads++] = tid;
			return 0;
		}
		struct run_child *c = child_get(u, tid);
		c->stopped = 1;
		child_settle(u, c);
		return -1;
	}
	if (event == PTRACE_EVENT_FORK || event == PTRACE_EVENT_VFORK ||
	    event == PTRACE_EVENT_CLONE)
		new_task(u, tid, event);
	if (event)
		return 0;
	if (sig == SIGTRAP && own_trap(u, tid))
		return 0;
	if (is_group_stop(tid, sig))
		return 0;
	note_signal(u, tid, sig);
	return sig;
}

void run_kill(struct run *u)
{
	kill(u->pid, SIGKILL);
	int status;
	for (;;) {
		pid_t w = waitpid(-1, &status, __WALL);
		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0 || (w == u->pid && (WIFEXITED(status) || WIFSIGNALED(status))))
			break;
	}
}

/* The main thread called execve: the new program runs on, untimed. */
static void main_execed(struct run *u)
{
	u->r->execed = 1;
	snprintf(u->r->problem, sizeof(u->r->problem),
		 "the program called execve: what it runs next is not timed");
	ptrace(PTRACE_DETACH, u->pid, 0, 0);
	int status;
	for (;;) {
		pid_t w = waitpid(u->pid, &status, __WALL);
		if (w < 0 && errno == EINTR && measure_stop_signal) {
			kill(u->pid, SIGKILL);
			u->r->interrupted = 1;
			continue;
		}
		if (w < 0 && errno == EINTR)
			continue;
		if (w == u->pid && (WIFEXITED(status) || WIFSIGNALED(status)))
			main_ended(u, status);
		if (w < 0 || WIFEXITED(status) || WIFSIGNALED(status))
			return;
	}
}

int run_loop(struct run *u)
{
	int sig = u->pending_signal;
	u->pending_signal = 0;
	ptrace(PTRACE_CONT, u->pid, 0, sig);
	for (;;) {
		int status;
		pid_t w = waitpid(-1, &status, __WALL);
		if (w < 0 && errno == EINTR) {
			if (measure_stop_signal) {
				u->r->interrupted = 1;
				run_kill(u);
				return 0;
			}
			continue;
		}
		if (w < 0) /* ECHILD: nothing left */
			return u->r->exited ? 0 : perpi_set_error("lost track of the program");
		if (WIFEXITED(status) || WIFSIGNALED(status)) {
			if (w == u->pid) {
				main_ended(u, status);
				return 0;
			}
			thread_forget(u, w);
			continue;
		}
		if (w == u->pid && status >> 16 == PTRACE_EVENT_EXEC) {
			main_execed(u);
			return 0;
		}
		if (measure_stop_signal) {
			u->r->interrupted = 1;
			run_kill(u);
			return 0;
		}
		int deliver = on_stop(u, w, status);
		if (deliver >= 0)
			ptrace(PTRACE_CONT, w, 0, deliver);
	}
}

void run_collect(struct run *u)
{
	struct measure_run *r = u->r;
	run_take_records(u, 0);
	uint64_t top = *run_field(u, MD_TOP);
	for (uint64_t i = 0; i < (top < u->shadow ? top : u->shadow); i++) {
		const uint8_t *e = u->data + MD_HEADER + i * SH_SIZE;
		uint32_t probe = get32(e + SH_PROBE) - CAL_PROBES;
		if (probe >= u->s->n_probes)
			continue;
		const struct probe *p = &u->s->probes[probe];
		if (p->role == ROLE_CALLS)
			r->series[p->figure].unfinished++;
	}
	r->lost = *run_field(u, MD_LOST);
	r->abandoned = *run_field(u, MD_STALE);
	if (u->s->region_figure >= 0 && u->n_events)
		measure_pair_regions(u->events, u->n_events, r->region_overhead,
				     &r->series[u->s->region_figure]);
}
