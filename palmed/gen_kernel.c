/* The loop of one kernel: operands instantiated so that no instruction
 * reads what another wrote (DESIGN.md, "Measuring a kernel"); what some
 * forms need beyond that is planned in gen_plan.c. */
#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "palmed/gen_private.h"

/* The loop owns rsp, r13 (turns), r14 (read half), r15 (write half). */
static const int gpr_usable[] = {3, 5, 8, 9, 10, 11, 12, 0, 1, 2, 6, 7};
static const char *const class_names[C_COUNT] = {"GPR", "vector", "mask"};

static int class_of(enum form_kind k)
{
	switch (k) {
	case FORM_GPR8:
	case FORM_GPR16:
	case FORM_GPR32:
	case FORM_GPR64:
		return C_GPR;
	case FORM_XMM:
	case FORM_YMM:
	case FORM_ZMM:
		return C_VEC;
	case FORM_K:
		return C_K;
	default:
		return -1;
	}
}

static const char *memory_keyword(enum form_kind k)
{
	static const char *const kw[] = {"byte",  "word",    "dword",	"qword",
					 "tbyte", "xmmword", "ymmword", "zmmword"};
	k = form_kind_unindexed(k);
	return k >= FORM_M8 && k <= FORM_M512 ? kw[k - FORM_M8] : NULL;
}

/* Address kinds with an index register: it comes from the read pool. */
static int has_index(enum form_kind k)
{
	return k == FORM_MEMBI || k == FORM_MEMBIS || k == FORM_MEMBID || k == FORM_MEMIS ||
	       form_kind_is_indexed(k);
}

static void reads_per_class(const struct gen_form_info *info, unsigned n[C_COUNT])
{
	memset(n, 0, C_COUNT * sizeof(n[0]));
	for (unsigned i = 0; i < info->form.n; i++) {
		int c = class_of(info->form.op[i]);
		if (c >= 0 && info->access[i] == GEN_READ)
			n[c]++;
		n[C_GPR] += has_index(info->form.op[i]);
	}
}

static int make_pools(const struct kernel *k, const struct gen_form_info *const *infos,
		      const struct gen_params *p, const struct plan *plan, struct pools *pl)
{
	int usable[C_COUNT][32];
	unsigned n_usable[C_COUNT] = {0}, need_read[C_COUNT] = {0};
	int all_evex = 1, stores[2] = {0, 0}; /* plain, non-temporal */
	uint32_t excluded = plan->reserved, vec_excluded = 0;

	memset(pl, 0, sizeof(*pl));
	for (size_t t = 0; t < k->n; t++) {
		unsigned r[C_COUNT];
		reads_per_class(infos[t], r);
		for (int c = 0; c < C_COUNT; c++)
			if (r[c] > need_read[c])
				need_read[c] = r[c];
		excluded |= infos[t]->implicit_read | infos[t]->implicit_write;
		vec_excluded |= infos[t]->implicit_vec_write;
		for (unsigned i = 0; i < infos[t]->form.n; i++) {
			if (class_of(infos[t]->form.op[i]) == C_VEC)
				all_evex &= infos[t]->evex;
			if (form_kind_is_memory(infos[t]->form.op[i]) &&
			    (infos[t]->access[i] & GEN_WRITE))
				stores[form_stores_nontemporal(&infos[t]->form)] = 1;
		}
	}
	pl->nt_apart = stores[0] && stores[1];
	for (size_t i = 0; i < ARRAY_SIZE(gpr_usable); i++)
		if (!(excluded & (1u << gpr_usable[i])))
			usable[C_GPR][n_usable[C_GPR]++] = gpr_usable[i];
	unsigned n_vec = plan->any_vec && all_evex && p->avx512 ? 32 : 16;
	for (unsigned i = 0; i < n_vec; i++)
		if (!(vec_excluded & (1u << i)))
			usable[C_VEC][n_usable[C_VEC]++] = (int)i;
	for (int i = 1; i <= 8; i++)
		usable[C_K][n_usable[C_K]++] = i % 8;
	for (int c = 0; c < C_COUNT; c++) {
		if (need_read[c] >= n_usable[c])
			return perpi_set_error("kernel reads %u %s registers per instruction: none "
					       "left to write",
					       need_read[c], class_names[c]);
		pl->n_read[c] = need_read[c];
		memcpy(pl->read[c], usable[c], need_read[c] * sizeof(int));
		pl->n_write[c] = n_usable[c] - need_read[c];
		memcpy(pl->write[c], usable[c] + need_read[c], pl->n_write[c] * sizeof(int));
		pl->chain[c] = -1;
	}
	return 0;
}

static void add_register(struct strbuf *out, struct pools *pl, enum form_kind k, int reg)
{
	switch (k) {
	case FORM_GPR8:
	case FORM_GPR16:
	case FORM_GPR32:
		strbuf_addf(out, "%s", gen_gpr_names[k - FORM_GPR8][reg]);
		break;
	case FORM_GPR64:
		strbuf_addf(out, "%s", gen_gpr64[reg]);
		break;
	case FORM_XMM:
	case FORM_YMM:
	case FORM_ZMM:
		strbuf_addf(out, "%cmm%d", "xyz"[k - FORM_XMM], reg);
		if ((unsigned)reg > pl->max_vec)
			pl->max_vec = (unsigned)reg;
		pl->use_zmm |= k == FORM_ZMM || reg >= 16;
		break;
	default:
		strbuf_addf(out, "k%d", reg);
		pl->used_k |= 1 << reg;
		break;
	}
}

/* Displacements rotate through each half by the access size, so that
 * stores do not share a line more than real code would. Loads use the low
 * 2 KiB of each 4 KiB page of their half, stores the high 2 KiB of theirs:
 * no load then matches an earlier store in the low 12 address bits, which
 * the core would take for a possible store-to-load dependency (4K
 * aliasing) and wait on. Region 0 is the loads', 1 the stores', 2 the
 * non-temporal stores'. A kernel with non-temporal stores beside plain ones
 * (pl->nt_apart) splits the stores' bytes: the plain stores rotate through
 * the first half, the non-temporal ones through the second, so that no line
 * takes both, as in real code, which streams them to a buffer of their own.
 * Packed together (MOVNTI_M64_GPR64^4 MOVQ_M64_XMM^5) each store took
 * about 600 cycles on a Zen 4, the probes after the kernel ran slower, and
 * every such kernel was refused as disturbing them after minutes of waits. */
static unsigned next_displacement(struct pools *pl, int region, enum form_kind k, int rmw)
{
	unsigned size = form_kind_bytes(k), used = GEN_HALF_BYTES / 2, base = 0;
	size = size == 0 ? 64 : size == 10 ? 16 : size;
	/* a read-modify-write a cache line from the last (see add_instance) */
	if (rmw)
		size = 64;
	if (region && pl->nt_apart) {
		used /= 2;
		base = region == 2 ? used : 0;
	}
	unsigned v = (pl->cursor[region] + size - 1) / size * size; /* in the used bytes */
	if (v + size > used) {
		v = 0;
		pl->lap[region]++;
	}
	pl->cursor[region] = v + size;
	/* each lap of read-modify-writes round the half's 128 lines takes the
	 * next 16 bytes of them: a body of up to 512 is free of dependencies
	 * through memory */
	unsigned in_line = rmw ? pl->lap[region] % 4 * 16 : 0;
	v += base;
	return v / 2048 * 4096 + v % 2048 + in_line + (region ? 2048 : 0);
}

/* LEA's address, in the shape its kind names (index: a read register). */
static void add_address(struct strbuf *out, struct pools *pl, enum form_kind k, int index)
{
	/* never 0: a displacement is encoded; a latency chain goes through
	 * the base (the index where there is none) */
	unsigned d = next_displacement(pl, 0, k, 0) + 8;
	int chain = pl->chain[C_GPR];
	if (chain >= 0 && k == FORM_MEMIS)
		gen_address(out, k, gen_gpr64[chain], d);
	else if (chain >= 0)
		gen_address_base(out, k, gen_gpr64[chain], gen_gpr64[index], d);
	else
		gen_address(out, k, gen_gpr64[index], d);
}

static void add_mnemonic(struct strbuf *out, const struct form *f, int twin)
{
	strbuf_addf(out, "\t%s", twin ? "v" : "");
	for (const char *m = f->mnemonic; *m; m++)
		strbuf_addf(out, "%c", *m == '.' ? ' ' : tolower((unsigned char)*m));
}

static void add_instance(struct strbuf *out, const struct gen_form_info *info, int twin,
			 struct pools *pl)
{
	const struct form *f = &info->form;
	unsigned read_index[C_COUNT] = {0};
	int last_reg = -1;
	enum form_kind last_kind = FORM_REG;

	add_mnemonic(out, f, twin);
	for (unsigned i = 0; i < f->n; i++) {
		enum form_kind k = f->op[i];
		int c = class_of(k), written = info->access[i] & GEN_WRITE;
		strbuf_addf(out, "%s", i ? ", " : " ");
		if (k == FORM_SAME && last_reg >= 0) {
			add_register(out, pl, last_kind, last_reg);
		} else if (c >= 0) {
			int reg;
			if (pl->chain[c] >= 0)
				reg = pl->chain[c];
			else if (written)
				reg = pl->write[c][pl->next_write[c]++ % pl->n_write[c]];
			else
				reg = pl->read[c][read_index[c]++];
			add_register(out, pl, k, reg);
			/* a twin's destination that is also read: its first source too */
			if (twin && i == 0 &&
			    (info->access[0] == (GEN_READ | GEN_WRITE) ||
			     info->twin == GEN_TWIN_MERGE)) {
				strbuf_addf(out, ", ");
				add_register(out, pl, k, reg);
			}
			last_reg = reg;
			last_kind = k;
		} else if (form_kind_is_address(k)) {
			add_address(out, pl, k,
				    has_index(k) ? pl->read[C_GPR][read_index[C_GPR]++] : 0);
		} else if (form_kind_is_memory(k)) {
			const char *kw = memory_keyword(k);
			/* a read-modify-write a cache line from the last, as
			 * in real code: in the six runs of docs/BENCHMARKS.md
			 * 76-100% of them store to another line than the
			 * store before (all stores: 27-51%). On Zen 5 a
			 * store to another line than the last takes a cycle
			 * (ADD_M64_IMM8 1.03 cycles, 0.50 a qword apart), and
			 * RMWs of neighbouring bytes wait for each other's
			 * store (a chain through memory, not the throughput);
			 * plain stores stay packed, as code writes arrays */
			int rmw = written && (info->access[i] & GEN_READ);
			int region = !written ? 0 : form_stores_nontemporal(f) ? 2 : 1;
			unsigned d = next_displacement(pl, region, k, rmw);
			strbuf_addf(out, "%s%s[%s + ", kw ? kw : "", kw ? " ptr " : "",
				    written ? "r15" : "r14");
			/* indexed: a read register (it holds 1) times 8, the
			 * displacement 8 less: the same address */
			if (form_kind_is_indexed(k))
				strbuf_addf(out, "%s*8 %c %u]",
					    gen_gpr64[pl->read[C_GPR][read_index[C_GPR]++]],
					    d >= 8 ? '+' : '-', d >= 8 ? d - 8 : 8 - d);
			else
				strbuf_addf(out, "%u]", d);
		} else if (k == FORM_CL) {
			strbuf_addf(out, "cl");
		} else {
			strbuf_addf(out, "%s", gen_immediate_text(k, info->form.n == 1));
		}
	}
	strbuf_add(out, "\n", 1);
}

/* Latency: every operand of the chain's class uses one register, so each
 * instance reads what the previous one wrote. */
static int choose_chain(const struct gen_form_info *info, struct pools *pl)
{
	const struct form *f = &info->form;
	for (unsigned i = 0; i < f->n; i++) {
		int c = class_of(f->op[i]);
		if (c < 0 || !(info->access[i] & GEN_WRITE))
			continue;
		int read_same_class = info->access[i] & GEN_READ;
		for (unsigned j = 0; j < f->n; j++)
			if (class_of(f->op[j]) == c && (info->access[j] & GEN_READ))
				read_same_class = 1;
		if (read_same_class) {
			pl->chain[c] = pl->write[c][0];
			return 0;
		}
	}
	/* LEA: through its address's base (Zen 5: a 3-component LEA takes 2
	 * cycles from its base, 1 from its index; the others 1) */
	for (unsigned i = 0; i < f->n; i++)
		if (form_kind_is_address(f->op[i]) && f->op[i] != FORM_MEMRIP)
			for (unsigned j = 0; j < f->n; j++)
				if (class_of(f->op[j]) == C_GPR && (info->access[j] & GEN_WRITE)) {
					/* not rbp or r13 (number 5 modulo 8): as a
					 * base they take a displacement byte, which
					 * makes [b + i] a 3-component address */
					unsigned w = 0;
					while (w + 1 < pl->n_write[C_GPR] &&
					       (pl->write[C_GPR][w] & 7) == 5)
						w++;
					pl->chain[C_GPR] = pl->write[C_GPR][w];
					return 0;
				}
	if (info->flags_read && info->flags_written)
		return 0;
	return perpi_set_error("latency of %s: it reads no register of the class it writes, so "
			       "its instances cannot form a chain",
			       info->name);
}

/* What the pools cannot avoid: read-modify-write chains over few registers. */
static void find_dependencies(const struct kernel *k, const struct gen_form_info *const *infos,
			      const struct pools *pl, struct gen_info *gi)
{
	for (size_t t = 0; t < k->n && !gi->flagged; t++) {
		const struct gen_form_info *info = infos[t];
		for (unsigned i = 0; i < info->form.n; i++) {
			int c = class_of(info->form.op[i]);
			if (c >= 0 && info->access[i] == (GEN_READ | GEN_WRITE) &&
			    pl->n_write[c] < GEN_MIN_CHAIN_REGS && !gi->flagged) {
				gi->flagged = 1;
				snprintf(gi->reason, sizeof(gi->reason),
					 "read-modify-write chains over only %u %s registers",
					 pl->n_write[c], class_names[c]);
			}
		}
	}
}

static void add_prologue(struct strbuf *out, const char *symbol, const struct gen_params *p)
{
	strbuf_addf(out,
		    "\t.text\n\t.p2align 6\n\t.globl %s\n\t.type %s, @function\n%s:\n"
		    "\tpush rbx\n\tpush rbp\n\tpush r12\n\tpush r13\n\tpush r14\n\tpush r15\n"
		    "\tmov r13, rdi\n\tmov r14, rsi\n\tmov r15, rdx\n",
		    symbol, symbol, symbol);
	/* a clean upper vector state, whatever ran before */
	if (p->avx)
		strbuf_addf(out, "\tvzeroupper\n");
	for (size_t i = 0; i < ARRAY_SIZE(gpr_usable); i++)
		strbuf_addf(out, "\tmov %s, 1\n", gen_gpr_names[2][gpr_usable[i]]);
}

/* Vector registers from the arena: legacy SSE only when every vector form
 * is legacy SSE (a VEX write would leave nothing dirty, but a legacy
 * kernel has no reason to touch the upper halves at all). */
static void add_vector_init(struct strbuf *out, const struct pools *pl, const struct plan *plan,
			    const struct gen_params *p)
{
	for (unsigned i = 0; plan->any_vec && i <= pl->max_vec; i++) {
		if (pl->use_zmm)
			strbuf_addf(out, "\tvmovups zmm%u, zmmword ptr [r14]\n", i);
		else if (p->avx && !plan->legacy_only)
			strbuf_addf(out, "\tvmovups ymm%u, ymmword ptr [r14]\n", i);
		else
			strbuf_addf(out, "\tmovups xmm%u, xmmword ptr [r14]\n", i);
	}
	for (int i = 0; i < 8; i++)
		if (pl->used_k & (1 << i))
			strbuf_addf(out, "\tkxnorw k%d, k0, k0\n", i);
}

/* The terms of the body in the order they are emitted: copies of the
 * multiset, instances interleaved; REP instructions are left out (emitted
 * once per body by the plan). Returns the number of terms in order[]. */
static size_t body_order(const struct kernel *k, const struct plan *plan, unsigned copies,
			 size_t **order)
{
	unsigned size = kernel_size(k), *left = xcalloc(k->n, sizeof(*left));
	size_t n = 0;
	*order = xcalloc((size_t)copies * size + 1, sizeof(**order));
	for (unsigned c = 0; c < copies; c++) {
		unsigned emitted = 0;
		for (size_t t = 0; t < k->n; t++)
			left[t] = k->terms[t].count;
		while (emitted < size)
			for (size_t t = 0; t < k->n; t++) {
				if (!left[t])
					continue;
				left[t]--;
				emitted++;
				if (plan->terms[t].kind != TERM_REP)
					(*order)[n++] = t;
			}
	}
	free(left);
	return n;
}

/* Instances after their helpers; REP instructions once, at the start. */
static void add_body(struct strbuf *body, const struct kernel *k,
		     const struct gen_form_info *const *infos, const struct plan *plan,
		     struct pools *pl, unsigned copies)
{
	size_t *order, n = body_order(k, plan, copies, &order);
	gen_plan_body_start(k, plan, copies, body);
	for (size_t i = 0; i < n; i++) {
		gen_plan_before(plan, order[i], body);
		add_instance(body, infos[order[i]], plan->terms[order[i]].twin, pl);
	}
	gen_plan_body_end(plan, copies, body);
	free(order);
}

/* The longest loop-carried read-modify-write recurrence when the body's
 * writes of one class (rmw[i]: the i-th write also reads its register)
 * rotate over n registers: a register all of whose writers read it
 * carries a chain from one iteration of the loop to the next; one plain
 * write in its rotation breaks it. */
static size_t recurrence(const unsigned char *rmw, size_t writes, unsigned n)
{
	size_t worst = 0;
	for (unsigned x = 0; x < n; x++) {
		size_t chain = 0;
		for (size_t i = x; i < writes; i += n) {
			if (!rmw[i]) {
				chain = 0;
				break;
			}
			chain++;
		}
		if (chain > worst)
			worst = chain;
	}
	return worst;
}

/* Each class's write pool cut to the size (down to GEN_MIN_CHAIN_REGS)
 * whose rotation leaves the shortest recurrence, the largest of those: a
 * pool of as many registers as a copy writes gives each instance the same
 * register in every copy, and a read-modify-write form chained on itself
 * (ADD_GPR64_GPR64^8 IMUL LEA MOV: 3.00 cycles, imul's latency, where 2.29
 * is its throughput on Zen 5). Partial GPR writes (8 and 16 bits) keep the
 * register's other bits, so they count as reads too. */
static void balance_pools(const struct kernel *k, const struct gen_form_info *const *infos,
			  const struct plan *plan, unsigned copies, struct pools *pl)
{
	size_t *order, n = body_order(k, plan, copies, &order), cap = n * FORM_MAX_OPERANDS + 1;
	unsigned char *rmw = xcalloc(cap, 1);
	for (int c = 0; c < C_COUNT; c++) {
		size_t writes = 0;
		for (size_t i = 0; i < n; i++) {
			const struct gen_form_info *info = infos[order[i]];
			for (unsigned o = 0; o < info->form.n; o++) {
				enum form_kind kind = info->form.op[o];
				if (class_of(kind) != c || !(info->access[o] & GEN_WRITE))
					continue;
				rmw[writes++] = (info->access[o] & GEN_READ) || kind == FORM_GPR8 ||
						kind == FORM_GPR16;
			}
		}
		unsigned best = pl->n_write[c];
		size_t best_rec = recurrence(rmw, writes, best);
		for (unsigned size = best - 1; size >= GEN_MIN_CHAIN_REGS && best_rec; size--) {
			size_t rec = recurrence(rmw, writes, size);
			if (rec < best_rec) {
				best = size;
				best_rec = rec;
			}
		}
		pl->n_write[c] = best;
	}
	free(rmw);
	free(order);
}

int gen_kernel_helpers(const struct kernel *k, const struct gen_form_info *const *infos,
		       int latency, struct gen_info *gi)
{
	struct plan plan;
	memset(gi, 0, sizeof(*gi));
	if (kernel_size(k) == 0)
		return perpi_set_error("empty kernel: no instruction to generate");
	int rc = gen_plan_make(k, infos, latency, &plan, gi);
	gen_plan_done(&plan);
	return rc;
}

int gen_kernel(const struct kernel *k, const struct gen_form_info *const *infos,
	       const struct gen_params *p, const char *symbol, struct strbuf *out,
	       struct gen_info *gi)
{
	struct pools pl;
	struct plan plan;
	unsigned size = kernel_size(k);

	memset(gi, 0, sizeof(*gi));
	if (size == 0) /* the mapping's base of a resource no form loads */
		return perpi_set_error("empty kernel: no instruction to generate");
	if (gen_plan_make(k, infos, p->latency, &plan, gi) < 0 ||
	    make_pools(k, infos, p, &plan, &pl) < 0)
		goto fail;
	if (p->latency) {
		if (k->n != 1) {
			perpi_set_error("latency is measured for one form at a time");
			goto fail;
		}
		if (choose_chain(infos[0], &pl) < 0)
			goto fail;
	} else {
		find_dependencies(k, infos, &pl, gi);
	}
	gi->copies = size >= p->unroll_size ? 1 : (p->unroll_size + size - 1) / size;
	gi->body_insns = gi->copies * size;
	if (!p->latency)
		balance_pools(k, infos, &plan, gi->copies, &pl);
	if (gen_plan_check_size(k, &plan, gi->copies) < 0)
		goto fail;

	struct strbuf body;
	strbuf_init(&body);
	add_body(&body, k, infos, &plan, &pl, gi->copies);
	add_prologue(out, symbol, p);
	add_vector_init(out, &pl, &plan, p);
	gen_plan_prologue(&plan, &pl, symbol, out);
	strbuf_addf(out, "\t.p2align 6\n.L%s_loop:\n%s\tdec r13\n\tjnz .L%s_loop\n", symbol,
		    body.buf, symbol);
	gen_plan_epilogue(&plan, &pl, symbol, out);
	if (p->avx)
		strbuf_addf(out, "\tvzeroupper\n");
	strbuf_addf(out,
		    "\tpop r15\n\tpop r14\n\tpop r13\n\tpop r12\n\tpop rbp\n\tpop rbx\n\tret\n"
		    "\t.size %s, .-%s\n",
		    symbol, symbol);
	strbuf_done(&body);
	gen_plan_done(&plan);
	return 0;
fail:
	gen_plan_done(&plan);
	return -1;
}
