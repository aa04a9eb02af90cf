/* System calls and memory writes in a stopped tracee. */
#define _GNU_SOURCE
#include "tracer/inject.h"

#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/uio.h>
#include <sys/user.h>
#include <sys/wait.h>

#include "common/util.h"
#include "tracer/process.h"

/* Single-step the tracee once; other signals that stop it first are kept
 * for later delivery. 0 once the step's SIGTRAP came, or -1. */
static int step_once(pid_t pid, int *pending_signal)
{
	for (;;) {
		if (ptrace(PTRACE_SINGLESTEP, pid, 0, 0) < 0)
			return perpi_set_error("single step: %s", strerror(errno));
		int status;
		pid_t w;
		while ((w = waitpid(pid, &status, __WALL)) < 0 && errno == EINTR)
			;
		if (w < 0 || !WIFSTOPPED(status))
			return perpi_set_error("the program ended during perpi's system call");
		int sig = WSTOPSIG(status);
		if (sig == SIGTRAP && !(status >> 16))
			return 0;
		if (status >> 16)
			continue; /* a ptrace event stop: the step is still to do */
		if (pending_signal && !*pending_signal)
			*pending_signal = sig;
	}
}

int inject_syscall(pid_t pid, uint64_t gadget, long nr, const long a[6], long *ret,
		   int *pending_signal)
{
	struct user_regs_struct saved, r;
	if (ptrace(PTRACE_GETREGS, pid, 0, &saved) < 0)
		return perpi_set_error("reading registers: %s", strerror(errno));
	uint64_t at = gadget ? gadget : saved.rip;
	long word = 0;
	if (!gadget) {
		errno = 0;
		word = ptrace(PTRACE_PEEKTEXT, pid, at, 0);
		if (errno)
			return perpi_set_error("reading %#" PRIx64 ": %s", at, strerror(errno));
		long sys = (word & ~0xffffL) | 0x050f; /* syscall */
		if (ptrace(PTRACE_POKETEXT, pid, at, sys) < 0)
			return perpi_set_error("writing %#" PRIx64 ": %s", at, strerror(errno));
	}
	r = saved;
	r.rip = at;
	r.rax = nr;
	r.orig_rax = -1; /* no system call restart on the way */
	r.rdi = a[0], r.rsi = a[1], r.rdx = a[2], r.r10 = a[3], r.r8 = a[4], r.r9 = a[5];
	int rc = ptrace(PTRACE_SETREGS, pid, 0, &r) < 0
		     ? perpi_set_error("writing registers: %s", strerror(errno))
		     : step_once(pid, pending_signal);
	if (rc == 0 && ptrace(PTRACE_GETREGS, pid, 0, &r) < 0)
		rc = perpi_set_error("reading registers: %s", strerror(errno));
	if (rc == 0)
		*ret = (long)r.rax;
	if (!gadget)
		ptrace(PTRACE_POKETEXT, pid, at, word);
	ptrace(PTRACE_SETREGS, pid, 0, &saved);
	return rc;
}

int inject_write(pid_t pid, uint64_t addr, const void *buf, size_t len)
{
	struct iovec local = {(void *)buf, len}, remote = {(void *)(uintptr_t)addr, len};
	if (process_vm_writev(pid, &local, 1, &remote, 1, 0) == (ssize_t)len)
		return 0;
	/* read-only pages: word by word through ptrace */
	const uint8_t *b = buf;
	for (size_t done = 0; done < len;) {
		uint64_t a = (addr + done) & ~7ull;
		size_t skip = (addr + done) - a, k = 8 - skip < len - done ? 8 - skip : len - done;
		errno = 0;
		long w = ptrace(PTRACE_PEEKDATA, pid, a, 0);
		if (errno)
			return perpi_set_error("reading %#" PRIx64 ": %s", a, strerror(errno));
		memcpy((uint8_t *)&w + skip, b + done, k);
		if (ptrace(PTRACE_POKEDATA, pid, a, w) < 0)
			return perpi_set_error("writing %#" PRIx64 ": %s", a, strerror(errno));
		done += k;
	}
	return 0;
}

struct map_line {
	uint64_t start, end;
	char perms[8];
	unsigned major, minor;
	uint64_t inode;
	char name[256];
};

static int map_parse(const char *line, struct map_line *m)
{
	m->name[0] = 0;
	int n = sscanf(line, "%" SCNx64 "-%" SCNx64 " %7s %*s %x:%x %" SCNu64 " %255s", &m->start,
		       &m->end, m->perms, &m->major, &m->minor, &m->inode, m->name);
	return n >= 6 ? 0 : -1;
}

int inject_maps(pid_t pid, const char *path, struct inject_layout *out)
{
	struct stat st;
	if (stat(path, &st) < 0)
		return perpi_set_error("%s: %s", path, strerror(errno));
	char name[64], line[512];
	snprintf(name, sizeof(name), "/proc/%d/maps", (int)pid);
	FILE *f = fopen(name, "re");
	if (!f)
		return perpi_set_error("%s: %s", name, strerror(errno));
	memset(out, 0, sizeof(*out));
	out->low = out->text_lo = UINT64_MAX;
	struct map_line m;
	while (fgets(line, sizeof(line), f)) {
		if (map_parse(line, &m) < 0)
			continue;
		if (m.inode == st.st_ino && m.major == major(st.st_dev) &&
		    m.minor == minor(st.st_dev)) {
			out->low = m.start < out->low ? m.start : out->low;
			out->high = m.end > out->high ? m.end : out->high;
			if (m.perms[2] == 'x') {
				out->text_lo = m.start < out->text_lo ? m.start : out->text_lo;
				out->text_hi = m.end > out->text_hi ? m.end : out->text_hi;
			}
		}
		if (!strcmp(m.name, "[stack]"))
			out->stack_lo = m.start, out->stack_hi = m.end;
	}
	fclose(f);
	if (!out->high || !out->text_hi)
		return perpi_set_error("%s: not mapped in process %d", path, (int)pid);
	if (!out->stack_hi)
		return perpi_set_error("process %d: no [stack] in %s", (int)pid, name);
	return 0;
}

int inject_range_free(pid_t pid, uint64_t from, uint64_t to)
{
	char name[64], line[512];
	snprintf(name, sizeof(name), "/proc/%d/maps", (int)pid);
	FILE *f = fopen(name, "re");
	if (!f)
		return 0;
	struct map_line m;
	int free_range = 1;
	while (free_range && fgets(line, sizeof(line), f))
		if (map_parse(line, &m) == 0 && m.start < to && from < m.end)
			free_range = 0;
	fclose(f);
	return free_range;
}
