/* Synthetic events for the engine's tests: see evbuild.h. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/util.h"
#include "tests/engine/evbuild.h"

uint64_t ev_sp = 0x7ff0000;
int ev_failures;
static uint64_t next_addr = 0x400000;

static int unit_of(const char *name)
{
	static const char *const gpr[16] = {"rax", "rcx", "rdx", "rbx", "rsp", "rbp",
					    "rsi", "rdi", "r8",  "r9",  "r10", "r11",
					    "r12", "r13", "r14", "r15"};
	static const char *const flags[7] = {"cf", "pf", "af", "zf", "sf", "of", "df"};
	unsigned n, p;
	for (int i = 0; i < 16; i++)
		if (!strcmp(name, gpr[i]))
			return UNIT_GPR + i;
	for (int i = 0; i < 7; i++)
		if (!strcmp(name, flags[i]))
			return UNIT_CF + i;
	if (sscanf(name, "v%u.%u", &n, &p) == 2 && n < 32 && p < 3)
		return UNIT_VEC_PART(n, p);
	if (sscanf(name, "k%u", &n) == 1 && n < 8)
		return UNIT_K + n;
	fprintf(stderr, "evbuild: unknown unit '%s'\n", name);
	abort();
}

static uint8_t parse_units(const char *list, uint8_t *out)
{
	char buf[512], *save = NULL;
	uint8_t n = 0;
	snprintf(buf, sizeof(buf), "%s", list ? list : "");
	for (char *t = strtok_r(buf, " ", &save); t; t = strtok_r(NULL, " ", &save))
		out[n++] = (uint8_t)unit_of(t);
	return n;
}

static uint16_t parse_mem(const char *list, struct perpi_mem_access *out)
{
	char buf[512], *save = NULL;
	uint16_t n = 0;
	snprintf(buf, sizeof(buf), "%s", list ? list : "");
	for (char *t = strtok_r(buf, " ", &save); t; t = strtok_r(NULL, " ", &save)) {
		char rw;
		unsigned long long addr;
		unsigned size;
		if (sscanf(t, "%c:%llx:%u", &rw, &addr, &size) != 3 || (rw != 'r' && rw != 'w')) {
			fprintf(stderr, "evbuild: bad access '%s'\n", t);
			abort();
		}
		out[n++] = (struct perpi_mem_access){addr, size, rw == 'w'};
	}
	return n;
}

int ev_feed(struct engine *e, struct evspec s)
{
	/* Engines keep no pointer to an instruction past its event, but an
	 * instruction must outlive the event: take a fresh one from a pool. */
	static struct perpi_insn pool[1 << 15];
	static size_t used;
	static struct perpi_event ev;
	if (used == ARRAY_SIZE(pool)) {
		fprintf(stderr, "evbuild: more than %zu events in one test program\n", used);
		abort();
	}
	struct perpi_insn *insn = &pool[used++];
	memset(insn, 0, sizeof(*insn));
	insn->addr = s.addr ? s.addr : next_addr++;
	insn->klass = s.klass ? (uint8_t)s.klass : CLASS_INT;
	insn->control = (uint8_t)s.ctrl;
	snprintf(insn->text, sizeof(insn->text), "%s", s.text ? s.text : "op");
	memset(&ev, 0, sizeof(ev));
	ev.insn = insn;
	ev.sp = s.sp ? s.sp : ev_sp;
	ev.flags = (uint16_t)s.flags;
	ev.n_src = parse_units(s.src, ev.src);
	ev.n_dst = parse_units(s.dst, ev.dst);
	ev.n_mem = parse_mem(s.mem, ev.mem);
	return engine_event(e, &ev);
}

void ev_call(struct engine *e)
{
	char mem[64];
	snprintf(mem, sizeof(mem), "w:%llx:8", (unsigned long long)(ev_sp - 8));
	EV(e, .text = "call f", .src = "rsp", .dst = "rsp", .mem = mem, .ctrl = CTRL_CALL,
	   .klass = CLASS_BRANCH);
	ev_sp -= 8;
}

void ev_ret(struct engine *e)
{
	char mem[64];
	snprintf(mem, sizeof(mem), "r:%llx:8", (unsigned long long)ev_sp);
	EV(e, .text = "ret", .src = "rsp", .dst = "rsp", .mem = mem, .ctrl = CTRL_RET,
	   .klass = CLASS_BRANCH);
	ev_sp += 8;
}

void ev_check(const char *what, uint64_t got, uint64_t want)
{
	if (got == want)
		return;
	printf("FAIL: %s: got %llu, want %llu\n", what, (unsigned long long)got,
	       (unsigned long long)want);
	ev_failures++;
}

void ev_check_totals(const char *test, struct engine *e, uint64_t insns, uint64_t steps)
{
	struct engine_totals t;
	char what[128];
	engine_totals(e, &t);
	snprintf(what, sizeof(what), "%s: whole-run I", test);
	ev_check(what, t.insns, insns);
	snprintf(what, sizeof(what), "%s: whole-run C", test);
	ev_check(what, t.steps, steps);
}

void ev_check_function(const char *test, struct engine *e, uint64_t entry, uint64_t insns,
		       uint64_t steps, uint64_t calls)
{
	const struct engine_function *f;
	size_t n = engine_functions(e, &f);
	char what[128];
	for (size_t i = 0; i < n; i++)
		if (f[i].entry == entry) {
			snprintf(what, sizeof(what), "%s: I of 0x%llx", test, (unsigned long long)entry);
			ev_check(what, f[i].insns, insns);
			snprintf(what, sizeof(what), "%s: C of 0x%llx", test, (unsigned long long)entry);
			ev_check(what, f[i].steps, steps);
			snprintf(what, sizeof(what), "%s: calls of 0x%llx", test,
				 (unsigned long long)entry);
			ev_check(what, f[i].calls, calls);
			return;
		}
	if (calls) {
		printf("FAIL: %s: no function at 0x%llx\n", test, (unsigned long long)entry);
		ev_failures++;
	}
}
