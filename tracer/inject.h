/* Acting inside a stopped tracee on perpi's behalf: system calls made by
 * the tracee (mmap, mprotect, close, perf_event_open), memory written
 * through ptrace, and what /proc/PID/maps says. The tracee's registers
 * are restored after each call; nothing else of its state changes. */
#ifndef PERPI_TRACER_INJECT_H
#define PERPI_TRACER_INJECT_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* Make the stopped tracee run system call nr with args a[0..5]. gadget:
 * the address of a "syscall; int3" sequence in the tracee, or 0 to write
 * a syscall instruction over the current RIP for the time of the call
 * (its bytes are restored). A signal that arrives meanwhile is returned in
 * *pending_signal (to deliver later; may be NULL). 0 and the call's result
 * in *ret (negative errno as the kernel returns it), or -1 with
 * perpi_error() when the tracee could not be made to run it. */
int inject_syscall(pid_t pid, uint64_t gadget, long nr, const long a[6], long *ret,
		   int *pending_signal);

/* Write len bytes at addr in the tracee, whatever the protection of the
 * page (read-only text included). 0 or -1 with perpi_error(). */
int inject_write(pid_t pid, uint64_t addr, const void *buf, size_t len);

/* What /proc/PID/maps says of the program (the file path) and its stack. */
struct inject_layout {
	uint64_t low, high;	     /* all the program's mappings */
	uint64_t text_lo, text_hi;   /* its executable ones */
	uint64_t stack_lo, stack_hi; /* [stack] */
};
/* 0, or -1 with perpi_error(). */
int inject_maps(pid_t pid, const char *path, struct inject_layout *out);

/* Whether [from, to) is free in the tracee's address space. */
int inject_range_free(pid_t pid, uint64_t from, uint64_t to);

#endif
