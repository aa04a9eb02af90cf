/* What trace.c, tracee.c and insn_cache.c share; not for other modules. */
#ifndef PERPI_TRACER_TRACE_INTERNAL_H
#define PERPI_TRACER_TRACE_INTERNAL_H

#include <signal.h>
#include <stdint.h>
#include <sys/types.h>
#include <sys/user.h>

#include "tracer/event.h"
#include "tracer/options.h"
#include "tracer/process.h"
#include "tracer/trace.h"

/* A decoded instruction and what the step loop needs to know about it.
 * Entries never move (events point at insn). */
struct insn_entry {
	struct perpi_insn insn;
	uint8_t pushf_size; /* 2 or 8 for pushf, else 0 */
	uint8_t warned;
};

struct insn_cache {
	struct insn_entry **slots; /* open addressing by address */
	size_t mask, count;
	struct insn_entry **chunks;
	size_t n_chunks, chunk_used;
};

enum region_end { END_EXIT, END_RETURN };

/* Results of a step, a native phase or a region. */
enum {
	STEP_DONE,	  /* stepped (or reached a region): main stopped */
	STEP_HANDLER,	  /* stopped at a signal handler's entry, nothing ran */
	STEP_EXITED,	  /* the program ended */
	STEP_EXECED,	  /* the main thread called execve */
	STEP_INTERRUPTED, /* perpi got SIGINT/SIGTERM/SIGALRM */
	STEP_ERROR
};

enum { WAIT_STOPPED, WAIT_EXITED, WAIT_INTERRUPTED };

struct tracer {
	struct trace_options opt;
	perpi_event_fn sink;
	void *ctx;
	pid_t pid, tgid;
	int spawned;
	int main_running;   /* interrupted while the main thread ran */
	int step_in_flight; /* ... in a single step: its SIGTRAP is still to come */
	int pending_signal; /* to deliver to the main thread on its next resume */
	char *path;
	struct elf_image *prog;
	struct symbolizer *syms;
	struct x86_decoder *dec;
	struct insn_cache cache;
	uint32_t next_id;
	struct breakpoints bps;
	uint64_t *starts; /* run-time addresses where regions start */
	size_t n_starts;
	int start_now, start_at_entry, skip_start_call;
	int starts_are_functions; /* every start is a function's entry */
	char **lib_functions;	  /* --function names not in the program: looked up */
	size_t n_lib_functions;	  /* in its libraries once they are loaded */
	int have_resolve;	  /* a breakpoint at resolve_addr (main or the entry) */
	uint64_t resolve_addr;	  /* is where they are looked up */
	uint64_t debug_state;	  /* the loader's _dl_debug_state: dlopen, dlclose */
	int end_kind;
	int have_stop;
	uint64_t stop_addr;
	int done_tracing; /* the sink or --duration ended tracing */
	int vfork_rearm;
	pid_t *threads; /* other threads, attached, never stepped */
	size_t n_threads;
	unsigned long saved_affinity[16]; /* -p: the thread's own CPU mask, restored */
	int have_saved_affinity;
	struct user_regs_struct regs;
	uint8_t *xsave;
	struct perpi_event ev[2];
	struct trace_result res;
	struct valgrind_run *vg; /* --backend=valgrind: the run (valgrind_trace.h) */
};

extern volatile sig_atomic_t trace_stop_signal;

/* trace.c, shared with the Valgrind backend (valgrind_trace.h): the region
 * of interest from the options (plan), placed at run time once the
 * program's entry point (AT_ENTRY) is known; the --function names of the
 * libraries, looked up in the process (final: none may be left); whether
 * addr starts a region; SIGINT/SIGTERM/--duration set trace_stop_signal. */
int trace_region_plan(struct tracer *t);
int trace_region_place(struct tracer *t, uint64_t entry);
int trace_region_resolve_libs(struct tracer *t, int final);
int trace_is_start(const struct tracer *t, uint64_t addr);
void trace_install_signals(struct tracer *t);

int trace_get_regs(struct tracer *t);
int trace_step(struct tracer *t);

void insn_cache_init(struct insn_cache *c);
void insn_cache_done(struct insn_cache *c);
struct insn_entry *insn_cache_get(struct tracer *t, uint64_t addr);

/* tracee.c: waiting, other threads and children, attach, the end. */
int tracee_attach(struct tracer *t, int cpu);
int tracee_wait_main(struct tracer *t, int *status);
int tracee_main_event(struct tracer *t, int event);
int tracee_is_group_stop(struct tracer *t, int sig);
void tracee_finish(struct tracer *t, int how);

#endif
