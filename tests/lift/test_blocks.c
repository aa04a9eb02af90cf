/* Basic blocks on synthetic event streams (ilp/blocks.h). Each case lists
 * the instructions executed, and the blocks and counts are derived by hand
 * in the comments; the per-function instruction counts are also checked
 * against the engine's I_f (a second, independent frame tracker). */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "ilp/blocks.h"
#include "ilp/engine.h"

static int failures;

#define CHECK(what, got, want)                                                                     \
	do {                                                                                       \
		uint64_t g_ = (got), w_ = (want);                                                  \
		if (g_ != w_) {                                                                    \
			printf("FAIL: %s: %s = %" PRIu64 ", want %" PRIu64 "\n", test, what, g_,   \
			       w_);                                                                \
			failures++;                                                                \
		}                                                                                  \
	} while (0)

static struct perpi_insn insns[64];
static size_t ninsns;

static const struct perpi_insn *insn_at(uint64_t addr, unsigned len, int ctrl)
{
	for (size_t i = 0; i < ninsns; i++)
		if (insns[i].addr == addr)
			return &insns[i];
	struct perpi_insn *in = &insns[ninsns];
	memset(in, 0, sizeof(*in));
	in->addr = addr;
	in->len = (uint8_t)len;
	in->control = (uint8_t)ctrl;
	in->id = (uint32_t)ninsns++;
	snprintf(in->text, sizeof(in->text), "op%" PRIx64, addr);
	return in;
}

static struct blocks *blocks;
static struct engine *engine;

static void feed(uint64_t addr, unsigned len, int ctrl, uint64_t sp, int flags)
{
	static struct perpi_event ev; /* large: keep it off the stack */
	memset(&ev, 0, sizeof(ev));
	ev.insn = insn_at(addr, len, ctrl);
	ev.sp = sp;
	ev.flags = (uint16_t)flags;
	blocks_event(blocks, &ev);
	engine_event(engine, &ev);
}

/* An event with its dependency units and one memory access. */
static void feed_deps(uint64_t addr, int ctrl, const uint8_t *src, unsigned nsrc,
		      const uint8_t *dst, unsigned ndst, uint64_t maddr, unsigned msize, int write)
{
	static struct perpi_event ev;
	memset(&ev, 0, sizeof(ev));
	ev.insn = insn_at(addr, 4, ctrl);
	ev.sp = 0x7ff000;
	if (nsrc) /* src may be NULL: memcpy wants a pointer even for 0 bytes */
		memcpy(ev.src, src, nsrc);
	if (ndst)
		memcpy(ev.dst, dst, ndst);
	ev.n_src = (uint8_t)nsrc;
	ev.n_dst = (uint8_t)ndst;
	if (msize) {
		ev.n_mem = 1;
		ev.mem[0] = (struct perpi_mem_access){maddr, msize, (uint8_t)write};
	}
	blocks_ilp_event(blocks, &ev);
}

static void start(void)
{
	ninsns = 0;
	blocks = blocks_new();
	engine = engine_new(NULL);
}

static void stop(void)
{
	blocks_delete(blocks);
	engine_delete(engine);
}

static const struct block *block_at(const char *test, uint64_t addr)
{
	const struct block *b;
	size_t n = blocks_list(blocks, &b);
	for (size_t i = 0; i < n; i++)
		if (b[i].addr == addr)
			return &b[i];
	printf("FAIL: %s: no block at 0x%" PRIx64 "\n", test, addr);
	failures++;
	return NULL;
}

static void check_block(const char *test, uint64_t addr, size_t n, uint64_t occ, uint64_t insns)
{
	const struct block *b = block_at(test, addr);
	if (!b)
		return;
	CHECK("static instructions", b->n, n);
	CHECK("occurrences", b->occurrences, occ);
	CHECK("dynamic instructions", b->insns_executed, insns);
}

static void check_nblocks(const char *test, size_t want)
{
	const struct block *b;
	CHECK("blocks", blocks_list(blocks, &b), want);
}

/* A function's calls and I, and that they equal the engine's. */
static void check_function(const char *test, uint64_t entry, uint64_t calls, uint64_t insns)
{
	const struct blocks_function *f = blocks_function(blocks, entry);
	const struct engine_function *ef;
	size_t n = engine_functions(engine, &ef);
	uint64_t ecalls = 0, einsns = 0;
	for (size_t i = 0; i < n; i++)
		if (ef[i].entry == entry) {
			ecalls = ef[i].calls;
			einsns = ef[i].insns;
		}
	CHECK("calls", f ? f->calls : 0, calls);
	CHECK("I_f", f ? f->insns : 0, insns);
	CHECK("engine calls", ecalls, calls);
	CHECK("engine I_f", einsns, insns);
}

/* The function's occurrences of the block at addr. */
static uint64_t share(uint64_t entry, uint64_t addr)
{
	const struct blocks_function *f = blocks_function(blocks, entry);
	const struct block *b;
	blocks_list(blocks, &b);
	for (size_t s = 0; f && s < f->n; s++)
		if (b[f->shares[s].block].addr == addr)
			return f->shares[s].occurrences;
	return 0;
}

static void finish(void)
{
	blocks_finish(blocks);
	engine_finish(engine);
}

#define S 0x7ff000

/* 0x100 mov; 0x104 add; 0x108 cmp; 0x10c jne 0x104; 0x10e nop; 0x10f hlt.
 * The loop runs 5 times: 0x100, (0x104 0x108 0x10c) x 5, 0x10e, 0x10f.
 * 0x104 is a jump target (iterations 2-5), so it starts a block although
 * the first iteration fell into it: [0x100] x1, [0x104..0x10c] x5 (15
 * instructions), [0x10e 0x10f] x1 (0x10e follows the jne). */
static void test_loop(void)
{
	const char *test = "loop";
	start();
	feed(0x100, 4, CTRL_NONE, S, 0);
	for (int i = 0; i < 5; i++) {
		feed(0x104, 4, CTRL_NONE, S, 0);
		feed(0x108, 4, CTRL_NONE, S, 0);
		feed(0x10c, 2, CTRL_COND_JUMP, S, 0);
	}
	feed(0x10e, 1, CTRL_NONE, S, 0);
	feed(0x10f, 1, CTRL_OTHER, S, 0);
	finish();
	check_nblocks(test, 3);
	check_block(test, 0x100, 1, 1, 1);
	check_block(test, 0x104, 3, 5, 15);
	check_block(test, 0x10e, 2, 1, 2);
	CHECK("whole run I", blocks_insns(blocks), 18);
	stop();
}

/* main: 0x200 call f; 0x205 call f; 0x20a hlt.
 * f: 0x300 op; 0x304 op; 0x308 call g; 0x30d ret.   g: 0x400 op; 0x404 ret.
 * Each call of f runs 0x300 0x304 0x308 | 0x400 0x404 | 0x30d: 6
 * instructions, g's 2 of them. Blocks: [0x200], [0x205], [0x20a] once;
 * [0x300 0x304 0x308] twice (a call ends it), [0x400 0x404] twice,
 * [0x30d] twice (a return target). f: 2 calls, I = 12, and its callee's
 * block [0x400] counts in f too (inclusive); g: 2 calls, I = 4. */
static void test_calls(void)
{
	const char *test = "calls";
	start();
	for (int k = 0; k < 2; k++) {
		feed(0x200 + 5 * k, 5, CTRL_CALL, S, 0);
		feed(0x300, 4, CTRL_NONE, S - 8, 0);
		feed(0x304, 4, CTRL_NONE, S - 8, 0);
		feed(0x308, 5, CTRL_CALL, S - 8, 0);
		feed(0x400, 4, CTRL_NONE, S - 16, 0);
		feed(0x404, 1, CTRL_RET, S - 16, 0);
		feed(0x30d, 1, CTRL_RET, S - 8, 0);
	}
	feed(0x20a, 1, CTRL_OTHER, S, 0);
	finish();
	check_nblocks(test, 6);
	check_block(test, 0x200, 1, 1, 1);
	check_block(test, 0x205, 1, 1, 1);
	check_block(test, 0x20a, 1, 1, 1);
	check_block(test, 0x300, 3, 2, 6);
	check_block(test, 0x400, 2, 2, 4);
	check_block(test, 0x30d, 1, 2, 2);
	check_function(test, 0x300, 2, 12);
	check_function(test, 0x400, 2, 4);
	CHECK("f's share of [0x300]", share(0x300, 0x300), 2);
	CHECK("f's share of g's block", share(0x300, 0x400), 2);
	CHECK("f's share of [0x30d]", share(0x300, 0x30d), 2);
	CHECK("g's share of [0x300]", share(0x400, 0x300), 0);
	CHECK("g's share of [0x400]", share(0x400, 0x400), 2);
	stop();
}

/* 0x500 rep movsb (4 iterations); 0x502 hlt. The iterations are one
 * start: one block [0x500 0x502], one occurrence, 5 instructions. */
static void test_rep(void)
{
	const char *test = "rep";
	start();
	for (int i = 0; i < 4; i++)
		feed(0x500, 2, CTRL_NONE, S, 0);
	feed(0x502, 1, CTRL_OTHER, S, 0);
	finish();
	check_nblocks(test, 1);
	check_block(test, 0x500, 2, 1, 5);
	stop();
}

/* 0x600 a; 0x604 b; 0x608 c; 0x60c jcc 0x604 (taken once); 0x60e hlt.
 * Run: 600 604 608 60c 604 608 60c 60e. The jump into the straight run
 * seen first splits it: [0x600] x1, [0x604 0x608 0x60c] x2, [0x60e] x1. */
static void test_late_split(void)
{
	const char *test = "late split";
	start();
	feed(0x600, 4, CTRL_NONE, S, 0);
	for (int i = 0; i < 2; i++) {
		feed(0x604, 4, CTRL_NONE, S, 0);
		feed(0x608, 4, CTRL_NONE, S, 0);
		feed(0x60c, 2, CTRL_COND_JUMP, S, 0);
	}
	feed(0x60e, 1, CTRL_OTHER, S, 0);
	finish();
	check_nblocks(test, 3);
	check_block(test, 0x600, 1, 1, 1);
	check_block(test, 0x604, 3, 2, 6);
	check_block(test, 0x60e, 1, 1, 1);
	stop();
}

/* 0x700 a; 0x704 b; a signal: handler 0x800 op, 0x804 syscall (sigreturn,
 * not counted) on a lower stack; back to 0x708 c; 0x70c hlt. 0x708 is
 * reached from the sigreturn: a block start. Blocks [0x700 0x704],
 * [0x800 0x804] (1 counted), [0x708 0x70c]; the handler is a frame of 1
 * counted instruction, closed when the stack pointer rises again. */
static void test_signal(void)
{
	const char *test = "signal";
	start();
	feed(0x700, 4, CTRL_NONE, S, 0);
	feed(0x704, 4, CTRL_NONE, S, 0);
	feed(0x800, 4, CTRL_NONE, S - 0x1000, EVENT_SIGNAL_ENTRY);
	feed(0x804, 2, CTRL_SYSCALL, S - 0x1000, EVENT_NOT_COUNTED);
	feed(0x708, 4, CTRL_NONE, S, 0);
	feed(0x70c, 1, CTRL_OTHER, S, 0);
	finish();
	check_nblocks(test, 3);
	check_block(test, 0x700, 2, 1, 2);
	check_block(test, 0x800, 2, 1, 1);
	check_block(test, 0x708, 2, 1, 2);
	check_function(test, 0x800, 1, 1);
	CHECK("whole run I", blocks_insns(blocks), 5);
	stop();
}

/* One loop body, 3 times, then hlt; each occurrence on the ideal machine
 * in isolation (what earlier occurrences wrote is ready at step 0):
 *   0x900 mov rax, [0x6000]    the bytes were written by the previous
 *                              occurrence only: ready 0        -> step 1
 *   0x904 add rax, rbx         rax (1)                         -> 2
 *   0x908 mov [0x6000], rax    rax (2); writes 0x6000-0x6007   -> 3
 *   0x90c mov ecx, [0x6004]    bytes 0x6004-0x6007 (3)         -> 4
 *   0x910 add rdx, rcx         rdx: previous occurrence only; rcx (4) -> 5
 *   0x914 jne 0x900            ZF never written                -> 1
 * 5 steps per occurrence: 15 steps for 18 instructions, ILP 1.2 (without
 * isolation rdx and [0x6000] would chain the occurrences). hlt: 1 step. */
static void test_ilp(void)
{
	const char *test = "ilp";
	const uint8_t rax = UNIT_RAX, rbx = UNIT_RBX, rcx = UNIT_RCX, rdx = UNIT_RDX, zf = UNIT_ZF;
	const uint8_t rax_rbx[] = {UNIT_RAX, UNIT_RBX}, rdx_rcx[] = {UNIT_RDX, UNIT_RCX};
	start();
	for (int pass = 0; pass < 2; pass++) {
		for (int i = 0; i < 3; i++) {
			if (!pass) {
				for (uint64_t a = 0x900; a < 0x914; a += 4)
					feed(a, 4, CTRL_NONE, S, 0);
				feed(0x914, 2, CTRL_COND_JUMP, S, 0);
				continue;
			}
			feed_deps(0x900, CTRL_NONE, NULL, 0, &rax, 1, 0x6000, 8, 0);
			feed_deps(0x904, CTRL_NONE, rax_rbx, 2, &rax, 1, 0, 0, 0);
			feed_deps(0x908, CTRL_NONE, &rax, 1, NULL, 0, 0x6000, 8, 1);
			feed_deps(0x90c, CTRL_NONE, NULL, 0, &rcx, 1, 0x6004, 4, 0);
			feed_deps(0x910, CTRL_NONE, rdx_rcx, 2, &rdx, 1, 0, 0, 0);
			feed_deps(0x914, CTRL_COND_JUMP, &zf, 1, NULL, 0, 0, 0, 0);
		}
		if (!pass) {
			feed(0x916, 1, CTRL_OTHER, S, 0);
			finish();
		} else {
			feed_deps(0x916, CTRL_OTHER, NULL, 0, NULL, 0, 0, 0, 0);
			blocks_ilp_finish(blocks);
		}
	}
	(void)rbx;
	const struct block *b = block_at(test, 0x900);
	if (b) {
		CHECK("loop steps", b->steps, 15);
		CHECK("loop instructions", b->insns_executed, 18);
	}
	b = block_at(test, 0x916);
	if (b)
		CHECK("hlt steps", b->steps, 1);
	stop();
}

int main(void)
{
	test_loop();
	test_calls();
	test_rep();
	test_late_split();
	test_signal();
	test_ilp();
	if (!failures)
		printf("PASS: blocks: 6 synthetic streams\n");
	return failures ? 1 : 0;
}
