/* The hand-made run. Steps follow DESIGN.md's rule c = 1 + max ready(src):
 *
 *  idx addr   instruction          class   srcs -> step (whole run) / in f
 *   0 0x1000 mov rax, 1           move    -            1
 *   1 0x1007 mov rbx, 2           move    -            1
 *   2 0x100e call f  (sp 0x1000)  branch  rsp          1  writes [0xff8,8)
 *   3 0x2000 add rax, rbx         int     0,1          2   f: 1
 *   4 0x2003 imul rax, rax        int     3            3   f: 2
 *   5 0x2007 mov rcx, 5           move    -            1   f: 1
 *   6 0x200e ret     (sp 0xff8)   branch  2 (rsp,mem)  2   f: 1
 *   7 0x1013 mulsd xmm0, xmm1     fp      -            1
 *   8 0x1017 mov [0x5000], rax    store   4            4
 *   9 0x101f mov rdx, [0x5000]    load    8 (8 bytes)  5
 *  10 0x1027 call f  (sp 0x1000)  branch  6 (rsp)      3
 *  11 0x2000 add rax, rbx         int     4,1          4   f: 1
 *  12 0x2003 imul rax, rax        int     11           5   f: 2
 *  13 0x2007 mov rcx, 5           move    -            1   f: 1
 *  14 0x200e ret     (sp 0xff8)   branch  10           4   f: 1
 *
 * Whole run: I = 15, C = 5, ILP 3.00. Per step: 1: 6 (move 4, branch 1,
 * fp 1); 2: 2 (int 1, branch 1); 3: 2 (int, branch); 4: 3 (store, int,
 * branch); 5: 2 (load, int). Critical path: 0, 3, 4, 8, 9 (the first
 * instruction at step 5 is 9; at each step back the producer of highest
 * step, rax before rbx at idx 3). f: 2 calls, I_f = 8, C_f = 2 + 2 = 4,
 * ILP 2.00; its isolated histogram: step 1: 6 (int 2, move 2, branch 2),
 * step 2: 2 (int). Lines (t.c): 0, 1 on 3; 3, 4 on 10; 8, 9 on 6; critical
 * lines: t.c:6 2, t.c:10 2, t.c:3 1. */
#include "tests/tui/synth.h"

#include <string.h>

enum { XMM0 = UNIT_VEC_PART(0, 0), XMM1 = UNIT_VEC_PART(1, 0) };

struct synth_insn {
	struct perpi_insn insn;
	uint8_t src[4], n_src, dst[4], n_dst;
	int mem_write; /* 0 none, 1 read, 2 write */
	uint64_t mem_addr;
	unsigned line;
};

/* Lengths make each instruction fall through to the next one's address. */
#define I(id_, addr_, len_, text_, k, ctl) \
	{.id = id_, .addr = addr_, .len = len_, .klass = k, .control = ctl, .text = text_}
static struct synth_insn statics[] = {
	{I(0, 0x1000, 7, "mov rax, 1", CLASS_MOVE, CTRL_NONE), {0}, 0, {UNIT_RAX}, 1, 0, 0, 3},
	{I(1, 0x1007, 7, "mov rbx, 2", CLASS_MOVE, CTRL_NONE), {0}, 0, {UNIT_RBX}, 1, 0, 0, 3},
	{I(2, 0x100e, 5, "call f", CLASS_BRANCH, CTRL_CALL), {UNIT_RSP}, 1, {UNIT_RSP}, 1, 2, 0, 4},
	{I(3, 0x2000, 3, "add rax, rbx", CLASS_INT, CTRL_NONE), {UNIT_RAX, UNIT_RBX}, 2,
	 {UNIT_RAX, UNIT_CF, UNIT_ZF}, 3, 0, 0, 10},
	{I(4, 0x2003, 4, "imul rax, rax", CLASS_INT, CTRL_NONE), {UNIT_RAX}, 1, {UNIT_RAX}, 1, 0,
	 0, 10},
	{I(5, 0x2007, 7, "mov rcx, 5", CLASS_MOVE, CTRL_NONE), {0}, 0, {UNIT_RCX}, 1, 0, 0, 11},
	{I(6, 0x200e, 1, "ret", CLASS_BRANCH, CTRL_RET), {UNIT_RSP}, 1, {UNIT_RSP}, 1, 1, 0, 12},
	{I(7, 0x1013, 4, "mulsd xmm0, xmm1", CLASS_FP, CTRL_NONE), {XMM0, XMM1}, 2, {XMM0}, 1, 0, 0,
	 5},
	{I(8, 0x1017, 8, "mov [0x5000], rax", CLASS_STORE, CTRL_NONE), {UNIT_RAX}, 1, {0}, 0, 2,
	 0x5000, 6},
	{I(9, 0x101f, 8, "mov rdx, [0x5000]", CLASS_LOAD, CTRL_NONE), {0}, 0, {UNIT_RDX}, 1, 1,
	 0x5000, 6},
	{I(10, 0x1027, 4, "call f", CLASS_BRANCH, CTRL_CALL), {UNIT_RSP}, 1, {UNIT_RSP}, 1, 2, 0, 7},
};
#undef I

/* Dynamic order: static id and RSP before the instruction. */
static const struct {
	int id;
	uint64_t sp;
} run[] = {
	{0, 0x1000}, {1, 0x1000}, {2, 0x1000}, {3, 0xff8},  {4, 0xff8},
	{5, 0xff8},  {6, 0xff8},  {7, 0x1000}, {8, 0x1000}, {9, 0x1000},
	{10, 0x1000}, {3, 0xff8}, {4, 0xff8},  {5, 0xff8},  {6, 0xff8},
};

static void make_event(struct perpi_event *ev, const struct synth_insn *s, uint64_t sp)
{
	memset(ev, 0, sizeof(*ev));
	ev->insn = &s->insn;
	ev->sp = sp;
	ev->n_src = s->n_src;
	ev->n_dst = s->n_dst;
	memcpy(ev->src, s->src, s->n_src);
	memcpy(ev->dst, s->dst, s->n_dst);
	if (s->mem_write) {
		ev->n_mem = 1;
		ev->mem[0].size = 8;
		ev->mem[0].write = s->mem_write == 2;
		/* call pushes at sp-8, ret pops at sp */
		ev->mem[0].addr = s->mem_addr ? s->mem_addr
				  : s->insn.control == CTRL_CALL ? sp - 8 : sp;
	}
}

int synth_replay(perpi_event_fn fn, void *ctx)
{
	struct perpi_event ev;
	for (size_t i = 0; i < sizeof(run) / sizeof(run[0]); i++) {
		make_event(&ev, &statics[run[i].id], run[i].sp);
		int r = fn(ctx, &ev);
		if (r)
			return r;
	}
	return 0;
}

/* The benchmark's loop body, inside one call: an integer chain (add, imul twice: C grows
 * by 4 per iteration) beside an fp chain, moves, a store and a load. */
int synth_replay_loop(perpi_event_fn fn, void *ctx, uint64_t repeat)
{
	static const int body[] = {1, 3, 4, 5, 7, 8, 9, 3, 4, 5};
	struct perpi_event ev;
	/* A call first, never returned from: the whole loop is one call of
	 * one function (named 0x1007), the largest function histogram. */
	make_event(&ev, &statics[2], 0x1008);
	int ret = fn(ctx, &ev);
	if (ret)
		return ret;
	for (uint64_t r = 0; r < repeat; r++) {
		for (size_t i = 0; i < sizeof(body) / sizeof(body[0]); i++) {
			int id = body[i];
			make_event(&ev, &statics[id], 0x1000);
			if (id == 9 || id == 8)
				ev.mem[0].addr = 0x5000 + 8 * (r % 512);
			int ret = fn(ctx, &ev);
			if (ret)
				return ret;
		}
	}
	return 0;
}

static const char *synth_function(void *ctx, uint64_t addr)
{
	return addr == 0x2000 ? "f" : NULL;
}

static int synth_line(void *ctx, uint64_t addr, const char **file, unsigned *line)
{
	for (size_t i = 0; i < sizeof(statics) / sizeof(statics[0]); i++)
		if (statics[i].insn.addr == addr) {
			*file = "t.c";
			*line = statics[i].line;
			return 0;
		}
	return -1;
}

const struct tui_symbols synth_symbols = {synth_function, synth_line, NULL};
