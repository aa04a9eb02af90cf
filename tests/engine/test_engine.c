/* The engine on hand-built events: the whole run, memory, syscalls,
 * observers, constrained machines (call instances: test_frames.c). Every
 * expected figure is derived by hand in the comment above its check, from
 * DESIGN.md's rules: c = 1 + max ready of the sources (0 if never written),
 * destinations get c; I counts, C is the max c; a call instance sees
 * everything from before it as ready at 0. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/util.h"
#include "tests/engine/evbuild.h"

#define S 0x7ff0000ull /* the simulated stack pointer at the start of a test */

static struct engine *fresh(const struct engine_options *opt)
{
	ev_sp = S;
	return engine_new(opt);
}

static void test_chain(void)
{
	struct engine *e = fresh(NULL);
	/* mov rax,1 (c=1); add rax,1 three times (2, 3, 4): I=4, C=4. */
	EV(e, .dst = "rax");
	for (int i = 0; i < 3; i++)
		EV(e, .src = "rax", .dst = "rax cf zf");
	ev_check_totals("chain", e, 4, 4);
	engine_delete(e);
}

static void test_independent(void)
{
	struct engine *e = fresh(NULL);
	/* Two interleaved chains of 3 (rax, rbx), each add also writing flags
	 * that nobody reads: c = 1,1,2,2,3,3: I=6, C=3. A third stream reading
	 * only cf (last written at c=3) would be at 4: adc rcx, 0 -> I=7, C=4. */
	for (int i = 0; i < 3; i++) {
		EV(e, .src = "rax", .dst = "rax cf");
		EV(e, .src = "rbx", .dst = "rbx cf");
	}
	ev_check_totals("independent", e, 6, 3);
	EV(e, .src = "rcx cf", .dst = "rcx");
	ev_check_totals("independent+adc", e, 7, 4);
	engine_delete(e);
}

static void test_memory_bytes(void)
{
	struct engine *e = fresh(NULL);
	/* e1 mov rax,1: c=1. e2 mov [0x1000],rax (8 bytes): c=2, bytes
	 * 0x1000-0x1007 ready at 2. */
	EV(e, .dst = "rax");
	EV(e, .src = "rax", .mem = "w:1000:8", .klass = CLASS_STORE);
	/* e3 load of the upper half 0x1004-0x1007: c=3. */
	EV(e, .dst = "rbx", .mem = "r:1004:4", .klass = CLASS_LOAD);
	/* e4 neighbours above 0x1008-0x100b and e5 below 0x0ffc-0x0fff: c=1. */
	EV(e, .dst = "rcx", .mem = "r:1008:4", .klass = CLASS_LOAD);
	EV(e, .dst = "rdx", .mem = "r:ffc:4", .klass = CLASS_LOAD);
	/* e6 0x0ffd-0x1000 overlaps one byte: c=3. I=6, C=3. */
	EV(e, .dst = "rsi", .mem = "r:ffd:4", .klass = CLASS_LOAD);
	ev_check_totals("memory bytes", e, 6, 3);
	/* e7 a store across a 4 KiB page boundary, 0x1ffc-0x2003, of rbx (3):
	 * c=4; e8 a 1-byte load at 0x2003: c=5; e9 at 0x2004: c=1. */
	EV(e, .src = "rbx", .mem = "w:1ffc:8", .klass = CLASS_STORE);
	EV(e, .dst = "rdi", .mem = "r:2003:1", .klass = CLASS_LOAD);
	EV(e, .dst = "r8", .mem = "r:2004:1", .klass = CLASS_LOAD);
	ev_check_totals("memory across pages", e, 9, 5);
	/* Far-apart addresses (stack top, low, 2^40) are independent units of
	 * the sparse shadow: e10 store rdi (5) at 0x7ffffffff000 -> 6; e11 store
	 * of nothing known at 0x10 -> 1; e12 store at 2^40 -> 1; e13 load of
	 * 0x7ffffffff007 -> 7; e14 load at 2^40+8 (never written) -> 1. */
	EV(e, .src = "rdi", .mem = "w:7ffffffff000:8", .klass = CLASS_STORE);
	EV(e, .mem = "w:10:8", .klass = CLASS_STORE);
	EV(e, .mem = "w:10000000000:8", .klass = CLASS_STORE);
	EV(e, .dst = "r9", .mem = "r:7ffffffff007:1", .klass = CLASS_LOAD);
	EV(e, .dst = "r10", .mem = "r:10000000008:8", .klass = CLASS_LOAD);
	ev_check_totals("memory sparse", e, 14, 7);
	/* A 4096-byte read (an xsave-like area) over 0x3000-0x3fff after a
	 * 1-byte store at 0x3abc of r9 (7): store c=8, the read c=9. */
	EV(e, .src = "r9", .mem = "w:3abc:1", .klass = CLASS_STORE);
	EV(e, .dst = "r11", .mem = "r:3000:4096", .klass = CLASS_LOAD);
	ev_check_totals("memory large access", e, 16, 9);
	engine_delete(e);
}

static void test_syscall(void)
{
	struct engine *e = fresh(NULL);
	struct engine_totals t;
	/* mov rax,39 (1); add rdi,... chain: mov rdi,1 (1); inc rdi (2).
	 * syscall reads rax (1) and rdi (2), writes rax rcx r11: not counted,
	 * no step, its outputs ready at max(1, 2) = 2. mov rbx,rcx: 3.
	 * I=4, C=3, 1 syscall. */
	EV(e, .dst = "rax");
	EV(e, .dst = "rdi");
	EV(e, .src = "rdi", .dst = "rdi");
	EV(e, .text = "syscall", .src = "rax rdi", .dst = "rax rcx r11", .flags = EVENT_NOT_COUNTED,
	   .ctrl = CTRL_SYSCALL, .klass = CLASS_OTHER);
	EV(e, .src = "rcx", .dst = "rbx");
	ev_check_totals("syscall", e, 4, 3);
	/* A syscall with no inputs makes its outputs ready at 0: mov rdx,r8
	 * after "syscall" writing r8 from nothing: c=1 (C stays 3, I=5). */
	EV(e, .text = "syscall", .dst = "r8", .flags = EVENT_NOT_COUNTED, .ctrl = CTRL_SYSCALL,
	   .klass = CLASS_OTHER);
	EV(e, .src = "r8", .dst = "rdx");
	ev_check_totals("syscall without inputs", e, 5, 3);
	/* An undecodable instruction is counted, and tallied: reads rbx (3): 4. */
	EV(e, .src = "rbx", .dst = "rbx", .flags = EVENT_UNKNOWN, .klass = CLASS_OTHER);
	ev_check_totals("unknown", e, 6, 4);
	engine_totals(e, &t);
	ev_check("syscalls", t.syscalls, 2);
	ev_check("unknown", t.unknown, 1);
	ev_check("class int", t.class_insns[CLASS_INT], 5);
	ev_check("class other", t.class_insns[CLASS_OTHER], 1);
	engine_delete(e);
}

/* The observer's view: steps and producers. */
struct seen {
	uint64_t step[16];
	size_t n;
	struct engine_dep deps[16][8];
	size_t n_deps[16];
};

static void observe(void *ctx, const struct engine_step_info *info)
{
	struct seen *s = ctx;
	if (info->index != s->n || s->n >= 16)
		return;
	s->step[s->n] = info->step;
	s->n_deps[s->n] = info->n_deps < 8 ? info->n_deps : 8;
	if (s->n_deps[s->n])
		memcpy(s->deps[s->n], info->deps, s->n_deps[s->n] * sizeof(*info->deps));
	s->n++;
}

static void check_dep(const struct seen *s, size_t ev, size_t i, uint64_t producer,
		      uint64_t what, int kind, int size)
{
	char msg[64];
	if (i >= s->n_deps[ev]) {
		printf("FAIL: deps of event %zu: no dep #%zu\n", ev, i);
		ev_failures++;
		return;
	}
	const struct engine_dep *d = &s->deps[ev][i];
	snprintf(msg, sizeof(msg), "event %zu dep %zu producer", ev, i);
	ev_check(msg, d->producer, producer);
	snprintf(msg, sizeof(msg), "event %zu dep %zu what", ev, i);
	ev_check(msg, d->what, what);
	snprintf(msg, sizeof(msg), "event %zu dep %zu kind", ev, i);
	ev_check(msg, d->kind, (uint64_t)kind);
	snprintf(msg, sizeof(msg), "event %zu dep %zu size", ev, i);
	ev_check(msg, d->size, (uint64_t)size);
}

static void test_observer(void)
{
	struct engine *e = fresh(NULL);
	struct seen s = {0}, plain = {0};
	engine_add_observer(e, observe, &s, 1);
	engine_add_observer(e, observe, &plain, 0);
	/* #0 mov [0x1000],rax: rax never written -> no dep; step 1.
	 * #1 mov [0x1004],cx (2 bytes): step 1.
	 * #2 mov rdx,[0x1000] (8 bytes): bytes 0-3 and 6-7 from #0 (6 bytes,
	 *    first 0x1000), 4-5 from #1 (2 bytes at 0x1004); step 2.
	 * #3 syscall reading rdx: producer #2, step 0 (not counted).
	 * #4 add rdx,rsi: rdx from #3 (the syscall made it ready at 2), rsi
	 *    never: step 3. */
	EV(e, .src = "rax", .mem = "w:1000:8");
	EV(e, .src = "rcx", .mem = "w:1004:2");
	EV(e, .dst = "rdx", .mem = "r:1000:8");
	EV(e, .text = "syscall", .src = "rdx", .dst = "rdx", .flags = EVENT_NOT_COUNTED,
	   .ctrl = CTRL_SYSCALL);
	EV(e, .src = "rdx rsi", .dst = "rdx");
	ev_check("observer: events seen", s.n, 5);
	ev_check("observer: step #0", s.step[0], 1);
	ev_check("observer: step #1", s.step[1], 1);
	ev_check("observer: step #2", s.step[2], 2);
	ev_check("observer: step #3", s.step[3], 0);
	ev_check("observer: step #4", s.step[4], 3);
	ev_check("observer: deps #0", s.n_deps[0], 0);
	ev_check("observer: deps #2", s.n_deps[2], 2);
	check_dep(&s, 2, 0, 0, 0x1000, DEP_MEMORY, 6);
	check_dep(&s, 2, 1, 1, 0x1004, DEP_MEMORY, 2);
	ev_check("observer: deps #3", s.n_deps[3], 1);
	check_dep(&s, 3, 0, 2, UNIT_RDX, DEP_UNIT, 0);
	ev_check("observer: deps #4", s.n_deps[4], 1);
	check_dep(&s, 4, 0, 3, UNIT_RDX, DEP_UNIT, 0);
	ev_check("observer without deps: deps #2", plain.n_deps[2], 0);
	ev_check("observer without deps: step #4", plain.step[4], 3);
	engine_delete(e);
}

static void test_window(void)
{
	struct engine_options opt = {.window = 1};
	struct engine *e = fresh(&opt);
	/* Window 1: each instruction runs after the previous one: 5 independent
	 * instructions at steps 1..5: I=5, C=5, ILP exactly 1. */
	for (int i = 0; i < 5; i++)
		EV(e, .dst = "rax");
	ev_check_totals("window 1", e, 5, 5);
	engine_delete(e);

	opt.window = 2;
	e = fresh(&opt);
	/* Window 2, 6 independent: c_i >= c_{i-2} + 1: 1 1 2 2 3 3: C=3. Then a
	 * chain of 2 on rax (written last at 3): 4, 5; and one independent
	 * instruction: window says >= c(chain 1) + 1 = 5: C=5, I=9. */
	for (int i = 0; i < 6; i++)
		EV(e, .dst = "rax");
	ev_check_totals("window 2", e, 6, 3);
	EV(e, .src = "rax", .dst = "rax");
	EV(e, .src = "rax", .dst = "rax");
	EV(e, .dst = "rbx");
	ev_check_totals("window 2 chain", e, 9, 5);
	engine_delete(e);
}

static void test_width(void)
{
	struct engine_options opt = {.width = 2};
	struct engine *e = fresh(&opt);
	/* Width 2, a chain a b c (1 2 3) then x y z independent: x fills step 1,
	 * y goes to 2, z to 3; w then finds 1..3 full: 4. I=7, C=4. */
	EV(e, .dst = "rax");
	EV(e, .src = "rax", .dst = "rax");
	EV(e, .src = "rax", .dst = "rax");
	EV(e, .dst = "rbx");
	EV(e, .dst = "rcx");
	EV(e, .dst = "rdx");
	ev_check_totals("width 2", e, 6, 3);
	EV(e, .dst = "rsi");
	ev_check_totals("width 2 full", e, 7, 4);
	/* One that depends on rsi (4): 5; steps >= 5 are free. */
	EV(e, .src = "rsi", .dst = "rsi");
	ev_check_totals("width 2 after", e, 8, 5);
	engine_delete(e);

	opt.width = 1;
	e = fresh(&opt);
	/* Width 1: every instruction its own step, 4 independent -> C=4. */
	for (int i = 0; i < 4; i++)
		EV(e, .dst = "rax");
	ev_check_totals("width 1", e, 4, 4);
	engine_delete(e);
}

/* Limits apply to each call instance in isolation too. */
static void test_limits_in_frames(void)
{
	struct engine_options opt = {.width = 1};
	struct engine *e = fresh(&opt);
	/* Width 1: p1 (whole 1), then main's entry m1 (whole 2, main 1), call f
	 * (whole 3, main 2), f1 f2 independent (whole 4 5, main 3 4, f 1 2),
	 * ret (whole 6, main 5, f 3). f: I=3, C=3; main: I=5, C=5 (finish). */
	EV(e, .dst = "rax");
	EV(e, .addr = 0x100, .dst = "rbx", .flags = EVENT_CALL_ENTRY);
	ev_call(e);
	EV(e, .addr = 0x200, .dst = "rcx");
	EV(e, .dst = "rdx");
	ev_ret(e);
	engine_finish(e);
	ev_check_totals("width 1 frames", e, 6, 6);
	ev_check_function("width 1 frames", e, 0x100, 5, 5, 1);
	ev_check_function("width 1 frames", e, 0x200, 3, 3, 1);
	engine_delete(e);
}

static void test_class_mask(void)
{
	struct engine_options opt = {.class_mask = 1u << CLASS_FP};
	struct engine *e = fresh(&opt);
	struct engine_totals t;
	/* --only fp: e1 fp writes v0 (1); e2 int reads v0 writes rax: free, rax
	 * ready at 1; e3 fp reads rax: 2; e4 int writes rbx from nothing: ready
	 * 0; e5 fp reads rbx: 1. I=3 (fp only), C=2. */
	EV(e, .dst = "v0.0", .klass = CLASS_FP);
	EV(e, .src = "v0.0", .dst = "rax", .klass = CLASS_INT);
	EV(e, .src = "rax", .dst = "v1.0", .klass = CLASS_FP);
	EV(e, .dst = "rbx", .klass = CLASS_INT);
	EV(e, .src = "rbx", .dst = "v2.0", .klass = CLASS_FP);
	ev_check_totals("only fp", e, 3, 2);
	engine_totals(e, &t);
	ev_check("only fp: fp count", t.class_insns[CLASS_FP], 3);
	ev_check("only fp: int count", t.class_insns[CLASS_INT], 0);
	engine_delete(e);
}

static void test_stack_engine(void)
{
	struct engine_options opt = {.stack_engine = 1};
	struct engine *e;
	for (int on = 0; on < 2; on++) {
		e = fresh(on ? &opt : NULL);
		/* push rbp, push rbx, push r12 (sp S, S-8, S-16), then
		 * mov rax,[rsp] at S-24 reading the last push's bytes.
		 * Off: rsp chain 1 2 3, the load 4 (rsp 3, bytes 3): C=4.
		 * On: pushes read no RSP: 1 1 1; the load reads rsp (never
		 * written by them: 0) and the bytes (1): 2. C=2. */
		EV(e, .text = "push rbp", .src = "rsp rbp", .dst = "rsp", .mem = "w:7fefff8:8");
		EV(e, .text = "push rbx", .src = "rsp rbx", .dst = "rsp", .mem = "w:7fefff0:8",
		   .sp = S - 8);
		EV(e, .text = "push r12", .src = "rsp r12", .dst = "rsp", .mem = "w:7feffe8:8",
		   .sp = S - 16);
		EV(e, .text = "mov rax, qword ptr [rsp]", .src = "rsp", .dst = "rax",
		   .mem = "r:7feffe8:8", .sp = S - 24);
		ev_check_totals(on ? "stack engine on" : "stack engine off", e, 4, on ? 2 : 4);
		/* pop rsp keeps its RSP dependency: its value is the loaded one.
		 * Reads rsp (off 3, on 0) and [S-24] (3 / 1): off 4, on 2; then
		 * add rax,rsp: off 5, on 3. */
		EV(e, .text = "pop rsp", .src = "rsp", .dst = "rsp", .mem = "r:7feffe8:8",
		   .sp = S - 24);
		EV(e, .text = "add rax, rsp", .src = "rax rsp", .dst = "rax", .sp = S - 24);
		ev_check_totals(on ? "stack engine pop rsp" : "no stack engine pop rsp", e, 6,
				on ? 3 : 5);
		engine_delete(e);
	}
}

/* Latencies by class for the tests: fp 4 steps, int 2, the rest 1. */
static unsigned class_latency(void *ctx, const struct perpi_insn *insn)
{
	(void)ctx;
	return insn->klass == CLASS_FP ? 4 : insn->klass == CLASS_INT ? 2 : 1;
}

static void test_latency(void)
{
	struct engine_options opt = {.latency = class_latency};
	struct engine *e = fresh(&opt);
	/* Results ready latency steps after the sources: e1 fp v0 ready 4;
	 * e2 int v0 -> rax: 4 + 2 = 6; e3 fp rax -> v1: 6 + 4 = 10; e4 move
	 * (latency 1), independent: 1. I=4, C=10. */
	EV(e, .dst = "v0.0", .klass = CLASS_FP);
	EV(e, .src = "v0.0", .dst = "rax", .klass = CLASS_INT);
	EV(e, .src = "rax", .dst = "v1.0", .klass = CLASS_FP);
	EV(e, .dst = "rbx", .klass = CLASS_MOVE);
	ev_check_totals("latency", e, 4, 10);
	engine_delete(e);

	/* With width 1, three independent fp instructions issue at 1, 2, 3 and
	 * are done at 4, 5, 6: C=6. */
	opt.width = 1;
	e = fresh(&opt);
	for (int i = 0; i < 3; i++)
		EV(e, .dst = "v0.0", .klass = CLASS_FP);
	ev_check_totals("latency width 1", e, 3, 6);
	engine_delete(e);

	/* With window 1, each issues after the one before is done: fp issues
	 * at 1, done 4; the next at 5, done 8; an int at 9, done 10: C=10. */
	opt.width = 0;
	opt.window = 1;
	e = fresh(&opt);
	EV(e, .dst = "v0.0", .klass = CLASS_FP);
	EV(e, .dst = "v1.0", .klass = CLASS_FP);
	EV(e, .dst = "rax", .klass = CLASS_INT);
	ev_check_totals("latency window 1", e, 3, 10);
	engine_delete(e);

	/* In a call instance too: m1 call f (branch, 1); f1 int rax: whole 2,
	 * f 2; f2 int rax: 4, 4; f3 ret: rsp 1, [S-8] 1 -> 2, f 1. f: I=3, C=4.
	 * Then a syscall stays free (not counted, its outputs ready with its
	 * input rax, 4) and add rbx,rax (int) is done at 4 + 2 = 6.
	 * main (closed by engine_finish): I=5, C=6. */
	opt.window = 0;
	e = fresh(&opt);
	EV(e, .addr = 0x100, .text = "call f", .src = "rsp", .dst = "rsp", .mem = "w:7fefff8:8",
	   .ctrl = CTRL_CALL, .klass = CLASS_BRANCH, .flags = EVENT_CALL_ENTRY);
	ev_sp = S - 8;
	EV(e, .addr = 0x200, .src = "rax", .dst = "rax", .klass = CLASS_INT);
	EV(e, .src = "rax", .dst = "rax", .klass = CLASS_INT);
	EV(e, .text = "ret", .src = "rsp", .dst = "rsp", .mem = "r:7fefff8:8", .ctrl = CTRL_RET,
	   .klass = CLASS_BRANCH);
	ev_sp = S;
	EV(e, .text = "syscall", .src = "rax", .dst = "rax", .flags = EVENT_NOT_COUNTED,
	   .ctrl = CTRL_SYSCALL, .klass = CLASS_FP);
	EV(e, .src = "rax rbx", .dst = "rbx", .klass = CLASS_INT);
	engine_finish(e);
	ev_check_totals("latency frames", e, 5, 6);
	{
		const struct engine_function *f;
		size_t n = engine_functions(e, &f);
		for (size_t i = 0; i < n; i++) {
			if (f[i].entry == 0x200) {
				ev_check("latency frames: I of f", f[i].insns, 3);
				ev_check("latency frames: C of f", f[i].steps, 4);
			}
			if (f[i].entry == 0x100)
				ev_check("latency frames: C of main", f[i].steps, 6);
		}
	}
	engine_delete(e);
}

int main(void)
{
	test_chain();
	test_independent();
	test_memory_bytes();
	test_syscall();
	test_observer();
	test_window();
	test_width();
	test_limits_in_frames();
	test_class_mask();
	test_stack_engine();
	test_latency();
	if (ev_failures) {
		printf("%d failures\n", ev_failures);
		return 1;
	}
	printf("engine: all checks passed\n");
	return 0;
}
