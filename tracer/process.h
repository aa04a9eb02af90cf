/* Process control under ptrace: start or attach, pin to a CPU, read memory,
 * breakpoints, and what /proc tells about a tracee. No policy: trace.c
 * decides when to step, where to stop and what to report. */
#ifndef PERPI_TRACER_PROCESS_H
#define PERPI_TRACER_PROCESS_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* ptrace options perpi sets on every tracee: it dies with perpi, and
 * exec, new threads and children are reported. */
#define PROCESS_PTRACE_OPTIONS                                                                     \
	(PTRACE_O_EXITKILL | PTRACE_O_TRACEEXEC | PTRACE_O_TRACECLONE | PTRACE_O_TRACEFORK |       \
	 PTRACE_O_TRACEVFORK | PTRACE_O_TRACEVFORKDONE)

/* Pin the calling thread (and so the children it starts) to cpu, or to
 * the CPU it runs on when cpu < 0. Returns the CPU, or -1 with perpi_error(). */
int process_pin_cpu(int cpu);

/* fork + PTRACE_TRACEME + execv(path, argv). On return (0) the program is
 * stopped at its first instruction (the exec stop), *pid set.
 * -1 with perpi_error(). */
int process_spawn(const char *path, char *const argv[], pid_t *pid);

/* PTRACE_SEIZE a running thread (options set) and stop it. -1 with perpi_error(). */
int process_attach(pid_t pid);

/* Read len bytes at addr; returns the count read (less where the memory
 * ends), or -1. Crosses page boundaries safely. */
ssize_t process_read(pid_t pid, uint64_t addr, void *buf, size_t len);

/* Write one byte at addr through PTRACE_POKEDATA (works on read-only text);
 * *old receives the previous byte when old != NULL. 0 or -1. */
int process_poke_byte(pid_t pid, uint64_t addr, uint8_t byte, uint8_t *old);

/* The value of auxv entry type (AT_ENTRY...), 0 if absent. */
uint64_t process_auxv(pid_t pid, unsigned long type);

/* Whether signal sig has a handler in pid (SigCgt in /proc/PID/status). */
int process_signal_caught(pid_t pid, int sig);

/* Whether signal sig is pending for thread tid (SigPnd or ShdPnd). */
int process_signal_pending(pid_t tid, int sig);

/* The thread group of a thread (Tgid in /proc/PID/status), or -1. */
pid_t process_tgid(pid_t tid);

/* Breakpoints: int3 bytes written into the tracee's text. */
struct breakpoint {
	uint64_t addr;
	uint8_t orig;
	uint8_t armed;
	uint8_t known; /* orig read */
};
struct breakpoints {
	struct breakpoint *bp;
	size_t n, cap;
};

void breakpoints_init(struct breakpoints *bps);
void breakpoints_done(struct breakpoints *bps);
void breakpoints_add(struct breakpoints *bps, uint64_t addr);
struct breakpoint *breakpoints_find(struct breakpoints *bps, uint64_t addr);
void breakpoints_remove(struct breakpoints *bps, uint64_t addr); /* a disarmed one */
int breakpoints_arm(struct breakpoints *bps, pid_t pid);	 /* all, 0 or -1 */
int breakpoints_disarm(struct breakpoints *bps, pid_t pid);	 /* all, 0 or -1 */
/* Restore the original bytes of every breakpoint in another process's copy
 * of the memory (a forked child), whatever their state. */
void breakpoints_scrub(const struct breakpoints *bps, pid_t pid);

#endif
