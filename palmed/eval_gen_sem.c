/* The independent generator's knowledge of forms: one instance of each,
 * assembled with GNU as and decoded by perpi's x86 layer (the tracer's),
 * not by the training generator's Zydis probing. */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/util.h"
#include "palmed/eval_gen_private.h"
#include "palmed/gen.h"
#include "palmed/harness.h"
#include "palmed/lift.h"
#include "tracer/x86.h"

/* The sample's registers: rbx points to its memory (the operand at
 * [rbx + 64]), rsp is 0 (a push writes just below it). */
#define SAMPLE_BASE 0x100000u
enum { RSP = 4 };

int eg_class(enum form_kind k)
{
	if (k >= FORM_GPR8 && k <= FORM_GPR64)
		return 0;
	if (k == FORM_XMM || k == FORM_YMM || k == FORM_ZMM)
		return 1;
	return k == FORM_K ? 2 : -1;
}

void eg_register(struct strbuf *out, enum form_kind k, int reg)
{
	if (eg_class(k) == 0)
		strbuf_addf(out, "%s", gen_gpr_names[k - FORM_GPR8][reg]);
	else if (eg_class(k) == 1)
		strbuf_addf(out, "%cmm%d", "xyz"[k - FORM_XMM], reg);
	else
		strbuf_addf(out, "k%d", reg);
}

/* Not the training generator's values: small enough for every shift and
 * selector, odd so that a lane selector picks the upper lane as compiled
 * code does (vextracti128 ..., 1: the lower one is a plain move, twice as
 * fast), and not 1 (a shift by 1 has an encoding, and a form, of its own). */
const char *eg_immediate(enum form_kind k)
{
	switch (k) {
	case FORM_IMM8:
		return "5";
	case FORM_IMM16:
		return "0x2345";
	case FORM_IMM32:
		return "0x23456";
	case FORM_IMM64:
		return "0x23456789abc";
	case FORM_ONE:
		return "1";
	default:
		return NULL;
	}
}

const char *eg_memory_keyword(enum form_kind k)
{
	static const char *const kw[] = {"byte",  "word",    "dword",	"qword",
					 "tbyte", "xmmword", "ymmword", "zmmword"};
	k = form_kind_unindexed(k);
	return k >= FORM_M8 && k <= FORM_M512 ? kw[k - FORM_M8] : NULL;
}

const struct eg_form *eg_find(const struct eval_gen *g, const char *name)
{
	size_t lo = 0, hi = g->n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int c = strcmp(g->f[mid].name, name);
		if (c == 0)
			return &g->f[mid];
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

/* An address of LEA's shape k (form.h) from base and index registers and
 * a displacement (not 0), into out; 0 for another kind (nothing added). */
int eg_address(struct strbuf *out, enum form_kind k, const char *base, const char *index,
	       unsigned disp)
{
	if (k == FORM_MEM)
		strbuf_addf(out, "[%s + %u]", base, disp);
	else if (k == FORM_MEMBI)
		strbuf_addf(out, "[%s + %s]", base, index);
	else if (k == FORM_MEMBIS)
		strbuf_addf(out, "[%s + %s*4]", base, index);
	else if (k == FORM_MEMIS)
		strbuf_addf(out, "[%s*4 + %u]", index, disp);
	else if (k == FORM_MEMBID)
		strbuf_addf(out, "[%s + %s*4 + %u]", base, index, disp);
	else if (k == FORM_MEMRIP)
		strbuf_addf(out, "[rip + %u]", disp);
	else
		return 0;
	return 1;
}

/* One instance, every register operand a different register (GPRs from
 * r8 up, vectors from 1 up, or from 17 with high; a same-register operand
 * the one before it), memory at [rbx + 64] (indexed, the same address
 * through rbx*8 and a displacement), LEA's addresses from rbx alone. */
static int sample(const struct form *f, int high, struct strbuf *out)
{
	strbuf_add(out, "\t", 1);
	for (const char *m = f->mnemonic; *m; m++)
		strbuf_addf(out, "%c", *m == '.' ? ' ' : tolower((unsigned char)*m));
	for (unsigned i = 0; i < f->n; i++) {
		enum form_kind k = f->op[i];
		strbuf_addf(out, "%s", i ? ", " : " ");
		if (k == FORM_SAME && i && eg_class(f->op[i - 1]) >= 0) {
			int c = eg_class(f->op[i - 1]);
			eg_register(out, f->op[i - 1],
				    c == 0 ? 8 + (int)i - 1 : (high ? 17 : 1) + (int)i - 1);
		} else if (eg_class(k) >= 0) {
			eg_register(out, k,
				    eg_class(k) == 0 ? 8 + (int)i : (high ? 17 : 1) + (int)i);
		} else if (form_kind_is_access(k)) {
			const char *kw = eg_memory_keyword(k);
			/* indexed: rbx (SAMPLE_BASE) as base and index, the
			 * same address */
			if (form_kind_is_indexed(k))
				strbuf_addf(out, "%s%s[rbx + rbx*8 - %u]", kw ? kw : "",
					    kw ? " ptr " : "", 8 * SAMPLE_BASE - 64);
			else
				strbuf_addf(out, "%s%s[rbx + 64]", kw ? kw : "", kw ? " ptr " : "");
		} else if (k == FORM_CL) {
			strbuf_addf(out, "cl");
		} else if (eg_immediate(k)) {
			strbuf_addf(out, "%s", eg_immediate(k));
		} else if (!eg_address(out, k, "rbx", "rbx", 64)) {
			return perpi_set_error("operand kind %s: not generated", form_kind_name(k));
		}
	}
	strbuf_add(out, "\n", 1);
	return 0;
}

void eg_twin_text(struct strbuf *out, const char *text, int mode)
{
	const char *ops = strchr(text, ' ');
	strbuf_addf(out, "\tv%.*s", ops ? (int)(ops - text - 1) : (int)strlen(text) - 2, text + 1);
	if (!ops) {
		strbuf_add(out, "\n", 1);
		return;
	}
	const char *comma = strchr(ops, ',');
	if (mode == EG_TWIN_DEST && comma)
		strbuf_addf(out, "%.*s,", (int)(comma - ops), ops);
	strbuf_addf(out, "%s", ops);
}

/* Legacy SSE or VEX, from the form's name and operands (form.h names VEX
 * and EVEX forms by their "v" mnemonics; no legacy mnemonic with vector
 * registers starts with V). */
static void classify_encoding(struct eg_form *e)
{
	int vec = 0, xmm = 0;
	for (unsigned i = 0; i < e->form.n; i++) {
		vec |= eg_class(e->form.op[i]) == 1;
		xmm |= e->form.op[i] == FORM_XMM;
	}
	e->vex = vec && e->form.mnemonic[0] == 'V';
	e->sse = xmm && e->form.mnemonic[0] != 'V';
}

static int fetch_xstate(void *ctx, struct x86_xstate *out)
{
	memset(out, 0, sizeof(*out));
	return 0;
}

/* The register operand i of the low sample, as a unit range. */
static int operand_access(const struct form *f, unsigned i, const struct perpi_event *ev)
{
	int c = eg_class(f->op[i]), access = 0;
	unsigned first, count = 1;
	if (c == 0)
		first = UNIT_GPR + 8 + i;
	else if (c == 1)
		first = UNIT_VEC_PART(1 + i, 0), count = 3;
	else
		first = UNIT_K + 1 + i;
	for (unsigned s = 0; s < ev->n_src; s++)
		access |= ev->src[s] >= first && ev->src[s] < first + count ? EG_READ : 0;
	for (unsigned d = 0; d < ev->n_dst; d++)
		access |= ev->dst[d] >= first && ev->dst[d] < first + count ? EG_WRITE : 0;
	return access;
}

static int is_operand_unit(const struct form *f, unsigned unit)
{
	for (unsigned i = 0; i < f->n; i++) {
		int c = eg_class(f->op[i]);
		if ((c == 0 && unit == UNIT_GPR + 8 + i) ||
		    (c == 1 && unit >= UNIT_VEC_PART(1 + i, 0) &&
		     unit <= UNIT_VEC_PART(1 + i, 2)) ||
		    (c == 2 && unit == UNIT_K + 1 + i))
			return 1;
	}
	return 0;
}

/* A push's or pop's move of rsp in bytes (negative: a push), from its
 * access to the stack (rsp is 0 in the sample: a push writes just below
 * it, a pop reads at it); 0 for any other form, or one that also names rsp
 * (leave, enter) or moves more than one slot. */
static int stack_bytes(const struct eg_form *e, const struct perpi_event *ev)
{
	const char *m = strrchr(e->form.mnemonic, '.');
	m = m ? m + 1 : e->form.mnemonic;
	int push = !strncmp(m, "PUSH", 4), pop = !strncmp(m, "POP", 3);
	if (!push && !pop)
		return 0;
	for (unsigned k = 0; k < ev->n_mem; k++) {
		uint64_t a = ev->mem[k].addr;
		unsigned size = ev->mem[k].size;
		if (push && ev->mem[k].write && size <= 8 && a == (uint64_t)0 - size)
			return -(int)size;
		if (pop && !ev->mem[k].write && size <= 8 && a == 0)
			return (int)size;
	}
	return 0;
}

/* Reads what x86_resolve says the instance does into e; refuses what
 * could not be made free of dependencies. */
static void read_semantics(struct eg_form *e, const struct perpi_event *ev)
{
	uint32_t other_read = 0, other_write = 0;
	for (unsigned i = 0; i < e->form.n; i++)
		if (eg_class(e->form.op[i]) >= 0)
			e->access[i] = (unsigned char)operand_access(&e->form, i, ev);
	for (unsigned m = 0; m < ev->n_mem; m++) {
		/* a push's or pop's own slot (rsp is 0 in the sample) is the
		 * stack's, not the operand's: push qword ptr [m] only reads m */
		if (ev->mem[m].addr < SAMPLE_BASE || ev->mem[m].addr >= SAMPLE_BASE + 4096)
			continue;
		for (unsigned i = 0; i < e->form.n; i++)
			if (form_kind_is_memory(e->form.op[i]) &&
			    !form_kind_is_address(e->form.op[i]))
				e->access[i] |= ev->mem[m].write ? EG_WRITE : EG_READ;
	}
	for (unsigned s = 0; s < ev->n_src; s++) {
		unsigned u = ev->src[s];
		if (u < 16 && !is_operand_unit(&e->form, u))
			e->implicit_read |= 1u << u;
		else if (UNIT_IS_FLAG(u))
			e->flags_read = 1;
		else if (!is_operand_unit(&e->form, u))
			other_read |= 1;
	}
	for (unsigned d = 0; d < ev->n_dst; d++) {
		unsigned u = ev->dst[d];
		if (u < 16 && !is_operand_unit(&e->form, u))
			e->implicit_write |= 1u << u;
		else if (UNIT_IS_FLAG(u))
			e->flags_written = 1;
		else if (!is_operand_unit(&e->form, u))
			other_write |= 1;
	}
	/* rbx holds the sample's address: not an implicit register */
	e->implicit_read &= ~(1u << 3);
	/* push and pop: rsp moves at rename (the stack engine of every x86-64
	 * core since the Pentium M), the kernel's pushes wait on no chain;
	 * its loop gives them a stack of their own (eval_gen.c) */
	e->stack = stack_bytes(e, ev);
	if (e->stack) {
		e->implicit_read &= ~(1u << RSP);
		e->implicit_write &= ~(1u << RSP);
	}
	if (e->implicit_read & e->implicit_write)
		e->refused = xstrdup("it reads and writes an implicit register: each instance "
				     "would wait for the one before");
	else if (other_read && other_write)
		e->refused = xstrdup("it reads and writes implicit state (x87, MXCSR...)");
}

/* The samples GNU as complains about ("x.s:12: Error: ..."); line 1 is
 * the syntax directive, then each sample takes two lines (itself and the
 * int3 that ends it): line L is lines[(L - 2) / 2]. */
static void failed_lines(const char *diag, const char *stem, unsigned char *bad, size_t nlines)
{
	char *needle = xasprintf("%s.s:", stem);
	for (const char *p = diag; p && (p = strstr(p, needle)); p++) {
		unsigned long line = strtoul(p + strlen(needle), NULL, 10);
		if (line >= 2 && (line - 2) / 2 < nlines)
			bad[(line - 2) / 2] = 1;
	}
	free(needle);
}

/* Assembles lines[0..n) (skipping bad ones, and the ones as rejects),
 * into *bytes. Returns 0, or -1 if as fails for another reason. */
static int assemble_lines(struct eval_gen *g, char **lines, size_t n, unsigned char *bad,
			  uint8_t **bytes, size_t *len)
{
	for (int round = 0; round < 4; round++) {
		struct strbuf s;
		char stem[32], *diag = NULL, *obj;
		strbuf_init(&s);
		strbuf_addf(&s, ".intel_syntax noprefix\n");
		for (size_t i = 0; i < n; i++)
			strbuf_addf(&s, "%s", bad[i] ? "\tnop\n\tint3\n" : lines[i]);
		snprintf(stem, sizeof(stem), "sem%u", g->stem++);
		int rc = harness_assemble(g->dir, stem, s.buf, &diag);
		strbuf_done(&s);
		if (rc == 0) {
			obj = xasprintf("%s/%s.o", g->dir, stem);
			rc = harness_text_bytes(obj, bytes, len);
			free(obj);
			free(diag);
			return rc;
		}
		unsigned char *was = xmalloc(n + 1);
		memcpy(was, bad, n);
		failed_lines(diag ? diag : "", stem, bad, n);
		int progress = memcmp(was, bad, n) != 0;
		free(was);
		free(diag);
		if (!progress)
			return -1;
	}
	return -1;
}

static int by_name(const void *a, const void *b)
{
	return strcmp(((const struct eg_form *)a)->name, ((const struct eg_form *)b)->name);
}

/* Decodes the region of one sample (its instructions up to the int3 that
 * ends it): its form's name in name, the first instruction in insn.
 * Returns the region's length with the int3. */
static size_t decode_region(struct x86_decoder *dec, const uint8_t *code, size_t avail,
			    struct perpi_insn *insn, char *name, size_t size)
{
	size_t at = 0, count = 0;
	struct perpi_insn next;
	name[0] = '\0';
	while (at < avail) {
		struct perpi_insn *d = count ? &next : insn;
		if (x86_decode(dec, 0x400000 + at, code + at, avail - at, d) < 0 || !d->len)
			return avail;
		if (d->len == 1 && code[at] == 0xcc)
			break;
		if (count == 0 && lift_insn_form(code, d->len, 0x400000, name, size) < 0)
			snprintf(name, size, "no form");
		at += d->len;
		count++;
	}
	if (count > 1)
		snprintf(name, size, "several instructions");
	return at + 1;
}

static void learn_one(struct eg_form *e, struct x86_decoder *dec, const uint8_t *code, size_t len,
		      size_t *at, int assembled_low, int assembled_high)
{
	struct perpi_insn insn;
	struct perpi_event ev;
	char name[FORM_NAME_MAX];
	struct user_regs_struct regs;
	memset(&regs, 0, sizeof(regs));
	regs.rbx = SAMPLE_BASE;
	regs.rcx = 1;
	struct x86_state st = {&regs, fetch_xstate, NULL, 0};
	*at += decode_region(dec, code + *at, len - *at, &insn, name, sizeof(name));
	if (!assembled_low && !e->refused)
		e->refused = xstrdup("GNU as does not assemble the instance this generator writes");
	else if (!e->refused && strcmp(name, e->name))
		e->refused = xasprintf("its instance decodes as %s", name[0] ? name : "nothing");
	memset(&ev, 0, sizeof(ev));
	if (!e->refused && x86_resolve(&insn, &st, &ev) < 0)
		e->refused = xasprintf("perpi's x86 layer cannot resolve it: %s", perpi_error());
	if (!e->refused)
		read_semantics(e, &ev);
	*at += decode_region(dec, code + *at, len - *at, &insn, name, sizeof(name));
	e->high_vectors = assembled_high && !strcmp(name, e->name);
}

/* Whether the region at code decodes as a VEX/EVEX twin of e: a form
 * named "V" + e's mnemonic (its region's length added to *at). */
static int twin_decodes(const struct eg_form *e, struct x86_decoder *dec, const uint8_t *code,
			size_t len, size_t *at)
{
	struct perpi_insn insn;
	char name[FORM_NAME_MAX];
	*at += decode_region(dec, code + *at, len - *at, &insn, name, sizeof(name));
	size_t m = strlen(e->form.mnemonic);
	return name[0] == 'V' && !strncmp(name + 1, e->form.mnemonic, m) && name[m + 1] == '_';
}

/* The VEX twins of the legacy-SSE forms learnt (eg_form.twin): both
 * shapes assembled at once, decoded; the one that keeps the legacy
 * form's reads is kept (the destination repeated when it is read). */
static void learn_twins(struct eval_gen *g)
{
	size_t n = 0, *which = xcalloc(g->n + 1, sizeof(size_t));
	char **lines = xcalloc(2 * g->n + 1, sizeof(char *));
	for (size_t i = 0; i < g->n; i++) {
		struct eg_form *e = &g->f[i];
		if (!e->learnt || e->refused || !e->sse || e->twin_learnt)
			continue;
		e->twin_learnt = 1;
		for (int mode = EG_TWIN_SAME; mode <= EG_TWIN_DEST; mode++) {
			struct strbuf inst, s;
			strbuf_init(&inst);
			strbuf_init(&s);
			sample(&e->form, 0, &inst);
			eg_twin_text(&s, inst.buf, mode);
			strbuf_addf(&s, "\tint3\n");
			strbuf_done(&inst);
			lines[2 * n + (size_t)mode - 1] = s.buf;
		}
		which[n++] = i;
	}
	unsigned char *bad = xcalloc(2 * n + 1, 1);
	uint8_t *code = NULL;
	size_t len = 0, at = 0;
	if (n && assemble_lines(g, lines, 2 * n, bad, &code, &len) == 0) {
		struct x86_decoder *dec = x86_decoder_new();
		for (size_t w = 0; w < n; w++) {
			struct eg_form *e = &g->f[which[w]];
			int same = twin_decodes(e, dec, code, len, &at) && !bad[2 * w];
			int dest = twin_decodes(e, dec, code, len, &at) && !bad[2 * w + 1] &&
				   e->form.n >= 2 && eg_class(e->form.op[0]) == 1;
			if (dest && (e->access[0] & EG_READ || !same))
				e->twin = EG_TWIN_DEST;
			else if (same && !(e->access[0] & EG_READ && eg_class(e->form.op[0]) == 1))
				e->twin = EG_TWIN_SAME;
		}
		x86_decoder_delete(dec);
	}
	for (size_t i = 0; i < 2 * n; i++)
		free(lines[i]);
	free(lines);
	free(bad);
	free(which);
	free(code);
}

static void form_free(struct eg_form *e)
{
	free(e->name);
	free(e->refused);
}

/* The forms to learn, parsed (a name that does not parse, or that the
 * runner could never time, is refused at once), in g->f sorted. */
static void add_forms(struct eval_gen *g, const char *const *forms, size_t n)
{
	size_t old = g->n, kept = 0;
	g->f = xrealloc(g->f, (g->n + n + 1) * sizeof(*g->f));
	for (size_t i = 0; i < n; i++) {
		g->n = old;
		int known = eg_find(g, forms[i]) != NULL;
		g->n = old + kept;
		if (known)
			continue;
		struct eg_form *e = &g->f[old + kept++];
		memset(e, 0, sizeof(*e));
		e->name = xstrdup(forms[i]);
		const char *why;
		if (form_parse(forms[i], &e->form) < 0)
			e->refused = xstrdup(perpi_error());
		else if ((why = form_unsupported_reason(&e->form)))
			e->refused = xstrdup(why);
		else
			classify_encoding(e);
	}
	g->n = old + kept;
	qsort(g->f, g->n, sizeof(*g->f), by_name); /* eg_find bisects */
	size_t out = 0;
	for (size_t i = 0; i < g->n; i++) {
		if (out && !strcmp(g->f[out - 1].name, g->f[i].name)) {
			form_free(&g->f[i]); /* the same new form twice */
			continue;
		}
		g->f[out++] = g->f[i];
	}
	g->n = out;
}

/* The indexed twins (CMP_M8X_GPR8) of the forms with memory operands:
 * the kernels eval_gen_draw addresses with an index use them. */
static void add_indexed_twins(struct eval_gen *g, const char *const *forms, size_t n)
{
	char **twins = xcalloc(n + 1, sizeof(char *));
	size_t nt = 0;
	for (size_t i = 0; i < n; i++) {
		char name[FORM_NAME_MAX];
		if (form_name_indexed(forms[i], name, sizeof(name)))
			twins[nt++] = xstrdup(name);
	}
	add_forms(g, (const char *const *)twins, nt);
	for (size_t i = 0; i < nt; i++)
		free(twins[i]);
	free(twins);
}

size_t eval_gen_learn(struct eval_gen *g, const char *const *forms, size_t n)
{
	size_t nlines = 0, known = 0;
	add_forms(g, forms, n);
	add_indexed_twins(g, forms, n);
	char **lines = xcalloc(2 * g->n + 1, sizeof(char *));
	unsigned char *bad = xcalloc(2 * g->n + 1, 1);
	size_t *which = xcalloc(g->n + 1, sizeof(size_t)), nwhich = 0;
	for (size_t i = 0; i < g->n; i++) {
		struct eg_form *e = &g->f[i];
		if (e->refused || e->learnt)
			continue;
		e->learnt = 1;
		for (int high = 0; high < 2; high++) {
			struct strbuf s;
			strbuf_init(&s);
			if (sample(&e->form, high, &s) < 0) {
				e->refused = xstrdup(perpi_error());
				strbuf_done(&s);
				break;
			}
			strbuf_addf(&s, "\tint3\n");
			lines[nlines++] = s.buf;
		}
		if (!e->refused)
			which[nwhich++] = i;
		else if (nlines % 2)
			free(lines[--nlines]);
	}
	uint8_t *code = NULL;
	size_t len = 0, at = 0;
	if (nlines && assemble_lines(g, lines, nlines, bad, &code, &len) == 0) {
		struct x86_decoder *dec = x86_decoder_new();
		for (size_t w = 0; w < nwhich; w++)
			learn_one(&g->f[which[w]], dec, code, len, &at, !bad[2 * w],
				  !bad[2 * w + 1]);
		x86_decoder_delete(dec);
	} else {
		for (size_t w = 0; w < nwhich; w++)
			g->f[which[w]].refused =
			    xasprintf("its instances could not be assembled: %s", perpi_error());
	}
	for (size_t i = 0; i < nlines; i++)
		free(lines[i]);
	learn_twins(g);
	for (size_t i = 0; i < g->n; i++)
		known += !g->f[i].refused;
	free(lines);
	free(bad);
	free(which);
	free(code);
	return known;
}

const char *eval_gen_refused(const struct eval_gen *g, const char *form)
{
	const struct eg_form *e = eg_find(g, form);
	return !e ? "not learnt" : e->refused;
}

struct eval_gen *eval_gen_new(const char *dir)
{
	struct eval_gen *g = xcalloc(1, sizeof(*g));
	g->dir = xstrdup(dir);
	g->passes = 2;
	__builtin_cpu_init();
	g->avx = __builtin_cpu_supports("avx2");
	g->avx512 = __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512vl");
	return g;
}

void eval_gen_delete(struct eval_gen *g)
{
	if (!g)
		return;
	for (size_t i = 0; i < g->n; i++)
		form_free(&g->f[i]);
	free(g->f);
	if (g->worker)
		harness_worker_delete(g->worker);
	free(g->dir);
	free(g);
}
