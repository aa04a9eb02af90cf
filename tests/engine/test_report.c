/* The PerPI text report on hand-built runs: figures derived by hand below,
 * layout as report.h specifies (columns padded to the widest entry). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ilp/report.h"
#include "tests/engine/evbuild.h"

#define S 0x7ff0000ull

static const char *names(void *ctx, uint64_t addr)
{
	switch (addr) {
	case 0x100: return "main";
	case 0x200: return "f";
	case 0x300: return "g";
	default: return NULL; /* 0x400 has no symbol */
	}
}

static void expect_report(const char *test, struct engine *e, const char *want)
{
	char *got = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&got, &len);
	if (report_text(out, e, names, NULL) < 0)
		ev_check("report_text status", 1, 0);
	fclose(out);
	if (strcmp(got, want)) {
		printf("FAIL: %s: report\n--- got\n%s--- want\n%s", test, got, want);
		ev_failures++;
	}
	free(got);
}

/* Whole run and main (main opens on the first event, so they coincide):
 * m1 mov rax,1 (main)        1
 * m2 call f (at S)           1   rsp never written
 * f1 mov rbx,1               1   f: 1
 * f2 ret                     2   rsp 1, [S-8] 1; f: 1  -> f: I=2, C=1
 * m3 call g                  3   rsp 2
 * g1 mov rcx,1               1   g: 1
 * g2 ret                     4   rsp 3, [S-8] 3; g: 1  -> g: I=2, C=1
 * m4 call h                  5   rsp 4
 * h1 add rax,1               2   rax (m1) 1; h: 1
 * h2 add rax,1               3   h: 2
 * h3 ret                     6   rsp 5, [S-8] 5; h: 1  -> h: I=3, C=2
 * m5 syscall reads rax (3), writes rax: ready 3, not counted
 * m6 undecodable, rax        4
 * m7 ret (at S)              7   rsp 6, [S] never
 * main: I=13, C=7, ILP 13/7 = 1.857 -> 1.86; h 3/2 = 1.50; f, g 2.00.
 * Classes: int m1 f1 g1 h1 h2 = 5; branch m2 f2 m3 g2 m4 h3 m7 = 7; other m6.
 * Sorted by I: main 13, 0x400 3, then f and g (2 each) by name. */
static void test_table(void)
{
	struct engine *e = engine_new(NULL);
	ev_sp = S;
	EV(e, .addr = 0x100, .dst = "rax", .flags = EVENT_CALL_ENTRY);
	ev_call(e);
	EV(e, .addr = 0x200, .dst = "rbx");
	ev_ret(e);
	ev_call(e);
	EV(e, .addr = 0x300, .dst = "rcx");
	ev_ret(e);
	ev_call(e);
	EV(e, .addr = 0x400, .src = "rax", .dst = "rax");
	EV(e, .src = "rax", .dst = "rax");
	ev_ret(e);
	EV(e, .text = "syscall", .src = "rax", .dst = "rax", .flags = EVENT_NOT_COUNTED,
	   .ctrl = CTRL_SYSCALL, .klass = CLASS_OTHER);
	EV(e, .text = "(bad)", .src = "rax", .dst = "rax", .flags = EVENT_UNKNOWN,
	   .klass = CLASS_OTHER);
	ev_ret(e);
	engine_finish(e);
	expect_report("table", e,
		      "main      :: I [13] :: C [7] :: ILP [1.86] (1 call)\n"
		      "0x400     :: I [3]  :: C [2] :: ILP [1.50] (1 call)\n"
		      "f         :: I [2]  :: C [1] :: ILP [2.00] (1 call)\n"
		      "g         :: I [2]  :: C [1] :: ILP [2.00] (1 call)\n"
		      "whole run :: I [13] :: C [7] :: ILP [1.86]\n"
		      "instructions by class: load 0, store 0, int 5, fp 0, vec 0, move 0, "
		      "branch 7, other 1\n"
		      "syscalls: 1 (not counted in I)\n"
		      "warning: 1 undecoded instructions (counted, with conservative "
		      "dependencies)\n");
	engine_delete(e);
}

/* main calls f twice and exits from inside (engine_finish closes it):
 * m1 call f 1; f1 1 (f 1); ret 2 (f 1); m2 call f 3; f1 1 (f 1); ret 4 (f 1).
 * main: I=6, C=4, 1.50; f: I=4, C=1+1=2, 2.00, 2 calls. */
static void test_plural(void)
{
	struct engine *e = engine_new(NULL);
	ev_sp = S;
	EV(e, .addr = 0x100, .text = "call f", .src = "rsp", .dst = "rsp", .mem = "w:7fefff8:8",
	   .ctrl = CTRL_CALL, .klass = CLASS_BRANCH, .flags = EVENT_CALL_ENTRY);
	ev_sp = S - 8;
	EV(e, .addr = 0x200, .dst = "rbx", .klass = CLASS_MOVE);
	ev_ret(e);
	ev_call(e);
	EV(e, .addr = 0x200, .dst = "rbx", .klass = CLASS_MOVE);
	ev_ret(e);
	engine_finish(e);
	expect_report("plural", e,
		      "main      :: I [6] :: C [4] :: ILP [1.50] (1 call)\n"
		      "f         :: I [4] :: C [2] :: ILP [2.00] (2 calls)\n"
		      "whole run :: I [6] :: C [4] :: ILP [1.50]\n"
		      "instructions by class: load 0, store 0, int 0, fp 0, vec 0, move 2, "
		      "branch 4, other 0\n"
		      "syscalls: 0 (not counted in I)\n");
	engine_delete(e);
}

int main(void)
{
	test_table();
	test_plural();
	if (ev_failures) {
		printf("%d failures\n", ev_failures);
		return 1;
	}
	printf("report: all checks passed\n");
	return 0;
}
