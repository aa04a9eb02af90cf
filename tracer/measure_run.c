/* One native run under perpi measure: start the program stopped at its
 * first instruction, give it the code page and the shared data area, take
 * over the timed functions' entries, time the stubs themselves, then let
 * it run. perpi stops the program only for a full buffer, a breakpoint
 * entry, a signal or a fork; every stop falls outside a timed window. */
#define _GNU_SOURCE
#include <elf.h>
#include <errno.h>
#include <inttypes.h>
#include <linux/perf_event.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/user.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common/util.h"
#include "tracer/elf.h"
#include "tracer/inject.h"
#include "tracer/measure_code.h"
#include "tracer/measure_internal.h"
#include "tracer/measure_layout.h"
#include "tracer/measure_run.h"
#include "tracer/process.h"
#include "tracer/x86.h"

#define SHADOW_ENTRIES 65536
#define RECORDS (1u << 20)
#define DATA_SIZE ((size_t)MD_HEADER + SHADOW_ENTRIES * SH_SIZE + (size_t)RECORDS * RC_SIZE)
#define STACK_SPAN (64ull << 20) /* the main thread's stack: 64 MiB below its top */
#define REACH (2000ull << 20)	 /* what a rel32 reaches, with a margin */
#define CAL_TURNS 1000
#define COUNTER_ATTR 2048 /* where the perf_event_attr goes in the data area */

volatile sig_atomic_t measure_stop_signal;

uint64_t *run_field(struct run *u, unsigned off)
{
	return (uint64_t *)(u->data + off);
}

/* Link-time address -> run-time. */
static uint64_t run_addr(const struct run *u, uint64_t link)
{
	return link + u->bias;
}

static int run_load_bias(struct run *u)
{
	uint64_t entry = process_auxv(u->pid, AT_ENTRY);
	if (!entry)
		return perpi_set_error("cannot read the entry point of process %d", (int)u->pid);
	u->bias = elf_image_is_pie(u->s->prog) ? entry - elf_image_entry(u->s->prog) : 0;
	return 0;
}

static int syscall6(struct run *u, pid_t pid, long nr, long a0, long a1, long a2, long a3, long a4,
		    long a5, long *ret)
{
	const long a[6] = {a0, a1, a2, a3, a4, a5};
	if (inject_syscall(pid, u->gadget, nr, a, ret, &u->pending_signal) < 0)
		return -1;
	return 0;
}

/* The code page, within a rel32 of every timed function. */
static int map_code(struct run *u, size_t size, uint64_t low, uint64_t high)
{
	const uint64_t mb = 1ull << 20;
	uint64_t cand[] = {low > size + 2 * mb ? (low - size - mb) & ~0xfffull : 0,
			   (high + 16 * mb) & ~0xfffull, low > 512 * mb ? low - 256 * mb : 0,
			   (high + 256 * mb) & ~0xfffull};
	for (size_t i = 0; i < sizeof(cand) / sizeof(cand[0]); i++) {
		uint64_t c = cand[i];
		int ok = c >= 0x10000 && c + size + REACH > high && c < low + REACH;
		if (!ok || !inject_range_free(u->pid, c, c + size))
			continue;
		long got;
		if (syscall6(u, u->pid, SYS_mmap, (long)c, (long)size, PROT_READ | PROT_WRITE,
			     MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0, &got) < 0)
			return -1;
		if ((uint64_t)got == c) {
			u->code_addr = c;
			u->code_size = size;
			return 0;
		}
		if (got > -4096 && got < 0)
			continue;
		syscall6(u, u->pid, SYS_munmap, got, (long)size, 0, 0, 0, 0, &got);
	}
	return perpi_set_error("no room for the timing stubs within 2 GiB of the program's code");
}

/* The data area: perpi's memfd, mapped in the program too. */
static int map_data(struct run *u)
{
	long got;
	if (syscall6(u, u->pid, SYS_mmap, 0, (long)DATA_SIZE, PROT_READ | PROT_WRITE, MAP_SHARED,
		     u->memfd, 0, &got) < 0)
		return -1;
	if (got > -4096 && got < 0)
		return perpi_set_error("mapping the measurement buffer in the program: %s",
				       strerror((int)-got));
	u->data_addr = (uint64_t)got;
	return syscall6(u, u->pid, SYS_close, u->memfd, 0, 0, 0, 0, 0, &got);
}

/* The cycle counter, opened by the program itself so that it may read it
 * with rdpmc; 0 and *index, or -1 (the TSC is used). */
static int counter_open(struct run *u, uint32_t *index)
{
	struct perf_event_attr attr;
	memset(&attr, 0, sizeof(attr));
	attr.size = sizeof(attr);
	attr.type = PERF_TYPE_HARDWARE;
	attr.config = PERF_COUNT_HW_CPU_CYCLES; /* what PAPI_TOT_CYC counts */
	attr.exclude_kernel = 1;
	attr.exclude_hv = 1;
	memcpy(u->data + COUNTER_ATTR, &attr, sizeof(attr));
	long fd, page;
	if (syscall6(u, u->pid, SYS_perf_event_open, (long)(u->data_addr + COUNTER_ATTR), 0, -1, -1,
		     0, 0, &fd) < 0 ||
	    fd < 0)
		return -1;
	int rc = syscall6(u, u->pid, SYS_mmap, 0, 4096, PROT_READ, MAP_SHARED, fd, 0, &page);
	long ignored;
	syscall6(u, u->pid, SYS_close, fd, 0, 0, 0, 0, 0, &ignored);
	struct perf_event_mmap_page pg;
	if (rc < 0 || (page > -4096 && page < 0) ||
	    process_read(u->pid, (uint64_t)page, &pg, sizeof(pg)) != sizeof(pg))
		return -1;
	if (!pg.cap_user_rdpmc || !pg.index)
		return -1;
	*index = pg.index - 1;
	u->clock_mask = pg.pmc_width >= 64 ? UINT64_MAX : (1ull << pg.pmc_width) - 1;
	return 0;
}

/* [from, to) of the program: padding nothing else starts in. */
static int padding_ok(void *ctx, uint64_t from, uint64_t to)
{
	struct run *u = ctx;
	uint8_t b[32];
	if (to - from > sizeof(b) ||
	    process_read(u->pid, from, b, to - from) != (ssize_t)(to - from))
		return 0;
	const struct elf_symbol *own = elf_image_find(u->s->prog, from - u->bias - 1);
	for (uint64_t a = from; a < to; a++) {
		const struct elf_symbol *sym = elf_image_find(u->s->prog, a - u->bias);
		if (sym && sym != own)
			return 0;
	}
	for (size_t off = 0; off < to - from;) {
		struct perpi_insn in;
		if (b[off] == 0 || b[off] == 0xcc) {
			off++;
			continue;
		}
		if (x86_decode(u->s->dec, from + off, b + off, to - from - off, &in) < 0 ||
		    (!strstr(in.text, "nop") && strcmp(in.text, "xchg ax, ax")))
			return 0;
		off += in.len;
	}
	return 1;
}

/* The direct calls of the function at link-time address link, swept
 * once over the program's functions (the ends of the calls, link-time). */
static void find_sites(struct run *u, struct probe *p)
{
	const struct inject_layout *l = &u->layout;
	size_t len = l->text_hi - l->text_lo, cap = 16;
	uint8_t *text = xmalloc(len);
	ssize_t got = process_read(u->pid, l->text_lo, text, len);
	p->sites = xmalloc(cap * sizeof(*p->sites));
	for (uint64_t a = l->text_lo; got > 0 && a < l->text_lo + (size_t)got;) {
		const struct elf_symbol *f = elf_image_find(u->s->prog, a - u->bias);
		uint64_t start = f ? f->value + u->bias : 0, end = f ? start + f->size : 0;
		if (!f || !f->size || start != a || end > l->text_lo + (size_t)got) {
			a = f && end > a ? end : a + 1;
			continue;
		}
		size_t n;
		while ((n = code_call_sites(u->s->dec, a, text + (a - l->text_lo), f->size,
					    p->link + u->bias, p->sites + p->n_sites,
					    cap - p->n_sites)) > cap - p->n_sites) {
			cap = 2 * cap + n;
			p->sites = xrealloc(p->sites, cap * sizeof(*p->sites));
		}
		for (size_t k = 0; k < n; k++)
			p->sites[p->n_sites + k] -= u->bias;
		p->n_sites += n;
		a = end;
	}
	p->sites_known = 1;
	free(text);
}

/* Its direct calls go to the stub instead (p->stub known). */
static int redirect_sites(struct run *u, const struct probe *p, const struct code_patch *cp)
{
	u->sites = xrealloc(u->sites, (u->n_sites + p->n_sites) * sizeof(*u->sites));
	for (size_t k = 0; k < p->n_sites; k++) {
		uint64_t end = p->sites[k] + u->bias;
		int32_t rel = (int32_t)(cp->stub - end);
		struct run_site *site = &u->sites[u->n_sites];
		site->at = end - 4;
		if (process_read(u->pid, site->at, site->orig, 4) != 4 ||
		    inject_write(u->pid, site->at, &rel, 4) < 0)
			return perpi_set_error("%s: cannot redirect its call at %#llx", p->name,
					       (unsigned long long)site->at);
		u->n_sites++;
	}
	return 0;
}

/* How probe p's entry is taken over; 0 or -1 with perpi_error(). A
 * region's end is never a breakpoint (it would stop the program inside
 * the region): where no jump fits, its direct calls are redirected. */
static int plan_probe(struct run *u, struct probe *p, const struct code_function *f,
		      struct code_patch *cp)
{
	struct measure_session *s = u->s;
	int want = s->opt.method == MEASURE_BREAKPOINT && p->role != ROLE_STOP ? ENTRY_BREAKPOINT
									       : ENTRY_JUMP;
	if (code_plan_entry(s->dec, f, want, cp) < 0)
		return -1;
	if (want == ENTRY_BREAKPOINT || cp->kind == ENTRY_JUMP)
		return 0;
	if (p->role != ROLE_CALLS && !p->sites_known)
		find_sites(u, p);
	if (p->role != ROLE_CALLS && p->n_sites) {
		code_plan_call_sites(f, cp);
		return 0;
	}
	if (p->role == ROLE_STOP)
		return perpi_set_error("%s: no jump fits at its entry (%s) and nothing calls it "
				       "directly: a breakpoint would stop the program inside the "
				       "region it ends",
				       p->name, cp->why);
	if (s->opt.method == MEASURE_JUMP)
		return perpi_set_error("%s: no jump fits at its entry (%s)", p->name, cp->why);
	if (!s->warned++)
		perpi_warn("%s: a breakpoint stops the program before each call (no jump fits: %s)",
			   p->name, cp->why);
	return 0;
}

/* Plan and place each timed function's entry. */
static int place_probes(struct run *u)
{
	struct measure_session *s = u->s;
	u->patches = xcalloc(s->n_probes, sizeof(*u->patches));
	u->entries = xcalloc(s->n_probes, sizeof(*u->entries));
	for (size_t i = 0; i < s->n_probes; i++) {
		struct probe *p = &s->probes[i];
		struct code_patch *cp = &u->patches[i];
		size_t avail = p->size + 32;
		uint8_t *bytes = xmalloc(avail);
		u->entries[i] = run_addr(u, p->link);
		ssize_t got = process_read(u->pid, u->entries[i], bytes, avail);
		struct code_function f = {
		    p->name, u->entries[i], bytes, p->size, got > 0 ? (size_t)got : 0, padding_ok,
		    u};
		int kind = p->role == ROLE_START  ? STUB_MARK_START
			   : p->role == ROLE_STOP ? STUB_MARK_STOP
						  : STUB_CALL;
		int rc = plan_probe(u, p, &f, cp);
		if (rc == 0)
			rc = code_add_probe(&u->code, s->dec, kind, CAL_PROBES + i, &f, cp);
		if (rc == 0 && cp->kind == ENTRY_CALL_SITES)
			rc = redirect_sites(u, p, cp);
		free(bytes);
		if (rc < 0)
			return -1;
		if (cp->kind == ENTRY_BREAKPOINT)
			u->r->method = MEASURE_BREAKPOINT;
	}
	return 0;
}

/* Everything that happens at the program's first instruction. */
static int run_inject(struct run *u)
{
	if (run_load_bias(u) < 0 || inject_maps(u->pid, u->s->path, &u->layout) < 0)
		return -1;
	if (map_data(u) < 0 ||
	    map_code(u, code_page_size(u->s->n_probes), u->layout.low, u->layout.high) < 0)
		return -1;
	uint64_t stack_hi = u->layout.stack_hi;
	*run_field(u, MD_CAP) = RECORDS;
	*run_field(u, MD_TOP_CAP) = SHADOW_ENTRIES;
	*run_field(u, MD_STACK_HI) = stack_hi;
	*run_field(u, MD_STACK_LO) = stack_hi - STACK_SPAN;
	*run_field(u, MD_REC_OFF) = u->records_at;
	uint32_t index = 0;
	u->clock_mask = UINT64_MAX;
	u->r->clock = MEASURE_CLOCK_TSC;
	if (u->s->opt.counter && counter_open(u, &index) == 0)
		u->r->clock = MEASURE_CLOCK_CYCLES;
	code_page_init(&u->code, u->code_addr, u->data_addr, u->r->clock == MEASURE_CLOCK_CYCLES,
		       index);
	u->gadget = 0;
	code_add_calibration(&u->code);
	if (place_probes(u) < 0)
		return -1;
	if (u->code.len > u->code_size)
		return perpi_set_error("the timing stubs outgrew their page (%zu bytes)",
				       u->code.len);
	long ret;
	if (inject_write(u->pid, u->code_addr, u->code.buf, u->code.len) < 0 ||
	    syscall6(u, u->pid, SYS_mprotect, (long)u->code_addr, (long)u->code_size,
		     PROT_READ | PROT_EXEC, 0, 0, 0, &ret) < 0)
		return -1;
	u->gadget = code_syscall_gadget(&u->code);
	for (size_t i = 0; i < u->s->n_probes; i++)
		if (inject_write(u->pid, u->entries[i], u->patches[i].bytes, u->patches[i].len) < 0)
			return -1;
	return 0;
}

/* The stubs timed in the program: the calibration loop, at the first
 * instruction, on the program's own stack. */
static int run_calibrate(struct run *u)
{
	struct user_regs_struct saved, r;
	if (ptrace(PTRACE_GETREGS, u->pid, 0, &saved) < 0)
		return perpi_set_error("reading registers: %s", strerror(errno));
	r = saved;
	r.rip = code_calibrate_entry(&u->code);
	r.rdi = CAL_TURNS;
	r.rsp = (saved.rsp - 4096) & ~15ull;
	r.orig_rax = -1;
	ptrace(PTRACE_SETREGS, u->pid, 0, &r);
	for (;;) {
		ptrace(PTRACE_CONT, u->pid, 0, 0);
		int status;
		pid_t w;
		while ((w = waitpid(u->pid, &status, __WALL)) < 0 && errno == EINTR)
			;
		if (w < 0 || !WIFSTOPPED(status))
			return perpi_set_error("the program ended while perpi timed its stubs");
		if (WSTOPSIG(status) == SIGTRAP && !(status >> 16) &&
		    ptrace(PTRACE_GETREGS, u->pid, 0, &r) == 0 &&
		    r.rip == code_calibrate_done(&u->code))
			break;
		if (!(status >> 16) && WSTOPSIG(status) != SIGTRAP && !u->pending_signal)
			u->pending_signal = WSTOPSIG(status);
		if (WSTOPSIG(status) == SIGTRAP || WSTOPSIG(status) == SIGILL ||
		    WSTOPSIG(status) == SIGSEGV)
			return perpi_set_error("the timing stubs failed their calibration (signal "
					       "%d at %#llx)",
					       WSTOPSIG(status), (unsigned long long)r.rip);
	}
	ptrace(PTRACE_SETREGS, u->pid, 0, &saved);
	run_take_records(u, 1);
	return run_calibration_done(u);
}

/* perpi's half of the data area: a memfd the program inherits. */
static int run_data_create(struct run *u)
{
	u->memfd = memfd_create("perpi-measure", 0); /* inherited: no CLOEXEC */
	if (u->memfd < 0)
		return perpi_set_error("memfd_create: %s", strerror(errno));
	if (ftruncate(u->memfd, DATA_SIZE) < 0)
		return perpi_set_error("sizing the measurement buffer: %s", strerror(errno));
	void *p = mmap(NULL, DATA_SIZE, PROT_READ | PROT_WRITE, MAP_SHARED, u->memfd, 0);
	if (p == MAP_FAILED)
		return perpi_set_error("mapping the measurement buffer: %s", strerror(errno));
	u->data = p;
	return 0;
}

static void run_free(struct run *u)
{
	if (u->data)
		munmap(u->data, DATA_SIZE);
	if (u->memfd >= 0)
		close(u->memfd);
	code_page_done(&u->code);
	free(u->patches);
	free(u->entries);
	free(u->sites);
	free(u->events);
	free(u->children);
	free(u->threads);
}

int measure_run_once(struct measure_session *s, char *const argv[], double ticks_per_cycle,
		     struct measure_run *r)
{
	memset(r, 0, sizeof(*r));
	r->series = xcalloc(s->n_figures, sizeof(*r->series));
	r->n_series = s->n_figures;
	r->method = MEASURE_JUMP;
	struct run u = {.s = s,
			.r = r,
			.memfd = -1,
			.ticks_per_cycle = ticks_per_cycle,
			.data_size = DATA_SIZE,
			.records = RECORDS,
			.records_at = MD_HEADER + (uint64_t)SHADOW_ENTRIES * SH_SIZE,
			.shadow = SHADOW_ENTRIES,
			.cal_func = UINT64_MAX,
			.cal_region = UINT64_MAX,
			.cal_outer = UINT64_MAX,
			.cal_plain = UINT64_MAX};
	int rc = run_data_create(&u);
	if (rc == 0)
		rc = process_spawn(s->path, argv, &u.pid);
	if (u.memfd >= 0 && rc == 0) {
		if (run_inject(&u) < 0 || run_calibrate(&u) < 0)
			rc = -1;
		close(u.memfd);
		u.memfd = -1;
	}
	if (rc == 0)
		rc = run_loop(&u);
	else if (u.pid > 0)
		run_kill(&u);
	if (u.data)
		run_collect(&u);
	run_free(&u);
	return rc;
}
