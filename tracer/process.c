/* Process control under ptrace. */
#define _GNU_SOURCE
#include "tracer/process.h"

#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/ptrace.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common/util.h"

int process_pin_cpu(int cpu)
{
	if (cpu < 0)
		cpu = sched_getcpu();
	if (cpu < 0)
		return perpi_set_error("cannot tell the current CPU: %s", strerror(errno));
	cpu_set_t set;
	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	if (sched_setaffinity(0, sizeof(set), &set) < 0)
		return perpi_set_error("--cpu %d: %s", cpu, strerror(errno));
	return cpu;
}

int process_spawn(const char *path, char *const argv[], pid_t *pid)
{
	int errpipe[2];
	if (pipe2(errpipe, O_CLOEXEC) < 0)
		return perpi_set_error("pipe: %s", strerror(errno));
	fflush(NULL);
	pid_t child = fork();
	if (child < 0)
		return perpi_set_error("fork: %s", strerror(errno));
	if (child == 0) {
		close(errpipe[0]);
		signal(SIGINT, SIG_DFL);
		signal(SIGTERM, SIG_DFL);
		if (ptrace(PTRACE_TRACEME, 0, 0, 0) < 0) {
			int e = errno;
			(void)!write(errpipe[1], &e, sizeof(e));
			_exit(127);
		}
		execv(path, argv);
		int e = errno;
		(void)!write(errpipe[1], &e, sizeof(e));
		_exit(127);
	}
	close(errpipe[1]);
	int e = 0;
	ssize_t n = read(errpipe[0], &e, sizeof(e));
	close(errpipe[0]);
	if (n == sizeof(e)) {
		waitpid(child, NULL, 0);
		return perpi_set_error("%s: cannot run: %s", path, strerror(e));
	}
	int status;
	if (waitpid(child, &status, 0) < 0 || !WIFSTOPPED(status) || WSTOPSIG(status) != SIGTRAP) {
		kill(child, SIGKILL);
		return perpi_set_error("%s: did not stop at exec", path);
	}
	if (ptrace(PTRACE_SETOPTIONS, child, 0, PROCESS_PTRACE_OPTIONS) < 0) {
		kill(child, SIGKILL);
		return perpi_set_error("ptrace options: %s", strerror(errno));
	}
	*pid = child;
	return 0;
}

int process_attach(pid_t pid)
{
	long opts = PROCESS_PTRACE_OPTIONS & ~PTRACE_O_EXITKILL;
	if (ptrace(PTRACE_SEIZE, pid, 0, opts) < 0) {
		if (errno == EPERM)
			return perpi_set_error("-p %d: %s (another tracer, or "
					       "/proc/sys/kernel/yama/ptrace_scope forbids it)",
					       pid, strerror(errno));
		return perpi_set_error("-p %d: %s", pid, strerror(errno));
	}
	if (ptrace(PTRACE_INTERRUPT, pid, 0, 0) < 0)
		return perpi_set_error("-p %d: interrupt: %s", pid, strerror(errno));
	return 0;
}

ssize_t process_read(pid_t pid, uint64_t addr, void *buf, size_t len)
{
	/* one remote iovec per page: partial reads stop at an unmapped page */
	struct iovec local = {buf, len}, remote[4];
	int n = 0;
	uint64_t a = addr, end = addr + len;
	while (a < end && n < 4) {
		uint64_t next = (a | 4095) + 1;
		if (next > end || n == 3)
			next = end;
		remote[n++] = (struct iovec){(void *)(uintptr_t)a, next - a};
		a = next;
	}
	ssize_t got = process_vm_readv(pid, &local, 1, remote, n, 0);
	if (got >= 0 || errno != EPERM)
		return got;
	/* fall back to ptrace word reads */
	size_t done = 0;
	while (done < len) {
		errno = 0;
		long w = ptrace(PTRACE_PEEKDATA, pid, addr + done, 0);
		if (errno)
			break;
		size_t k = len - done < 8 ? len - done : 8;
		memcpy((char *)buf + done, &w, k);
		done += k;
	}
	return done ? (ssize_t)done : -1;
}

int process_poke_byte(pid_t pid, uint64_t addr, uint8_t byte, uint8_t *old)
{
	errno = 0;
	long w = ptrace(PTRACE_PEEKDATA, pid, addr, 0);
	if (errno)
		return perpi_set_error("read %#llx: %s", (unsigned long long)addr, strerror(errno));
	if (old)
		*old = (uint8_t)w;
	w = (w & ~0xffL) | byte;
	if (ptrace(PTRACE_POKEDATA, pid, addr, w) < 0)
		return perpi_set_error("write %#llx: %s", (unsigned long long)addr,
				       strerror(errno));
	return 0;
}

uint64_t process_auxv(pid_t pid, unsigned long type)
{
	char path[64];
	snprintf(path, sizeof(path), "/proc/%d/auxv", pid);
	FILE *f = fopen(path, "re");
	if (!f)
		return 0;
	uint64_t pair[2], value = 0;
	while (fread(pair, sizeof(pair), 1, f) == 1 && pair[0])
		if (pair[0] == type) {
			value = pair[1];
			break;
		}
	fclose(f);
	return value;
}

/* A hexadecimal field of /proc/PID/status, or 0. */
static unsigned long long status_field(pid_t pid, const char *field, int decimal)
{
	char path[64], line[256];
	snprintf(path, sizeof(path), "/proc/%d/status", pid);
	FILE *f = fopen(path, "re");
	if (!f)
		return 0;
	size_t flen = strlen(field);
	unsigned long long v = 0;
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, field, flen) && line[flen] == ':') {
			v = strtoull(line + flen + 1, NULL, decimal ? 10 : 16);
			break;
		}
	fclose(f);
	return v;
}

int process_signal_caught(pid_t pid, int sig)
{
	return sig > 0 && sig <= 64 && (status_field(pid, "SigCgt", 0) >> (sig - 1) & 1);
}

int process_signal_pending(pid_t tid, int sig)
{
	unsigned long long mask = status_field(tid, "SigPnd", 0) | status_field(tid, "ShdPnd", 0);
	return sig > 0 && sig <= 64 && (mask >> (sig - 1) & 1);
}

pid_t process_tgid(pid_t tid)
{
	pid_t t = (pid_t)status_field(tid, "Tgid", 1);
	return t ? t : -1;
}

void breakpoints_init(struct breakpoints *bps)
{
	memset(bps, 0, sizeof(*bps));
}

void breakpoints_done(struct breakpoints *bps)
{
	free(bps->bp);
	memset(bps, 0, sizeof(*bps));
}

struct breakpoint *breakpoints_find(struct breakpoints *bps, uint64_t addr)
{
	for (size_t i = 0; i < bps->n; i++)
		if (bps->bp[i].addr == addr)
			return &bps->bp[i];
	return NULL;
}

void breakpoints_remove(struct breakpoints *bps, uint64_t addr)
{
	struct breakpoint *b = breakpoints_find(bps, addr);
	if (b)
		*b = bps->bp[--bps->n];
}

void breakpoints_add(struct breakpoints *bps, uint64_t addr)
{
	if (breakpoints_find(bps, addr))
		return;
	if (bps->n == bps->cap) {
		bps->cap = bps->cap ? bps->cap * 2 : 8;
		bps->bp = xrealloc(bps->bp, bps->cap * sizeof(*bps->bp));
	}
	bps->bp[bps->n++] = (struct breakpoint){.addr = addr};
}

int breakpoints_arm(struct breakpoints *bps, pid_t pid)
{
	for (size_t i = 0; i < bps->n; i++) {
		struct breakpoint *b = &bps->bp[i];
		if (b->armed)
			continue;
		uint8_t old;
		if (process_poke_byte(pid, b->addr, 0xcc, &old) < 0)
			return -1;
		if (!b->known)
			b->orig = old;
		b->known = 1;
		b->armed = 1;
	}
	return 0;
}

int breakpoints_disarm(struct breakpoints *bps, pid_t pid)
{
	int rc = 0;
	for (size_t i = 0; i < bps->n; i++) {
		struct breakpoint *b = &bps->bp[i];
		if (b->armed && process_poke_byte(pid, b->addr, b->orig, NULL) < 0)
			rc = -1;
		b->armed = 0;
	}
	return rc;
}

void breakpoints_scrub(const struct breakpoints *bps, pid_t pid)
{
	for (size_t i = 0; i < bps->n; i++) {
		const struct breakpoint *b = &bps->bp[i];
		uint8_t cur;
		if (b->known && process_read(pid, b->addr, &cur, 1) == 1 && cur == 0xcc)
			process_poke_byte(pid, b->addr, b->orig, NULL);
	}
}
