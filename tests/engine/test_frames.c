/* Call instances on hand-built events: nesting, isolation, memory inside
 * and outside an instance, longjmp-style unwinding, tail calls, signals,
 * deep recursion. Every expected figure is derived by hand in the comment
 * above its check: c = 1 + max ready of the sources (0 if never written);
 * an instance sees everything from before it as ready at 0, and its ret
 * (the one at its entry RSP) is its last instruction. */
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

/* main -> f -> g, with the steps of every open instance worked out. */
static void test_nested(void)
{
	struct engine *e = fresh(NULL);
	/*                                whole/main   f    g
	 * m1 mov rax,1 (main's entry)        1
	 * m2 add rax,1                       2
	 * m3 call f: rsp, [S-8]              1
	 * f1 add rax,rax                     3        1   (rax from before f: 0)
	 * f2 call g: rsp (m3: 1)             2        1   (rsp from before f: 0)
	 * g1 add rax,rax                     4        2    1
	 * g2 ret: rsp 2, [S-16] 2            3        2    1  (both from before g)
	 *    g closes: I=2, C=1
	 * f3 add rax,rax                     5        3
	 * f4 ret: rsp (g2) 3, [S-8] (m3) 1   4        3  ([S-8] from before f: 0; rsp 2)
	 *    f closes: f1 f2 g1 g2 f3 f4
	 * m4 mov rcx,rax                     6
	 * m5 ret: rsp 4, [S] never           5
	 * f's instance holds f1 f2 g1 g2 f3 f4: I=6, C=3. main: all 11, C=6. */
	EV(e, .addr = 0x100, .dst = "rax", .flags = EVENT_CALL_ENTRY);
	EV(e, .src = "rax", .dst = "rax");
	ev_call(e);
	EV(e, .addr = 0x200, .src = "rax", .dst = "rax");
	ev_call(e);
	EV(e, .addr = 0x300, .src = "rax", .dst = "rax");
	ev_ret(e);
	EV(e, .src = "rax", .dst = "rax");
	ev_ret(e);
	EV(e, .src = "rax", .dst = "rcx");
	ev_ret(e);
	ev_check_totals("nested", e, 11, 6);
	ev_check_function("nested", e, 0x100, 11, 6, 1);
	ev_check_function("nested", e, 0x200, 6, 3, 1);
	ev_check_function("nested", e, 0x300, 2, 1, 1);
	engine_delete(e);
}

/* Two calls of the same function add up; main opens after an event, so its
 * instance does not share the whole run's state. */
static void test_two_calls(void)
{
	struct engine *e = fresh(NULL);
	/* p1 mov rax,1 before main: whole 1.
	 * m1 add rax,1 (main entry): whole 2, main 1 (rax from before main).
	 * m2 call f: whole 1, main 1.
	 * f1 add rax,rax: whole 3, main 2, f 1.   f2 add rax,rax: 4, 3, 2.
	 * f3 ret: rsp (m2) 1, [S-8] 1: whole 2, main 2, f 1. f#1: I=3, C=2.
	 * m3 call f (at S): rsp (f3) 2: whole 3, main 3.
	 * f1' add rax,rax: 5, 4, 1.  f2': 6, 5, 2.
	 * f3' ret: rsp 3, [S-8] 3: whole 4, main 4, f 1. f#2: I=3, C=2.
	 * m4 ret at S+0: rsp 4, [S] never: whole 5, main 5.
	 * f: I=6 (3 + 3), C=4 (2 + 2), 2 calls. main: every event but p1,
	 * I=10, C=5. Whole: I=11, C=6 (f2'). */
	EV(e, .dst = "rax");
	EV(e, .addr = 0x100, .src = "rax", .dst = "rax", .flags = EVENT_CALL_ENTRY);
	for (int i = 0; i < 2; i++) {
		ev_call(e);
		EV(e, .addr = 0x200, .src = "rax", .dst = "rax");
		EV(e, .src = "rax", .dst = "rax");
		ev_ret(e);
	}
	ev_ret(e);
	ev_check_totals("two calls", e, 11, 6);
	ev_check_function("two calls", e, 0x100, 10, 5, 1);
	ev_check_function("two calls", e, 0x200, 6, 4, 2);
	engine_delete(e);
}

/* Memory written inside an instance is tracked for it; memory from before
 * it is ready at 0 there, even at a deeper level. */
static void test_frame_memory(void)
{
	struct engine *e = fresh(NULL);
	/*                                        whole/main  f
	 * m1 mov rax,1 (entry)                        1
	 * m2 mov [0x5000],rax                         2
	 * m3 call f                                   1
	 * f1 mov rbx,[0x5000]                          3      1  (stored before f)
	 * f2 mov [0x5008],rbx                          4      2
	 * f3 mov rcx,[0x5004] (8 bytes: both stores)   5      3
	 * f4 ret: rsp 1, [S-8] 1                       2      1
	 * f: I=4, C=3. main (closed by engine_finish): I=7, C=5. */
	EV(e, .addr = 0x100, .dst = "rax", .flags = EVENT_CALL_ENTRY);
	EV(e, .src = "rax", .mem = "w:5000:8");
	ev_call(e);
	EV(e, .addr = 0x200, .dst = "rbx", .mem = "r:5000:8");
	EV(e, .src = "rbx", .mem = "w:5008:8");
	EV(e, .dst = "rcx", .mem = "r:5004:8");
	ev_ret(e);
	engine_finish(e);
	ev_check_totals("frame memory", e, 7, 5);
	ev_check_function("frame memory", e, 0x100, 7, 5, 1);
	ev_check_function("frame memory", e, 0x200, 4, 3, 1);
	engine_delete(e);
}

/* longjmp out of g and f back to main: both close, main goes on. */
static void test_longjmp(void)
{
	struct engine *e = fresh(NULL);
	/*                              whole/main  f  g
	 * m1 call f (main entry, S)        1
	 * f1 call g                        2       1
	 * g1 add rdx,1                     1       1  1
	 * g2 mov rsp,rdx (longjmp)         2       2  2
	 * m2 add rax,rsp at sp=S: closes g (I=2, C=2) then f (I=3, C=2);
	 *    rsp 2 -> whole/main 3
	 * m3 ret at S: rsp 2 -> 3. main: I=6, C=3. */
	EV(e, .addr = 0x100, .text = "call f", .src = "rsp", .dst = "rsp", .mem = "w:7fefff8:8",
	   .ctrl = CTRL_CALL, .flags = EVENT_CALL_ENTRY);
	ev_sp = S - 8;
	EV(e, .addr = 0x200, .text = "call g", .src = "rsp", .dst = "rsp", .mem = "w:7fefff0:8",
	   .ctrl = CTRL_CALL);
	ev_sp = S - 16;
	EV(e, .addr = 0x300, .src = "rdx", .dst = "rdx");
	EV(e, .src = "rdx", .dst = "rsp", .ctrl = CTRL_JUMP);
	ev_sp = S;
	EV(e, .src = "rsp rax", .dst = "rax");
	ev_check_function("longjmp", e, 0x200, 3, 2, 1);
	ev_check_function("longjmp", e, 0x300, 2, 2, 1);
	ev_ret(e);
	ev_check_totals("longjmp", e, 6, 3);
	ev_check_function("longjmp", e, 0x100, 6, 3, 1);
	engine_delete(e);
}

/* Unwinding only the innermost of three frames: A -> B -> C, C longjmps into
 * B's body; B then returns normally, A too. */
static void test_partial_unwind(void)
{
	struct engine *e = fresh(NULL);
	/*                                    whole/A  B  C
	 * a1 call B (A's entry at S)             1
	 * b1 sub rsp,32 (sp S-8)                 2    1
	 * b2 call C (sp S-40)                    3    2
	 * c1 mov rsp,rdx (sp S-48)               1    1  1
	 * b3 add rsp,32 at sp S-40 > S-48: C unwound (c1 only: I=1, C=1);
	 *    rsp (c1) 1 -> 2 in A and in B (c1 ran inside B)
	 * b4 ret at S-8 (B's key): rsp 2, [S-8] (a1: A 1, B none) -> A 3, B 3;
	 *    B closes: b1 b2 c1 b3 b4: I=5, C=3
	 * a2 ret at S: rsp 3 -> 4. A: I=7, C=4. */
	EV(e, .addr = 0x100, .text = "call B", .src = "rsp", .dst = "rsp", .mem = "w:7fefff8:8",
	   .ctrl = CTRL_CALL, .flags = EVENT_CALL_ENTRY);
	ev_sp = S - 8;
	EV(e, .addr = 0x200, .src = "rsp", .dst = "rsp");
	ev_sp = S - 40;
	EV(e, .text = "call C", .src = "rsp", .dst = "rsp", .mem = "w:7feffd0:8", .ctrl = CTRL_CALL);
	ev_sp = S - 48;
	EV(e, .addr = 0x300, .src = "rdx", .dst = "rsp", .ctrl = CTRL_JUMP);
	ev_sp = S - 40;
	EV(e, .src = "rsp", .dst = "rsp");
	ev_check_function("partial unwind", e, 0x300, 1, 1, 1);
	ev_sp = S - 8;
	ev_ret(e);
	ev_check_function("partial unwind", e, 0x200, 5, 3, 1);
	ev_ret(e);
	ev_check_totals("partial unwind", e, 7, 4);
	ev_check_function("partial unwind", e, 0x100, 7, 4, 1);
	engine_delete(e);
}

/* f tail-calls h with a jmp: h runs in f's instance, its ret closes f. */
static void test_tail_call(void)
{
	struct engine *e = fresh(NULL);
	const struct engine_function *fns;
	/*                            whole/main  f
	 * m1 call f (main entry)         1
	 * f1 add rax,1                   1       1
	 * f2 jmp h                       1       1
	 * h1 add rax,1                   2       2
	 * h2 ret at S-8: rsp 1, [S-8] 1  2       1   -> f: I=4, C=2
	 * m2 ret at S: rsp 2             3           -> main: I=6, C=3 */
	EV(e, .addr = 0x100, .text = "call f", .src = "rsp", .dst = "rsp", .mem = "w:7fefff8:8",
	   .ctrl = CTRL_CALL, .flags = EVENT_CALL_ENTRY);
	ev_sp = S - 8;
	EV(e, .addr = 0x200, .src = "rax", .dst = "rax");
	EV(e, .text = "jmp h", .ctrl = CTRL_JUMP, .klass = CLASS_BRANCH);
	EV(e, .addr = 0x300, .src = "rax", .dst = "rax");
	ev_ret(e);
	ev_ret(e);
	ev_check_totals("tail call", e, 6, 3);
	ev_check_function("tail call", e, 0x100, 6, 3, 1);
	ev_check_function("tail call", e, 0x200, 4, 2, 1);
	ev_check_function("tail call", e, 0x300, 0, 0, 0);
	ev_check("tail call: functions", engine_functions(e, &fns), 2);
	engine_delete(e);
}

/* A signal handler opens an instance; the program exits inside main. */
static void test_signal(void)
{
	struct engine *e = fresh(NULL);
	struct engine_totals t;
	/*                                   whole/main  handler
	 * m1 mov rax,1 (main entry, S)          1
	 * h1 add rax,rax (handler, S-0x300)     2         1
	 * h2 ret at S-0x300: rsp, mem never     1         1  -> I=2, C=1
	 * r1 sigreturn syscall at S-0x2f8: reads rax (2), writes rsp: ready 2
	 * m2 add rbx,rsp at S: 3. finish closes main: I=4, C=3. */
	EV(e, .addr = 0x100, .dst = "rax", .flags = EVENT_CALL_ENTRY);
	ev_sp = S - 0x300;
	EV(e, .addr = 0x900, .src = "rax", .dst = "rax", .flags = EVENT_SIGNAL_ENTRY);
	ev_ret(e);
	EV(e, .text = "syscall", .src = "rax", .dst = "rsp rax", .flags = EVENT_NOT_COUNTED,
	   .ctrl = CTRL_SYSCALL, .klass = CLASS_OTHER);
	ev_sp = S;
	EV(e, .src = "rsp rbx", .dst = "rbx");
	ev_check_function("signal", e, 0x900, 2, 1, 1);
	ev_check_function("signal", e, 0x100, 0, 0, 0); /* still open */
	engine_finish(e);
	ev_check_function("signal", e, 0x100, 4, 3, 1);
	ev_check_totals("signal", e, 4, 3);
	engine_totals(e, &t);
	ev_check("signal: syscalls", t.syscalls, 1);
	engine_delete(e);
}

/* A signal arrives between a call and its callee's first instruction: the
 * callee's instance opens when the program gets back to it. */
static void test_signal_at_call(void)
{
	struct engine *e = fresh(NULL);
	/*                                          whole/main  handler  f
	 * m1 call f (main entry, at S)                  1
	 * h1 add rax,rax (handler, at S-0x400)          1        1
	 * h2 ret at S-0x400: rsp (m1) 1, writes rsp     2        1   -> I=2, C=1
	 * r1 mov eax,15 (sigreturn stub, S-0x3f8)       1
	 * r2 syscall: reads rax (1): rax rcx r11 ready 1, not counted
	 * f1 add rcx,rcx (f's entry, at S-8)            2                 1
	 * f2 ret at S-8: rsp (h2) 2, [S-8] (m1) 1       3                 1
	 *    (in f both come from before it)  f: I=2, C=1
	 * m2 ret at S: rsp (f2) 3                       4
	 * main: I=7, C=4. */
	EV(e, .addr = 0x100, .text = "call f", .src = "rsp", .dst = "rsp", .mem = "w:7fefff8:8",
	   .ctrl = CTRL_CALL, .flags = EVENT_CALL_ENTRY);
	ev_sp = S - 0x400;
	EV(e, .addr = 0x900, .src = "rax", .dst = "rax", .flags = EVENT_SIGNAL_ENTRY);
	ev_ret(e);
	EV(e, .dst = "rax");
	EV(e, .text = "syscall", .src = "rax", .dst = "rax rcx r11", .flags = EVENT_NOT_COUNTED,
	   .ctrl = CTRL_SYSCALL);
	ev_sp = S - 8;
	EV(e, .addr = 0x200, .src = "rcx", .dst = "rcx");
	ev_ret(e);
	ev_ret(e);
	ev_check_totals("signal at call", e, 7, 4);
	ev_check_function("signal at call", e, 0x900, 2, 1, 1);
	ev_check_function("signal at call", e, 0x200, 2, 1, 1);
	ev_check_function("signal at call", e, 0x100, 7, 4, 1);
	engine_delete(e);
}

/* A handler on an alternate stack above the program's: its sigreturn stub
 * runs above every open instance, which must not be taken as unwinding. */
static void test_sigaltstack(void)
{
	struct engine *e = fresh(NULL);
	const uint64_t A = 0x9000000; /* the alternate stack */
	/*                                          whole/main  g   handler
	 * m1 add rax,rax (main entry, at S)             1
	 * m2 call g                                     1
	 * g1 add rax,rax (at S-8)                       2      1
	 * h1 add rbx,rbx (handler, at A)                1      1   1
	 * h2 ret at A: rsp (m2) 1, [A] never            2      1   1  -> I=2, C=1
	 *    (in g, rsp comes from before g: 1)
	 * r1 mov eax,15 at A+8 (above g and main)       1      1
	 * r2 syscall at A+8, reads rax: not counted
	 * g2 ret at S-8: rsp (h2) 2, [S-8] (m2) 1       3      2  (in g: rsp
	 *    from h2, which ran inside g (1); [S-8] from before g)
	 * g: g1 h1 h2 r1 g2: I=5, C=2.
	 * m3 ret at S: rsp (g2) 3                       4
	 * main: I=8, C=4. */
	EV(e, .addr = 0x100, .src = "rax", .dst = "rax", .flags = EVENT_CALL_ENTRY);
	ev_call(e);
	EV(e, .addr = 0x200, .src = "rax", .dst = "rax");
	EV(e, .addr = 0x900, .src = "rbx", .dst = "rbx", .flags = EVENT_SIGNAL_ENTRY, .sp = A);
	EV(e, .text = "ret", .src = "rsp", .dst = "rsp", .mem = "r:9000000:8", .ctrl = CTRL_RET,
	   .sp = A);
	EV(e, .dst = "rax", .sp = A + 8);
	EV(e, .text = "syscall", .src = "rax", .dst = "rax rcx r11", .flags = EVENT_NOT_COUNTED,
	   .ctrl = CTRL_SYSCALL, .sp = A + 8);
	ev_ret(e);
	ev_check_function("sigaltstack", e, 0x900, 2, 1, 1);
	ev_check_function("sigaltstack", e, 0x200, 5, 2, 1);
	ev_ret(e);
	ev_check_totals("sigaltstack", e, 8, 4);
	ev_check_function("sigaltstack", e, 0x100, 8, 4, 1);
	engine_delete(e);
}

/* A recursion N deep, past the frame array's growth and the depth warning:
 * main calls r; levels 1..N-1 of r call r; level N returns; every level
 * returns. Every event reads rsp, so the whole run is one chain:
 * whole/main: N calls then N + 1 rets: I = C = 2N + 1.
 * Level i in isolation: its N - i calls (steps 1..N-i), then N - i + 1 rets
 * (the ret of level i reads the return address the caller wrote before the
 * instance: 0; its rsp from the ret before): I_i = C_i = 2(N - i) + 1.
 * r over its N instances: I = C = sum of 2(N - i) + 1 for i = 1..N = N^2. */
static void test_deep_recursion(void)
{
	enum { N = 4200 }; /* just past the warning at 4096 */
	struct engine *e = fresh(NULL);
	EV(e, .addr = 0x100, .text = "call r", .src = "rsp", .dst = "rsp", .mem = "w:7fefff8:8",
	   .ctrl = CTRL_CALL, .klass = CLASS_BRANCH, .flags = EVENT_CALL_ENTRY);
	char mem[64];
	for (int i = 1; i < N; i++) { /* level i's call, at r's entry 0x200 */
		ev_sp = S - 8 * i;
		snprintf(mem, sizeof(mem), "w:%llx:8", (unsigned long long)(ev_sp - 8));
		EV(e, .addr = 0x200, .text = "call r", .src = "rsp", .dst = "rsp", .mem = mem,
		   .ctrl = CTRL_CALL, .klass = CLASS_BRANCH);
	}
	for (int i = N; i >= 1; i--) { /* level i's ret; level N's is at r's entry */
		ev_sp = S - 8 * i;
		snprintf(mem, sizeof(mem), "r:%llx:8", (unsigned long long)ev_sp);
		EV(e, .addr = i == N ? 0x200 : 0x205, .text = "ret", .src = "rsp", .dst = "rsp",
		   .mem = mem, .ctrl = CTRL_RET, .klass = CLASS_BRANCH);
	}
	ev_sp = S;
	ev_ret(e);
	ev_check_totals("deep recursion", e, 2 * N + 1, 2 * N + 1);
	ev_check_function("deep recursion", e, 0x100, 2 * N + 1, 2 * N + 1, 1);
	ev_check_function("deep recursion", e, 0x200, (uint64_t)N * N, (uint64_t)N * N, N);
	engine_finish(e);
	ev_check("deep recursion: functions", engine_functions(e, &(const struct engine_function *){0}),
		 2);
	engine_delete(e);
}

/* Within one page, bytes written before a call and bytes written inside it
 * are told apart; an access spanning two of a frame's pages too. */
static void test_frame_pages(void)
{
	struct engine *e = fresh(NULL);
	/*                                          whole/main  f
	 * m1 add rax,rax (main entry)                   1
	 * m2 add rax,rax                                2
	 * m3 mov [0x6000],rax                           3
	 * m4 call f                                     1
	 * f1 add rcx,rcx                                1      1
	 * f2 add rcx,rcx                                2      2
	 * f3 mov [0x6010],rcx (same page as 0x6000)     3      3
	 * f4 mov rdx,[0x6000] (written before f)        4      1
	 * f5 mov rsi,[0x6010]                           4      4
	 * f6 mov rdi,[0x6008] (never written)           1      1
	 * f7 mov [0x6100],rsi                           5      5
	 * f8 movups xmm0,[0x60f8] (16 bytes: 0x60f8-0x6107, the last 8 from f7)
	 *                                               6      6
	 * f9 ret: rsp, [S-8] from m4 (1)                2      1
	 * f: I=9, C=6.
	 * m5 mov r9,[0x6100]                            6
	 * m6 mov r8,[0x9000] (a page never written)     1
	 * main (closed by engine_finish): I=15, C=6. */
	EV(e, .addr = 0x100, .src = "rax", .dst = "rax", .flags = EVENT_CALL_ENTRY);
	EV(e, .src = "rax", .dst = "rax");
	EV(e, .src = "rax", .mem = "w:6000:8");
	ev_call(e);
	EV(e, .addr = 0x200, .src = "rcx", .dst = "rcx");
	EV(e, .src = "rcx", .dst = "rcx");
	EV(e, .src = "rcx", .mem = "w:6010:8");
	EV(e, .dst = "rdx", .mem = "r:6000:8");
	EV(e, .dst = "rsi", .mem = "r:6010:8");
	EV(e, .dst = "rdi", .mem = "r:6008:8");
	EV(e, .src = "rsi", .mem = "w:6100:8");
	EV(e, .dst = "v0.0", .mem = "r:60f8:16");
	ev_ret(e);
	ev_check_function("frame pages", e, 0x200, 9, 6, 1);
	EV(e, .dst = "r9", .mem = "r:6100:8");
	EV(e, .dst = "r8", .mem = "r:9000:8");
	engine_finish(e);
	ev_check_totals("frame pages", e, 15, 6);
	ev_check_function("frame pages", e, 0x100, 15, 6, 1);
	engine_delete(e);
}

/* A call whose callee was not traced (a gap in the trace: the next event is
 * back in the caller, not 8 bytes below the call) opens no instance. */
static void test_untraced_callee(void)
{
	struct engine *e = fresh(NULL);
	const struct engine_function *fns;
	/* m1 call at S (main's entry)        1
	 * m2 add rax,rax at S (after the gap) 1
	 * m3 ret at S: rsp (m1) 1             2   -> main: I=3, C=2, alone */
	EV(e, .addr = 0x100, .text = "call f", .src = "rsp", .dst = "rsp", .mem = "w:7fefff8:8",
	   .ctrl = CTRL_CALL, .flags = EVENT_CALL_ENTRY);
	EV(e, .src = "rax", .dst = "rax");
	ev_ret(e);
	ev_check_totals("untraced callee", e, 3, 2);
	ev_check_function("untraced callee", e, 0x100, 3, 2, 1);
	ev_check("untraced callee: functions", engine_functions(e, &fns), 1);
	engine_delete(e);
}

/* A handler's ret not followed by a sigreturn syscall: unwinding waits 8
 * events at most, then resumes. */
static void test_sigreturn_bound(void)
{
	struct engine *e = fresh(NULL);
	const uint64_t A = 0x9000000; /* an alternate stack above S */
	/* m1 (main entry, S) 1; m2 call g 1; g1 (S-8) 1; h1 (handler, A) 1;
	 * h2 ret at A: rsp (m2) 2, in g 1 (rsp from before g); x1..x8 at A+8,
	 * no source: 1 each, no unwinding; x9 at A+8 unwinds g (g1 h1 h2
	 * x1..x8: I=11, C=1) and main (I=13, C=2), then runs outside both. */
	EV(e, .addr = 0x100, .flags = EVENT_CALL_ENTRY);
	ev_call(e);
	EV(e, .addr = 0x200);
	EV(e, .addr = 0x900, .flags = EVENT_SIGNAL_ENTRY, .sp = A);
	EV(e, .text = "ret", .src = "rsp", .dst = "rsp", .mem = "r:9000000:8", .ctrl = CTRL_RET,
	   .sp = A);
	for (int i = 0; i < 8; i++)
		EV(e, .sp = A + 8);
	ev_check_function("sigreturn bound: before", e, 0x200, 0, 0, 0);
	EV(e, .sp = A + 8);
	ev_check_function("sigreturn bound", e, 0x200, 11, 1, 1);
	ev_check_function("sigreturn bound", e, 0x100, 13, 2, 1);
	ev_check_totals("sigreturn bound", e, 14, 2);
	engine_delete(e);
}

int main(void)
{
	test_nested();
	test_two_calls();
	test_frame_memory();
	test_frame_pages();
	test_longjmp();
	test_partial_unwind();
	test_tail_call();
	test_signal();
	test_signal_at_call();
	test_sigaltstack();
	test_deep_recursion();
	test_untraced_callee();
	test_sigreturn_bound();
	if (ev_failures) {
		printf("%d failures\n", ev_failures);
		return 1;
	}
	printf("frames: all checks passed\n");
	return 0;
}
