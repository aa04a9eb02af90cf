/* The tracee's other side: waiting for the main thread while other threads
 * and new children report too, attach and detach, and how a run ends.
 * Other threads stay attached but are never stepped; children are cleaned
 * of breakpoints and the trap flag, then detached. */
#define _GNU_SOURCE
#include <errno.h>
#include <sched.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common/util.h"
#include "tracer/process.h"
#include "tracer/trace_internal.h"

#define EFLAGS_TF 0x100

static int thread_index(const struct tracer *t, pid_t tid)
{
	for (size_t i = 0; i < t->n_threads; i++)
		if (t->threads[i] == tid)
			return (int)i;
	return -1;
}

static void thread_remove(struct tracer *t, pid_t tid)
{
	int i = thread_index(t, tid);
	if (i >= 0)
		t->threads[i] = t->threads[--t->n_threads];
}

/* A new tracee's first stop: a thread of ours runs on untraced; a child
 * process is cleaned and let go. */
static void tracee_new(struct tracer *t, pid_t tid)
{
	if (process_tgid(tid) == t->tgid) {
		t->threads = xrealloc(t->threads, (t->n_threads + 1) * sizeof(*t->threads));
		t->threads[t->n_threads++] = tid;
		ptrace(PTRACE_CONT, tid, 0, 0);
		return;
	}
	breakpoints_scrub(&t->bps, tid);
	struct user_regs_struct regs;
	if (ptrace(PTRACE_GETREGS, tid, 0, &regs) == 0 && (regs.eflags & EFLAGS_TF)) {
		regs.eflags &= ~EFLAGS_TF;
		ptrace(PTRACE_SETREGS, tid, 0, &regs);
	}
	ptrace(PTRACE_DETACH, tid, 0, 0);
}

/* Another thread hit a breakpoint meant for the main thread: step it over. */
static void thread_step_over(struct tracer *t, pid_t tid, struct breakpoint *b,
			     struct user_regs_struct *regs)
{
	regs->rip = b->addr;
	ptrace(PTRACE_SETREGS, tid, 0, regs);
	process_poke_byte(tid, b->addr, b->orig, NULL);
	ptrace(PTRACE_SINGLESTEP, tid, 0, 0);
	int status;
	while (waitpid(tid, &status, __WALL) < 0 && errno == EINTR)
		;
	if (WIFSTOPPED(status))
		process_poke_byte(tid, b->addr, 0xcc, NULL);
	else
		thread_remove(t, tid);
}

static void thread_event(struct tracer *t, pid_t tid, int status)
{
	if (WIFEXITED(status) || WIFSIGNALED(status)) {
		thread_remove(t, tid);
		return;
	}
	if (thread_index(t, tid) < 0) {
		tracee_new(t, tid);
		return;
	}
	int sig = WSTOPSIG(status);
	if (status >> 16) {
		ptrace(PTRACE_CONT, tid, 0, 0);
		return;
	}
	siginfo_t si;
	if (ptrace(PTRACE_GETSIGINFO, tid, 0, &si) < 0) {
		ptrace(PTRACE_CONT, tid, 0, 0); /* group-stop: resume */
		return;
	}
	struct user_regs_struct regs;
	struct breakpoint *b;
	if (sig == SIGTRAP && si.si_code == SI_KERNEL &&
	    ptrace(PTRACE_GETREGS, tid, 0, &regs) == 0 &&
	    (b = breakpoints_find(&t->bps, regs.rip - 1))) {
		if (b->armed) {
			thread_step_over(t, tid, b, &regs);
		} else { /* removed since it was hit: run the original instruction */
			regs.rip = b->addr;
			ptrace(PTRACE_SETREGS, tid, 0, &regs);
		}
		sig = 0;
	}
	ptrace(PTRACE_CONT, tid, 0, sig);
}

static void main_ended(struct tracer *t, int status)
{
	t->res.exited = 1;
	if (WIFEXITED(status)) {
		t->res.exit_code = WEXITSTATUS(status);
		t->res.status = t->res.exit_code;
	} else {
		t->res.term_signal = WTERMSIG(status);
		t->res.status = 128 + t->res.term_signal;
	}
}

int tracee_wait_main(struct tracer *t, int *status)
{
	for (;;) {
		pid_t w = waitpid(-1, status, __WALL);
		if (w < 0) {
			if (errno == EINTR && trace_stop_signal) {
				t->main_running = 1;
				return WAIT_INTERRUPTED;
			}
			if (errno == EINTR)
				continue;
			/* ECHILD: nothing left to wait for */
			t->res.exited = 1;
			return WAIT_EXITED;
		}
		if (w != t->pid) {
			thread_event(t, w, *status);
			continue;
		}
		if (WIFEXITED(*status) || WIFSIGNALED(*status)) {
			main_ended(t, *status);
			return WAIT_EXITED;
		}
		t->main_running = 0;
		return WAIT_STOPPED;
	}
}

int tracee_main_event(struct tracer *t, int event)
{
	switch (event) {
	case PTRACE_EVENT_EXEC:
		t->res.execed = 1;
		return STEP_EXECED;
	case PTRACE_EVENT_VFORK:
		/* the child shares our memory until it execs or exits */
		for (size_t i = 0; i < t->bps.n; i++)
			t->vfork_rearm |= t->bps.bp[i].armed;
		breakpoints_disarm(&t->bps, t->pid);
		break;
	case PTRACE_EVENT_VFORK_DONE:
		if (t->vfork_rearm && !t->done_tracing)
			breakpoints_arm(&t->bps, t->pid);
		t->vfork_rearm = 0;
		break;
	}
	return STEP_DONE;
}

int tracee_is_group_stop(struct tracer *t, int sig)
{
	if (sig != SIGSTOP && sig != SIGTSTP && sig != SIGTTIN && sig != SIGTTOU)
		return 0;
	siginfo_t si;
	return ptrace(PTRACE_GETSIGINFO, t->pid, 0, &si) < 0 && errno == EINVAL;
}

int tracee_attach(struct tracer *t, int cpu)
{
	cpu_set_t set;
	if (sched_getaffinity(t->pid, sizeof(set), &set) == 0) {
		memcpy(t->saved_affinity, &set,
		       sizeof(t->saved_affinity) < sizeof(set) ? sizeof(t->saved_affinity)
							       : sizeof(set));
		t->have_saved_affinity = 1;
	}
	if (process_attach(t->pid) < 0)
		return -1;
	int status;
	for (;;) {
		if (waitpid(t->pid, &status, __WALL) < 0) {
			if (errno == EINTR)
				continue;
			return perpi_set_error("-p %d: %s", t->pid, strerror(errno));
		}
		if (!WIFSTOPPED(status))
			return perpi_set_error("-p %d: the process ended", t->pid);
		if (status >> 16 == PTRACE_EVENT_STOP)
			break;
		/* a signal arrived first: deliver it, wait for the interrupt */
		ptrace(PTRACE_CONT, t->pid, 0, WSTOPSIG(status));
	}
	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	sched_setaffinity(t->pid, sizeof(set), &set);
	return 0;
}

/* Stop a seized thread that runs; 0 once stopped (its signal kept). */
static int tracee_interrupt(struct tracer *t, pid_t tid, int *sig)
{
	*sig = 0;
	if (ptrace(PTRACE_INTERRUPT, tid, 0, 0) < 0)
		return -1;
	for (;;) {
		int status;
		pid_t w = waitpid(tid, &status, __WALL);
		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0 || !WIFSTOPPED(status)) {
			if (tid == t->pid && w > 0)
				main_ended(t, status);
			return -1;
		}
		if (tid == t->pid && t->step_in_flight && WSTOPSIG(status) == SIGTRAP &&
		    !(status >> 16)) {
			t->step_in_flight = 0; /* the step ended: stopped, nothing to deliver */
			return 0;
		}
		if (tid == t->pid && t->step_in_flight && (status >> 16) == PTRACE_EVENT_STOP &&
		    process_signal_pending(tid, SIGTRAP)) {
			/* the step's SIGTRAP is queued behind the interrupt: let the
			 * thread dequeue it (no instruction runs) and drop it */
			ptrace(PTRACE_CONT, tid, 0, 0);
			continue;
		}
		if (status >> 16 == PTRACE_EVENT_STOP)
			return 0;
		if (!(status >> 16))
			*sig = WSTOPSIG(status);
		if (*sig)
			return 0;
		ptrace(PTRACE_CONT, tid, 0, 0);
	}
}

/* -p: leave the process as it was found, running, breakpoints gone. */
static void tracee_detach(struct tracer *t)
{
	int sig = t->pending_signal;
	if (t->main_running && tracee_interrupt(t, t->pid, &sig) < 0)
		return;
	breakpoints_disarm(&t->bps, t->pid);
	for (size_t i = 0; i < t->n_threads; i++) {
		int tsig;
		if (tracee_interrupt(t, t->threads[i], &tsig) == 0)
			ptrace(PTRACE_DETACH, t->threads[i], 0, tsig);
	}
	t->n_threads = 0;
	if (t->have_saved_affinity)
		sched_setaffinity(t->pid, sizeof(t->saved_affinity), (void *)t->saved_affinity);
	ptrace(PTRACE_DETACH, t->pid, 0, sig);
}

/* Wait for the end of a child perpi started and let go of. */
static void wait_released(struct tracer *t)
{
	int status;
	for (;;) {
		pid_t w = waitpid(t->pid, &status, 0);
		if (w < 0 && errno == EINTR) {
			if (trace_stop_signal == SIGINT || trace_stop_signal == SIGTERM)
				kill(t->pid, SIGKILL);
			continue;
		}
		if (w == t->pid)
			main_ended(t, status);
		return;
	}
}

/* Kill what perpi started and reap every tracee. */
static void tracee_kill(struct tracer *t)
{
	kill(t->pid, SIGKILL);
	int status;
	for (;;) {
		pid_t w = waitpid(-1, &status, __WALL);
		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0)
			break;
		if (w == t->pid && (WIFEXITED(status) || WIFSIGNALED(status)))
			break;
	}
	t->res.exited = 1;
	t->res.status = 128 + trace_stop_signal;
}

/* The run is over for the tracer (how: a STEP_* result); settle the tracee. */
void tracee_finish(struct tracer *t, int how)
{
	if (how == STEP_EXITED)
		return;
	if (how == STEP_EXECED) {
		/* the new program runs on untraced; its status becomes ours */
		ptrace(PTRACE_DETACH, t->pid, 0, 0);
		if (t->spawned)
			wait_released(t);
		return;
	}
	t->res.interrupted = 1;
	if (!t->spawned) {
		tracee_detach(t);
		return;
	}
	tracee_kill(t);
}
