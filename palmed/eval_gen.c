/* The independent generator: drawing kernels and instantiating them (see
 * eval_gen.h; the semantics are eval_gen_sem.c, the timing
 * eval_gen_run.c). */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/util.h"
#include "palmed/eval.h"
#include "palmed/eval_gen_private.h"
#include "palmed/gen.h"

#define MIN_BODY 200 /* instructions in the unrolled body, at least */
#define FRAME 8192   /* the stack frame of the "stack" memory pattern */
/* The stack of a kernel's pushes and pops, rsp in its middle: a loop body
 * (MAX_BODY instructions, 8 bytes each at most) moves it less than half. */
#define STACK_AREA 40960

static unsigned next(unsigned long long *state, unsigned bound)
{
	*state = *state * 6364136223846793005ULL + 1442695040888963407ULL;
	return (unsigned)((*state >> 33) % bound);
}

/* Pools: reads from the top of each register file, writes from the rest
 * in an order of the kernel's own, each write to the register of its pool
 * written longest ago. Operands read and written (add r, r; an 8-bit
 * write merges) have a pool of their own, sized to their share of the
 * writes, so that a chain through a register holds read-modify-writes
 * only, as few as the registers allow. r12 counts turns, rsi and rdi
 * point to the read and write halves of the arena. */
struct pools {
	int read[3][4], write[3][32];
	unsigned n_read[3], n_write[3], n_rmw[3], next_rmw[3], next_pure[3];
	unsigned max_vec, use_zmm, used_k;
	unsigned pattern;   /* memory: 0 array, 1 indexed, 2 loads from a stack frame */
	unsigned cursor[2]; /* next displacement, loads and stores */
};

static const int gpr_order[] = {0, 1, 2, 3, 5, 11, 13, 14, 15, 8, 9, 10};

static void shuffle(int *v, unsigned n, unsigned long long *state)
{
	for (unsigned i = n; i > 1; i--) {
		unsigned j = next(state, i);
		int t = v[i - 1];
		v[i - 1] = v[j];
		v[j] = t;
	}
}

static void shuffle_index(size_t *v, size_t n, unsigned long long *state)
{
	for (size_t i = n; i > 1; i--) {
		size_t j = next(state, (unsigned)i), x = v[i - 1];
		v[i - 1] = v[j];
		v[j] = x;
	}
}

static unsigned gcd(unsigned a, unsigned b)
{
	while (b) {
		unsigned t = a % b;
		a = b;
		b = t;
	}
	return a;
}

/* How many registers of the write pool go to read-modify-writes: all but
 * as many as a copy has pure writes (4 at least, half the pool at most: a
 * pure write chains too where the core keeps part of the register, a
 * legacy-SSE write the upper lanes; bsr, and popcnt on some Intel cores,
 * wait for their destination), and no more than the pure writes' share
 * of the pool in proportion to the writes of a copy: a chain through a
 * read-modify-write register holds as few instructions a copy as the
 * registers allow (until 2026-11-29 half the pool went to the pure writes
 * however few they were beside the others: a block of ls, 39
 * read-modify-writes and 13 pure writes a copy, 23 rol r64, imm8 and 13
 * add r64, r64 among them, chained through 5 registers, 7.8 instructions
 * a copy each, and ran at 4.35 instructions a cycle where the training
 * harness and the model said 5.8); and a number prime to the
 * read-modify-writes of a copy. Else the rotation falls into step with
 * the kernel: with two of them a copy (an add, an imul) and four
 * registers, every imul writes the same two registers and the imuls
 * chain, 1.5 cycles a copy where 1.0 is the throughput (the training
 * generator's write pool had the same flaw: docs/BENCHMARKS.md). */
static void split_pools(struct pools *pl, const unsigned *rmw, const unsigned *pure)
{
	for (int c = 0; c < 3; c++) {
		unsigned n = pl->n_write[c], keep = pure[c] ? (pure[c] < 4 ? 4 : pure[c]) : 0;
		if (keep > n / 2)
			keep = n / 2;
		if (pure[c]) {
			unsigned share = (n * pure[c] + pure[c] + rmw[c] - 1) / (pure[c] + rmw[c]);
			keep = share < keep ? share : keep;
		}
		unsigned r = rmw[c] ? (n > keep ? n - keep : 1) : 0, top = r;
		while (rmw[c] && r > 1 && gcd(r, rmw[c]) != 1)
			r--;
		/* none below but one register, every read-modify-write of the
		 * kernel on it, one chain (six a copy on eight registers: 4, 3
		 * and 2 share a factor with 6): one prime to them above, the
		 * pure writes rotating over fewer */
		for (unsigned up = top + 1; r == 1 && rmw[c] > 1 && up < n; up++)
			if (gcd(up, rmw[c]) == 1)
				r = up;
		pl->n_rmw[c] = r;
	}
}

static int make_pools(const struct eg_form *const *fs, const struct kernel *k, int high,
		      unsigned long long *state, struct pools *pl)
{
	uint32_t implicit = 0;
	unsigned need[3] = {0}, rmw[3] = {0}, pure[3] = {0};
	int cl = 0;
	memset(pl, 0, sizeof(*pl));
	for (size_t t = 0; t < k->n; t++) {
		unsigned r[3] = {0};
		implicit |= fs[t]->implicit_read | fs[t]->implicit_write;
		for (unsigned i = 0; i < fs[t]->form.n; i++) {
			int c = eg_class(fs[t]->form.op[i]);
			cl |= fs[t]->form.op[i] == FORM_CL;
			/* an indexed address reads r8 (the first GPR read) */
			if (form_kind_is_indexed(fs[t]->form.op[i]) && r[0] == 0)
				r[0] = 1;
			if (c >= 0 && fs[t]->access[i] == EG_READ)
				r[c]++;
			else if (c >= 0 && fs[t]->access[i] == (EG_READ | EG_WRITE))
				rmw[c] += k->terms[t].count;
			else if (c >= 0 && fs[t]->access[i] == EG_WRITE)
				pure[c] += k->terms[t].count;
		}
		for (int c = 0; c < 3; c++)
			need[c] = r[c] > need[c] ? r[c] : need[c];
	}
	if (cl)
		implicit |= 1u << 1;
	/* reads: r8-r10, vectors from the top, k7 down */
	for (unsigned i = 0; i < need[0]; i++)
		pl->read[0][pl->n_read[0]++] = 8 + (int)i;
	unsigned nvec = high ? 32 : 16;
	for (unsigned i = 0; i < need[1]; i++)
		pl->read[1][pl->n_read[1]++] = (int)(nvec - 1 - i);
	for (unsigned i = 0; i < need[2]; i++)
		pl->read[2][pl->n_read[2]++] = 7 - (int)i;
	for (size_t i = 0; i < ARRAY_SIZE(gpr_order); i++) {
		int r = gpr_order[i];
		if (!(implicit & (1u << r)) && !(r >= 8 && r < 8 + (int)need[0]))
			pl->write[0][pl->n_write[0]++] = r;
	}
	for (unsigned v = 0; v + need[1] < nvec; v++)
		pl->write[1][pl->n_write[1]++] = (int)v;
	for (int mask = 1; mask + (int)need[2] < 8; mask++)
		pl->write[2][pl->n_write[2]++] = mask;
	for (int c = 0; c < 3; c++) {
		if (need[c] && pl->n_write[c] < 2)
			return perpi_set_error("no register left to write");
		shuffle(pl->write[c], pl->n_write[c], state);
	}
	split_pools(pl, rmw, pure);
	return 0;
}

/* The next register to write: read-modify-writes from the first n_rmw of
 * the pool, pure writes from the others. */
static int next_write(struct pools *pl, int c, int rmw)
{
	unsigned r = pl->n_rmw[c], rest = pl->n_write[c] - r;
	if (rmw || rest == 0)
		return pl->write[c][pl->next_rmw[c]++ % (r ? r : pl->n_write[c])];
	return pl->write[c][r + pl->next_pure[c]++ % rest];
}

/* A memory operand: loads from the low 2 KiB of each 4 KiB page, stores
 * from the high 2 KiB (no load shares its low 12 address bits with a
 * store: the core would wait on a possible dependency), displacements
 * advancing by the access size; addressed as the kernel's pattern says,
 * an indexed form's through r8 at the same address (until 2026-11-29 the
 * index moved it 64 bytes on, and a store near the end of a page's high
 * half went to the next page's low half, among the loads: a block of ls
 * with mov byte ptr [rdi + r8*8 + d], r8b ran at 0.54 instructions a
 * cycle, 3.1 in the training harness). */
static void add_memory(struct strbuf *out, struct pools *pl, enum form_kind k, int written, int rmw)
{
	unsigned size = form_kind_bytes(k), limit = written ? 6144 : 8192;
	size = size == 0 ? 64 : size == 10 ? 16 : size;
	/* a read-modify-write of memory a few bytes from the last one waits
	 * for its store to forward (8 cycles an add byte ptr here): a line
	 * apart, as a loop over an array of counters would be */
	if (rmw)
		size = 64;
	unsigned v = (pl->cursor[written] + size - 1) / size * size;
	if (v + size > limit / 2)
		v = 0;
	pl->cursor[written] = v + size;
	unsigned disp = v / 2048 * 4096 + v % 2048 + (written ? 2048 : 0);
	const char *kw = eg_memory_keyword(k);
	strbuf_addf(out, "%s%s", kw ? kw : "", kw ? " ptr " : "");
	/* a stack frame for the loads only: stores to [rsp + ...] beside loads
	 * from it run at one in 8-18 cycles on this Zen 5 (the core predicts
	 * that loads from the stack forward from stores to it), which code
	 * with no such forwarding never meets */
	if (pl->pattern == 2 && !written && !form_kind_is_indexed(k))
		strbuf_addf(out, "[rsp + %u]", disp);
	else if (form_kind_is_indexed(k)) /* r8 holds 8 (make_pools): the same address */
		strbuf_addf(out, "[%s + r8*8 %c %u]", written ? "rdi" : "rsi", disp >= 64 ? '+' : '-',
			    disp >= 64 ? disp - 64 : 64 - disp);
	else
		strbuf_addf(out, "[%s + %u]", written ? "rdi" : "rsi", disp);
}

/* One instance of e; twin: as its VEX twin in that mode (eg_twin_text),
 * 0: as itself. */
static void add_instance(struct strbuf *dest, const struct eg_form *e, int twin, struct pools *pl)
{
	unsigned read_at[3] = {0};
	struct strbuf last; /* the last register operand, for a same-register one */
	struct strbuf text, *out = twin ? &text : dest;
	strbuf_init(&last);
	strbuf_init(&text);
	strbuf_add(out, "\t", 1);
	for (const char *m = e->form.mnemonic; *m; m++)
		strbuf_addf(out, "%c", *m == '.' ? ' ' : tolower((unsigned char)*m));
	for (unsigned i = 0; i < e->form.n; i++) {
		enum form_kind k = e->form.op[i];
		int c = eg_class(k);
		strbuf_addf(out, "%s", i ? ", " : " ");
		if (c >= 0) {
			int reg =
			    (e->access[i] & EG_WRITE)
				? next_write(pl, c, e->access[i] & EG_READ)
				: pl->read[c][read_at[c]++ % (pl->n_read[c] ? pl->n_read[c] : 1)];
			last.len = 0;
			eg_register(&last, k, reg);
			strbuf_add(out, last.buf, last.len);
			if (c == 1 && (unsigned)reg > pl->max_vec)
				pl->max_vec = (unsigned)reg;
			pl->use_zmm |= k == FORM_ZMM || (c == 1 && reg >= 16);
			pl->used_k |= c == 2 ? 1u << reg : 0;
		} else if (form_kind_is_access(k)) {
			add_memory(out, pl, k, (e->access[i] & EG_WRITE) != 0,
				   e->access[i] == (EG_READ | EG_WRITE));
		} else if (k == FORM_SAME) {
			strbuf_add(out, last.buf, last.len);
		} else if (form_kind_is_address(k)) { /* rdi: a constant, never written */
			eg_address(out, k, "rsi", "rdi", 64 * (1 + pl->cursor[0]++ % 16));
		} else if (k == FORM_CL) {
			strbuf_addf(out, "cl");
		} else {
			strbuf_addf(out, "%s", eg_immediate(k));
		}
	}
	strbuf_add(out, "\n", 1);
	strbuf_done(&last);
	if (twin)
		eg_twin_text(dest, text.buf, twin);
	strbuf_done(&text);
}

/* One copy's instances in an order of the kernel's own (seeded): the
 * instances that write the flags and read none (most integer operations)
 * shuffled among themselves and spread evenly between the others, also
 * shuffled, and one of them right before each instance that reads and
 * writes the flags, so that no chain runs through the flags. (Flushed in
 * the kernel's form order after the others, they ran as a burst of one
 * form: 23 rol a row in a block of python's hash took the loop from 3.8
 * to 3.1 instructions a cycle on a Zen 3; compiled code interleaves
 * them.) Returns the number of instances in order[], or 0 with
 * perpi_error() set. */
static size_t order_copy(const struct eg_form *const *fs, const struct kernel *k,
			 unsigned long long *state, size_t *order)
{
	size_t n = 0, *pure = xmalloc((kernel_size(k) + 1) * sizeof(size_t)), npure = 0;
	size_t *rest = xmalloc((kernel_size(k) + 1) * sizeof(size_t)), nrest = 0;
	for (size_t t = 0; t < k->n; t++)
		for (unsigned c = 0; c < k->terms[t].count; c++)
			if (fs[t]->flags_written && !fs[t]->flags_read)
				pure[npure++] = t;
			else
				rest[nrest++] = t;
	shuffle_index(pure, npure, state);
	shuffle_index(rest, nrest, state);
	size_t usedp = 0, need = 0; /* flag writers owed to readers that write them */
	for (size_t i = 0; i < nrest; i++)
		need += fs[rest[i]]->flags_read && fs[rest[i]]->flags_written;
	if (need > npure) {
		for (size_t i = 0; i < nrest; i++)
			if (fs[rest[i]]->flags_read && fs[rest[i]]->flags_written) {
				perpi_set_error("%s reads the flags it writes, and too few other "
						"instructions write them",
						fs[rest[i]]->name);
				break;
			}
		free(pure);
		free(rest);
		return 0;
	}
	size_t spare = npure - need, spread = 0; /* the others', and how many placed */
	for (size_t i = 0; i < nrest; i++) {
		const struct eg_form *e = fs[rest[i]];
		if (e->flags_read && e->flags_written)
			order[n++] = pure[usedp++];
		order[n++] = rest[i];
		for (; spread < (i + 1) * spare / nrest; spread++)
			order[n++] = pure[usedp++];
	}
	while (usedp < npure)
		order[n++] = pure[usedp++];
	free(pure);
	free(rest);
	return n;
}

static int kernel_forms(struct eval_gen *g, const struct kernel *k, const struct eg_form **fs,
			int *high)
{
	uint32_t reads = 0, writes = 0;
	*high = g->avx512;
	for (size_t t = 0; t < k->n; t++) {
		fs[t] = eg_find(g, k->terms[t].form);
		if (!fs[t] || !fs[t]->learnt || fs[t]->refused)
			return perpi_set_error("form %s: %s", k->terms[t].form,
					       fs[t] && fs[t]->refused ? fs[t]->refused
								       : "not learnt");
		for (unsigned i = 0; i < fs[t]->form.n; i++)
			if (eg_class(fs[t]->form.op[i]) == 1)
				*high &= fs[t]->high_vectors;
		reads |= fs[t]->implicit_read;
		writes |= fs[t]->implicit_write;
	}
	if (reads & writes)
		return perpi_set_error("one form writes an implicit register another reads");
	return 0;
}

/* Legacy SSE beside VEX or EVEX vector forms: the SSE forms as their VEX
 * twins (twin[t], else 0), as a compiler targeting AVX writes them; a
 * form without a twin holds the kernel out (-1: mixed, an Intel core
 * pays state transitions no compiled code does). *sse_only: legacy SSE
 * and no VEX, the registers then set without VEX (eval_gen_kernel). */
static int kernel_twins(const struct kernel *k, const struct eg_form *const *fs, int *twin,
			int *sse_only)
{
	int sse = 0, vex = 0;
	for (size_t t = 0; t < k->n; t++) {
		sse |= fs[t]->sse;
		vex |= fs[t]->vex;
		twin[t] = 0;
	}
	*sse_only = sse && !vex;
	for (size_t t = 0; t < k->n && sse && vex; t++) {
		if (!fs[t]->sse)
			continue;
		if (!fs[t]->twin)
			return perpi_set_error("legacy-SSE %s " GEN_NO_TWIN, k->terms[t].form);
		twin[t] = fs[t]->twin;
	}
	return 0;
}

/* Copies of the kernel in the loop body: MIN_BODY instructions at least,
 * and a multiple of each read-modify-write pool's size, so that the
 * rotation ends where it starts and the body's last writes are as far
 * from the next turn's first reads as the others (unless that makes the
 * body longer than MAX_BODY). */
#define MAX_BODY 2048
static unsigned body_copies(const struct pools *pl, size_t size)
{
	unsigned least = (unsigned)((MIN_BODY + size - 1) / size), step = 1;
	for (int c = 0; c < 3; c++)
		if (pl->n_rmw[c] > 1)
			step = step / gcd(step, pl->n_rmw[c]) * pl->n_rmw[c];
	unsigned copies = (least + step - 1) / step * step;
	return copies * size <= MAX_BODY ? copies : least;
}

/* The bytes one copy of the kernel moves rsp by (pushes and pops). */
static long stack_moves(const struct eg_form *const *fs, const struct kernel *k, int *any)
{
	long net = 0;
	*any = 0;
	for (size_t t = 0; t < k->n; t++) {
		net += (long)fs[t]->stack * k->terms[t].count;
		*any |= fs[t]->stack != 0;
	}
	return net;
}

static int any_indexed(const struct eg_form *const *fs, const struct kernel *k)
{
	for (size_t t = 0; fs[0] && t < k->n; t++)
		for (unsigned i = 0; fs[t] && i < fs[t]->form.n; i++)
			if (form_kind_is_indexed(fs[t]->form.op[i]))
				return 1;
	return 0;
}

static void add_prologue(struct strbuf *out, const char *symbol, const struct pools *pl, int stack)
{
	strbuf_addf(out,
		    "\t.text\n\t.p2align 6\n\t.globl %s\n\t.type %s, @function\n%s:\n"
		    "\tpush rbx\n\tpush rbp\n\tpush r12\n\tpush r13\n\tpush r14\n\tpush r15\n"
		    "\tmov r12, rdi\n\tmov rdi, rdx\n",
		    symbol, symbol, symbol);
	/* a frame of the function's own, 64-byte aligned (aligned vector
	 * moves), the old rsp kept above it (put back after the loop): the
	 * loads' frame, filled with doubles 1.0 as the arena is, or the
	 * pushes' and pops' stack, rsp in its middle */
	int bytes = pl->pattern == 2 ? FRAME : stack ? STACK_AREA : 0;
	if (bytes)
		strbuf_addf(
		    out, "\tmov rax, rsp\n\tsub rsp, %d\n\tand rsp, -64\n\tmov [rsp + %d], rax\n",
		    bytes + 128, bytes);
	/* filled by one string store (rdi back from rdx after it), each call,
	 * inside the timing: a loop of a store a turn took about 1,000 cycles
	 * of a call's 17,000 on a Zen 4 (the kernels of this pattern timed 6%
	 * slow at 6 instructions a cycle); the string store takes about 250,
	 * and such a call runs four times the instructions (eval_gen_run.c) */
	if (pl->pattern == 2)
		strbuf_addf(out,
			    "\tmov rax, 0x3ff0000000000000\n\tmov rdi, rsp\n\tmov ecx, %d\n"
			    "\trep stosq\n\tmov rdi, rdx\n",
			    FRAME / 8);
	else if (stack)
		strbuf_addf(out, "\tadd rsp, %d\n", STACK_AREA / 2);
	static const int all[] = {0, 1, 2, 3, 5, 8, 9, 10, 11, 13, 14, 15};
	static const char *const name[] = {"eax", "ecx",  "edx",  "ebx", "",	 "ebp",
					   "",	  "",	  "r8d",  "r9d", "r10d", "r11d",
					   "",	  "r13d", "r14d", "r15d"};
	for (size_t i = 0; i < ARRAY_SIZE(all); i++)
		strbuf_addf(out, "\tmov %s, %d\n", name[all[i]],
			    all[i] == 8 && pl->pattern == 1 ? 8 : 1);
}

static void add_state_init(struct strbuf *out, const struct pools *pl, const struct eval_gen *g,
			   int any_vec, int sse_only)
{
	/* legacy SSE alone: with the upper lanes clean, however the caller
	 * left them (an Intel core would make each SSE write merge them) */
	if (sse_only && g->avx)
		strbuf_addf(out, "\tvzeroupper\n");
	for (unsigned i = 0; any_vec && i <= pl->max_vec; i++) {
		if (pl->use_zmm)
			strbuf_addf(out, "\tvmovups zmm%u, zmmword ptr [rsi]\n", i);
		else if (g->avx && !sse_only)
			strbuf_addf(out, "\tvmovups ymm%u, ymmword ptr [rsi]\n", i);
		else
			strbuf_addf(out, "\tmovups xmm%u, xmmword ptr [rsi]\n", i);
	}
	for (int i = 1; i < 8; i++)
		if (pl->used_k & (1u << i))
			strbuf_addf(out, "\tkxnorw k%d, k0, k0\n", i);
}

int eval_gen_kernel(struct eval_gen *g, const struct kernel *k, const char *symbol,
		    struct strbuf *out, unsigned *copies, int *fills_frame)
{
	const struct eg_form **fs = xcalloc(k->n + 1, sizeof(*fs));
	unsigned long long state = 0x243f6a8885a308d3ULL;
	char *spec = kernel_to_string(k);
	for (const char *c = spec; *c; c++) /* FNV-1a: the kernel's own seed */
		state = (state ^ (unsigned char)*c) * 1099511628211ULL;
	free(spec);
	size_t size = kernel_size(k), *order = xmalloc((2 * size + 1) * sizeof(size_t));
	struct pools pl;
	int *twin = xcalloc(k->n + 1, sizeof(int)), sse_only = 0;
	int high, rc = kernel_forms(g, k, fs, &high);
	if (rc == 0)
		rc = kernel_twins(k, fs, twin, &sse_only);
	if (rc == 0)
		rc = make_pools(fs, k, high, &state, &pl);
	struct strbuf body;
	strbuf_init(&body);
	int stack = 0;
	long moves = rc == 0 ? stack_moves(fs, k, &stack) : 0;
	/* indexed: the kernels drawn with indexed memory forms (eval_gen_draw,
	 * or a recorded block's), each of their accesses [base + r8*8 + d];
	 * the others on an array or, for loads, a stack frame (the loads from
	 * a stack frame need an rsp that stays put) */
	pl.pattern = next(&state, stack ? 2 : 3);
	pl.pattern = any_indexed(fs, k) ? 1 : pl.pattern == 1 ? 0 : pl.pattern;
	*copies = rc == 0 ? body_copies(&pl, size) : 1;
	if (fills_frame)
		*fills_frame = rc == 0 && pl.pattern == 2;
	for (unsigned c = 0; rc == 0 && c < *copies; c++) {
		size_t n = order_copy(fs, k, &state, order);
		if (n == 0)
			rc = -1;
		for (size_t i = 0; i < n; i++)
			add_instance(&body, fs[order[i]], twin[order[i]], &pl);
	}
	int any_vec = 0;
	for (size_t t = 0; t < k->n && rc == 0; t++)
		for (unsigned i = 0; i < fs[t]->form.n; i++)
			any_vec |= eg_class(fs[t]->form.op[i]) == 1;
	if (rc == 0) {
		add_prologue(out, symbol, &pl, stack);
		add_state_init(out, &pl, g, any_vec, sse_only);
		/* rsp back where the turn found it, once a turn */
		if (moves)
			strbuf_addf(&body, "\tlea rsp, [rsp %c %ld]\n", moves > 0 ? '-' : '+',
				    labs(moves) * *copies);
		strbuf_addf(out, "\t.p2align 6\n.L%s_loop:\n%s\tdec r12\n\tjnz .L%s_loop\n", symbol,
			    body.buf ? body.buf : "", symbol);
		/* the old rsp, above the frame (rsp back at its start or middle) */
		if (pl.pattern == 2 || stack)
			strbuf_addf(out, "\tmov rsp, [rsp + %d]\n",
				    pl.pattern == 2 ? FRAME : STACK_AREA / 2);
		if (g->avx)
			strbuf_addf(out, "\tvzeroupper\n");
		strbuf_addf(out,
			    "\tpop r15\n\tpop r14\n\tpop r13\n\tpop r12\n\tpop rbp\n\tpop rbx\n"
			    "\tret\n\t.size %s, .-%s\n",
			    symbol, symbol);
	}
	strbuf_done(&body);
	free(fs);
	free(twin);
	free(order);
	return rc;
}

char *eval_gen_asm(struct eval_gen *g, const struct kernel *k, unsigned *copies)
{
	struct strbuf s;
	unsigned n;
	strbuf_init(&s);
	strbuf_addf(&s, ".intel_syntax noprefix\n");
	if (eval_gen_kernel(g, k, "perpi_eval", &s, &n, NULL) < 0) {
		strbuf_done(&s);
		return NULL;
	}
	if (copies)
		*copies = n;
	return s.buf;
}

enum { ROLE_LOAD, ROLE_STORE, ROLE_OP, ROLE_COUNT };

/* What a form does in a loop body, and on which register file (0 GPR,
 * 1 vector). */
static int role_of(const struct eg_form *e, int *file)
{
	int reads = 0, writes = 0;
	*file = 0;
	for (unsigned i = 0; i < e->form.n; i++) {
		if (form_kind_is_access(e->form.op[i])) {
			reads |= e->access[i] & EG_READ;
			writes |= (e->access[i] & EG_WRITE) != 0;
		}
		if (eg_class(e->form.op[i]) == 1)
			*file = 1;
	}
	return writes ? ROLE_STORE : reads ? ROLE_LOAD : ROLE_OP;
}

/* The usable forms by role and register file. */
struct roles {
	const char **v[ROLE_COUNT][2];
	size_t n[ROLE_COUNT][2];
	const char **all;
	size_t nall;
};

static void roles_init(const struct eval_gen *g, struct roles *r)
{
	memset(r, 0, sizeof(*r));
	r->all = xmalloc((g->n + 1) * sizeof(char *));
	for (int a = 0; a < ROLE_COUNT; a++)
		for (int f = 0; f < 2; f++)
			r->v[a][f] = xmalloc((g->n + 1) * sizeof(char *));
	for (size_t i = 0; i < g->n; i++) {
		int file, role;
		/* non-temporal and direct stores (movnt*, movdiri, movdir64b)
		 * bypass the caches: their cost is the memory's bandwidth (one
		 * in 2-20 cycles here, by the other stores' pattern; a kernel
		 * with two movdiri ran at 0.01 instructions a cycle), no core
		 * resource's; held out of the draws. So are cache-line
		 * flushes and write-backs (clflush, clflushopt, clwb): the
		 * next access to the line waits for the memory (a loop
		 * kernel with clflush and lock dec ran at 0.005 instructions
		 * a cycle, 200 cycles an instruction) */
		const char *name = g->f[i].name;
		if (!g->f[i].learnt || g->f[i].refused || !strncmp(name, "MOVNT", 5) ||
		    !strncmp(name, "VMOVNT", 6) || !strncmp(name, "MOVDIR", 6) ||
		    !strncmp(name, "CLFLUSH", 7) || !strncmp(name, "CLWB", 4))
			continue;
		struct form plain;
		if (form_unindexed(&g->f[i].form, &plain)) /* drawn through their plain forms */
			continue;
		role = role_of(&g->f[i], &file);
		r->v[role][file][r->n[role][file]++] = g->f[i].name;
		r->all[r->nall++] = g->f[i].name;
	}
}

static void roles_done(struct roles *r)
{
	for (int a = 0; a < ROLE_COUNT; a++)
		for (int f = 0; f < 2; f++)
			free(r->v[a][f]);
	free(r->all);
}

static void add_some(struct kernel *k, const char **v, size_t n, unsigned lo, unsigned hi,
		     unsigned long long *state)
{
	unsigned count = lo + next(state, hi - lo + 1);
	for (unsigned i = 0; i < count && n; i++)
		kernel_add(k, v[next(state, (unsigned)n)], 1);
}

/* A loop body: loads, stores and operations of one register file, the
 * pointer increment and the compare of the loop (the branch is the
 * harness's own). */
static void loop_shape(const struct eval_gen *g, const struct roles *r, struct kernel *k,
		       unsigned long long *state)
{
	int file = r->n[ROLE_OP][1] && next(state, 2);
	add_some(k, (const char **)r->v[ROLE_LOAD][file], r->n[ROLE_LOAD][file], 1, 3, state);
	add_some(k, (const char **)r->v[ROLE_STORE][file], r->n[ROLE_STORE][file], 0, 2, state);
	add_some(k, (const char **)r->v[ROLE_OP][file], r->n[ROLE_OP][file], 2, 6, state);
	if (eg_find(g, "ADD_GPR64_IMM8") && !eg_find(g, "ADD_GPR64_IMM8")->refused)
		kernel_add(k, "ADD_GPR64_IMM8", 1);
	if (eg_find(g, "CMP_GPR64_GPR64") && !eg_find(g, "CMP_GPR64_GPR64")->refused)
		kernel_add(k, "CMP_GPR64_GPR64", 1);
}

/* k's forms with memory operands as their indexed twins (those learnt). */
static void index_memory(const struct eval_gen *g, struct kernel *k)
{
	struct kernel x;
	kernel_init(&x);
	for (size_t t = 0; t < k->n; t++) {
		char name[FORM_NAME_MAX];
		const char *use = k->terms[t].form;
		const struct eg_form *e =
		    form_name_indexed(use, name, sizeof(name)) ? eg_find(g, name) : NULL;
		if (e && e->learnt && !e->refused)
			use = name;
		kernel_add(&x, use, k->terms[t].count);
	}
	kernel_done(k);
	*k = x;
}

void eval_gen_draw(const struct eval_gen *g, unsigned seed, size_t count,
		   const struct model *exclude, struct kernel *kernels, const char **shapes)
{
	unsigned long long state = 0x13198a2e03707344ULL ^ seed;
	struct roles r;
	size_t made = 0, tries = 0;
	roles_init(g, &r);
	while (made < count && r.nall) {
		struct kernel *k = &kernels[made];
		int loop = made % 2 == 1;
		kernel_init(k);
		if (loop)
			loop_shape(g, &r, k, &state);
		if (kernel_size(k) < 2) { /* no loop of that file: a uniform mix */
			kernel_done(k);
			loop = 0;
			size_t want = 2 + next(&state, 4);
			while (k->n < want && k->n < r.nall)
				kernel_add(k, r.all[next(&state, (unsigned)r.nall)], 0);
			for (size_t t = 0; t < k->n; t++)
				k->terms[t].count = 1 + next(&state, 4);
		}
		/* a third of the kernels address memory with an index, as
		 * compiled loops over arrays do ([base + i*8 + d]) */
		if (next(&state, 3) == 0)
			index_memory(g, k);
		char *spec = kernel_to_string(k);
		if ((k->n == 0 || eval_model_measured(exclude, spec)) && ++tries < 100 * count) {
			kernel_done(k);
		} else {
			shapes[made] = loop ? "loop" : "uniform";
			made++;
		}
		free(spec);
	}
	roles_done(&r);
}
