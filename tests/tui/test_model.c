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

	struct tui_histogram *h = tui_model_function_histogram(m, 0, TUI_NONE);
	struct tui_bin b1, b2;
	tui_histogram_bin(h, 1, 1, &b1);
	tui_histogram_bin(h, 2, 2, &b2);
	EXPECT(h->steps == 2 && h->insns == 8, "f's histogram: %lu steps, %lu insns, want 2, 8",
	       (unsigned long)h->steps, (unsigned long)h->insns);
	EXPECT(b1.total == 6 && b1.count[CLASS_INT] == 2 && b1.count[CLASS_MOVE] == 2 &&
		       b1.count[CLASS_BRANCH] == 2,
	       "f step 1");
	EXPECT(b2.total == 2 && b2.count[CLASS_INT] == 2, "f step 2");
	tui_histogram_delete(h);
	/* One call: step 1 holds add, mov rcx, ret; step 2 the imul. */
	h = tui_model_function_histogram(m, 0, f->first_call);
	tui_histogram_bin(h, 1, 1, &b1);
	tui_histogram_bin(h, 2, 2, &b2);
	EXPECT(h->steps == 2 && b1.count[CLASS_INT] == 1 && b1.count[CLASS_BRANCH] == 1 &&
		       b1.count[CLASS_MOVE] == 1 && b2.total == 1 && b2.count[CLASS_INT] == 1,
	       "f's first call");
	tui_histogram_delete(h);
	/* The model's kept copies (what the screens use): the same hand-derived
	 * figures, and the same copy when asked again. */
	const struct tui_histogram *all = tui_model_cached_histogram(m, 0, TUI_NONE);
	const struct tui_histogram *one = tui_model_cached_histogram(m, 0, f->first_call);
	EXPECT(all && all->steps == 2 && all->insns == 8, "kept: f's histogram");
	if (all) {
		tui_histogram_bin(all, 1, 1, &b1);
		EXPECT(b1.total == 6 && b1.count[CLASS_BRANCH] == 2, "kept: f step 1");
	}
	EXPECT(one && one != all && one->steps == 2 && one->insns == 4, "kept: f's first call");
	if (one) {
		tui_histogram_bin(one, 2, 2, &b2);
		EXPECT(b2.total == 1 && b2.count[CLASS_INT] == 1, "kept: f's first call, step 2");
	}
	EXPECT(tui_model_cached_histogram(m, 0, TUI_NONE) == all &&
		       tui_model_cached_histogram(m, 0, f->first_call) == one,
	       "kept histograms returned again");
	EXPECT(!tui_model_cached_histogram(m, 7, TUI_NONE), "no function 7");
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

/* The benchmark's loop inside one call (synth.c): 60,000 iterations of 10
 * instructions, 600,000 > TUI_PRECOMPUTE_INSNS, so its histogram is made
 * at load; it must hold every instruction of the call (the call itself is
 * the caller's) and match one made afresh bin for bin. */
static void test_kept_loop(void)
{
	struct tui_model *m = tui_model_new(NULL, &synth_symbols);
	synth_replay_loop(tui_model_event, m, 60000);
	if (tui_model_finish(m) < 0) {
		printf("FAIL: tui_model_finish (loop): %s\n", perpi_error());
		failures++;
		tui_model_delete(m);
		return;
	}
	const struct tui_function *f;
	size_t n = tui_model_functions(m, &f);
	EXPECT(n == 1 && f->calls == 1, "loop: one function called once");
	const struct tui_histogram *kept = n ? tui_model_cached_histogram(m, 0, TUI_NONE) : NULL;
	struct tui_histogram *fresh = n ? tui_model_function_histogram(m, 0, TUI_NONE) : NULL;
	EXPECT(kept && kept->insns == 600000, "loop: kept histogram of 600000 instructions");
	EXPECT(n && tui_model_cached_histogram(m, 0, f->first_call) == kept,
	       "loop: the only call shares the function's histogram");
	if (kept && fresh) {
		EXPECT(kept->steps == fresh->steps, "loop: steps");
		for (uint64_t s = 1; s + 999 <= kept->steps; s += 7919) {
			struct tui_bin a, b;
			tui_histogram_bin(kept, s, s + 999, &a);
			tui_histogram_bin(fresh, s, s + 999, &b);
			EXPECT(!memcmp(a.count, b.count, sizeof(a.count)), "loop: bin at step %lu",
			       (unsigned long)s);
		}
	}
	tui_histogram_delete(fresh);
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
	test_syscall();
	test_kept_loop();
	tui_model_delete(m);
	printf("%s\n", failures ? "FAIL" : "PASS: tui model");
	return failures != 0;
}
