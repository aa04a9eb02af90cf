/* The TUI's model on the hand-made run of synth.c, whose figures are
 * derived by hand there: totals, the per-step histogram, the function
 * table, a function's isolated histogram, producers and consumers, the
 * critical path and its source lines. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/util.h"
#include "tests/tui/synth.h"
#include "tui/tui_model.h"

static int failures;

#define EXPECT(cond, ...)                                  \
	do {                                               \
		if (!(cond)) {                             \
			printf("FAIL %s:%d: ", __FILE__, __LINE__); \
			printf(__VA_ARGS__);               \
			printf("\n");                      \
			failures++;                        \
		}                                          \
	} while (0)

static void expect_bin(struct tui_model *m, uint64_t from, uint64_t to, uint64_t total,
		       const uint64_t want[CLASS_COUNT])
{
	struct tui_bin b;
	tui_model_bin(m, from, to, &b);
	EXPECT(b.total == total, "steps %lu-%lu: %lu instructions, want %lu", (unsigned long)from,
	       (unsigned long)to, (unsigned long)b.total, (unsigned long)total);
	for (unsigned k = 0; k < CLASS_COUNT; k++)
		EXPECT(b.count[k] == want[k], "steps %lu-%lu: %s %lu, want %lu",
		       (unsigned long)from, (unsigned long)to, tui_model_class_name(k),
		       (unsigned long)b.count[k], (unsigned long)want[k]);
}

static void test_totals_and_histogram(struct tui_model *m)
{
	struct engine_totals t;
	tui_model_totals(m, &t);
	EXPECT(t.insns == 15 && t.steps == 5, "I %lu C %lu, want 15 5", (unsigned long)t.insns,
	       (unsigned long)t.steps);
	/* load store int fp vec move branch other */
	expect_bin(m, 1, 1, 6, (uint64_t[]){0, 0, 0, 1, 0, 4, 1, 0});
	expect_bin(m, 2, 2, 2, (uint64_t[]){0, 0, 1, 0, 0, 0, 1, 0});
	expect_bin(m, 4, 4, 3, (uint64_t[]){0, 1, 1, 0, 0, 0, 1, 0});
	expect_bin(m, 4, 5, 5, (uint64_t[]){1, 1, 2, 0, 0, 0, 1, 0});
	expect_bin(m, 1, 5, 15, (uint64_t[]){1, 1, 4, 1, 0, 4, 4, 0});
	expect_bin(m, 6, 9, 0, (uint64_t[]){0, 0, 0, 0, 0, 0, 0, 0});
}

static void test_functions(struct tui_model *m)
{
	const struct tui_function *f;
	size_t n = tui_model_functions(m, &f);
	EXPECT(n == 1, "%zu functions, want 1 (f)", n);
	if (n != 1)
		return;
	EXPECT(!strcmp(f->name, "f") && f->entry == 0x2000, "function %s at %lx", f->name,
	       (unsigned long)f->entry);
	EXPECT(f->insns == 8 && f->steps == 4 && f->calls == 2, "f: I %lu C %lu calls %lu",
	       (unsigned long)f->insns, (unsigned long)f->steps, (unsigned long)f->calls);
	const struct tui_call *c1 = tui_model_call(m, f->first_call);
	EXPECT(c1 && c1->first == 3 && c1->last == 6, "first call of f");
	const struct tui_call *c2 = c1 ? tui_model_call(m, c1->next) : NULL;
	EXPECT(c2 && c2->first == 11 && c2->last == 14 && c2->next == TUI_NONE,
	       "second call of f");

	uint64_t steps;
	uint64_t *h = tui_model_function_histogram(m, 0, TUI_NONE, &steps);
	EXPECT(steps == 2, "f's histogram has %lu steps, want 2", (unsigned long)steps);
	if (steps == 2) {
		EXPECT(h[1 * CLASS_COUNT + CLASS_INT] == 2 && h[1 * CLASS_COUNT + CLASS_MOVE] == 2 &&
			       h[1 * CLASS_COUNT + CLASS_BRANCH] == 2,
		       "f step 1");
		EXPECT(h[2 * CLASS_COUNT + CLASS_INT] == 2 && h[2 * CLASS_COUNT + CLASS_MOVE] == 0,
		       "f step 2");
	}
	free(h);
	/* One call: step 1 holds add, mov rcx, ret; step 2 the imul. */
	h = tui_model_function_histogram(m, 0, f->first_call, &steps);
	EXPECT(steps == 2 && h[1 * CLASS_COUNT + CLASS_INT] == 1 &&
		       h[2 * CLASS_COUNT + CLASS_INT] == 1 && h[1 * CLASS_COUNT + CLASS_BRANCH] == 1,
	       "f's first call");
	free(h);
}

static void test_graph(struct tui_model *m)
{
	const uint32_t *p;
	size_t n = tui_model_producers(m, 9, &p);
	EXPECT(n == 1 && p[0] == 8, "load's producers: the store only (8 bytes, one producer)");
	n = tui_model_producers(m, 3, &p);
	EXPECT(n == 2 && p[0] + p[1] == 1, "add's producers: 0 and 1");
	EXPECT(tui_model_producer_unit(m, 3, 0) == (p[0] == 0 ? UNIT_RAX : UNIT_RBX) &&
		       tui_model_producer_unit(m, 3, 1) == (p[1] == 0 ? UNIT_RAX : UNIT_RBX),
	       "add's edges carry rax (from 0) and rbx (from 1)");
	EXPECT(tui_model_producer_unit(m, 9, 0) == TUI_DEP_MEMORY, "the load's edge carries memory");
	n = tui_model_producers(m, 14, &p);
	EXPECT(n == 1 && p[0] == 10, "second ret's producer: the second call");
	/* the call wrote rsp and the return address: one edge, the first the
	 * engine reports (its units come before memory) */
	EXPECT(tui_model_producer_unit(m, 14, 0) == UNIT_RSP, "second ret's edge carries rsp");
	uint32_t *c;
	n = tui_model_consumers(m, 4, 5, &c);
	EXPECT(n == 2 && c[0] == 8 && c[1] == 11, "imul's consumers: the store and the 2nd add");
	free(c);
	n = tui_model_at_step(m, 4, &p);
	EXPECT(n == 3 && p[0] == 8 && p[1] == 11 && p[2] == 14, "step 4 holds 8, 11, 14");
	EXPECT(tui_model_insn(m, 12)->step == 5, "second imul at step 5");
}

static void test_critical(struct tui_model *m)
{
	const uint32_t *path;
	size_t n = tui_model_critical_path(m, &path);
	static const uint32_t want[] = {0, 3, 4, 8, 9};
	EXPECT(n == 5 && !memcmp(path, want, sizeof(want)), "critical path");
	const struct tui_line *l;
	n = tui_model_critical_lines(m, &l);
	EXPECT(n == 3, "%zu critical lines, want 3", n);
	if (n == 3)
		EXPECT(l[0].line == 6 && l[0].count == 2 && l[1].line == 10 && l[1].count == 2 &&
			       l[2].line == 3 && l[2].count == 1 && !strcmp(l[0].file, "t.c"),
		       "critical lines t.c:6 2, t.c:10 2, t.c:3 1");
}

/* Blocks as executed (synth.c): A = 0..2 (ends with the call), B = f's
 * body 3..6 and 11..14, C = 7..10. Isolated steps: A: all at 1, C 1,
 * ILP 3; B: add 1, imul 2, mov 1, ret 1 (its producers precede it), C 2
 * per occurrence, ILP 8/4 = 2; C: mulsd 1, store 1 (rax from before),
 * load 2 (the store), call 1, ILP 2. Ordered by instructions executed:
 * B (8), C (4), A (3). */
static void test_blocks(struct tui_model *m)
{
	const struct tui_block *b;
	size_t n = tui_model_blocks(m, &b);
	EXPECT(n == 3, "%zu blocks, want 3", n);
	if (n != 3)
		return;
	EXPECT(b[0].addr == 0x2000 && b[0].last_addr == 0x200e && b[0].insns == 4 &&
		       b[0].occurrences == 2 && b[0].steps == 4,
	       "block B");
	EXPECT(b[1].addr == 0x1013 && b[1].insns == 4 && b[1].occurrences == 1 && b[1].steps == 2,
	       "block C");
	EXPECT(b[2].addr == 0x1000 && b[2].insns == 3 && b[2].steps == 1 && b[2].ilp == 3.0,
	       "block A");
}

/* A syscall is free (DESIGN.md): mov rax, 1 (step 1); syscall reading
 * rax and writing rax, rcx (not counted, no step: rax ready at 1); add rbx,
 * rax (step 2). I = 2, C = 2, and the critical path goes from the add
 * through the syscall to the mov: 0, 2. */
static void test_syscall(void)
{
	static const struct perpi_insn insns[] = {
		{.id = 0, .addr = 0x10, .klass = CLASS_MOVE, .text = "mov rax, 1"},
		{.id = 1, .addr = 0x17, .klass = CLASS_OTHER, .control = CTRL_SYSCALL,
		 .text = "syscall"},
		{.id = 2, .addr = 0x19, .klass = CLASS_INT, .text = "add rbx, rax"},
	};
	struct perpi_event ev[3];
	memset(ev, 0, sizeof(ev));
	for (int i = 0; i < 3; i++)
		ev[i].insn = &insns[i], ev[i].sp = 0x1000;
	ev[0].n_dst = 1, ev[0].dst[0] = UNIT_RAX;
	ev[1].flags = EVENT_NOT_COUNTED;
	ev[1].n_src = 1, ev[1].src[0] = UNIT_RAX;
	ev[1].n_dst = 2, ev[1].dst[0] = UNIT_RAX, ev[1].dst[1] = UNIT_RCX;
	ev[2].n_src = 2, ev[2].src[0] = UNIT_RBX, ev[2].src[1] = UNIT_RAX;
	ev[2].n_dst = 1, ev[2].dst[0] = UNIT_RBX;
	struct tui_model *m = tui_model_new(NULL, NULL);
	for (int i = 0; i < 3; i++)
		tui_model_event(m, &ev[i]);
	tui_model_finish(m);
	struct engine_totals t;
	tui_model_totals(m, &t);
	EXPECT(t.insns == 2 && t.steps == 2, "syscall run: I %lu C %lu, want 2 2",
	       (unsigned long)t.insns, (unsigned long)t.steps);
	const uint32_t *path;
	size_t n = tui_model_critical_path(m, &path);
	EXPECT(n == 2 && path[0] == 0 && path[1] == 2, "critical path through the syscall");
	expect_bin(m, 1, 2, 2, (uint64_t[]){0, 0, 1, 0, 0, 1, 0, 0});
	tui_model_delete(m);
}

int main(void)
{
	struct tui_model *m = tui_model_new(NULL, &synth_symbols);
	synth_replay(tui_model_event, m);
	if (tui_model_finish(m) < 0) {
		printf("FAIL: tui_model_finish: %s\n", perpi_error());
		return 1;
	}
	test_totals_and_histogram(m);
	test_functions(m);
	test_graph(m);
	test_critical(m);
	test_blocks(m);
	test_syscall();
	tui_model_delete(m);
	printf("%s\n", failures ? "FAIL" : "PASS: tui model");
	return failures != 0;
}
