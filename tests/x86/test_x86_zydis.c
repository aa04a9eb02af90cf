/* The second opinion: every instruction of libc's .text (linear sweep),
 * decoded by Capstone + the fix table (perpi's semantics) and by Zydis
 * alone (its operand actions, hidden operands and per-flag effects, through
 * the same DESIGN.md rules), resolved in the same state, must give the same
 * source units, destination units and memory bytes. Every disagreement
 * class is a fix-table entry (so it no longer shows) or an exception below,
 * with the reason; any other disagreement fails the test. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/util.h"
#include "tests/x86/x86_test_util.h"
#include "tracer/elf.h"
#include "tracer/x86.h"
#include "tracer/x86_sem.h"

#define LIBC "/lib/x86_64-linux-gnu/libc.so.6"
#define LIBM "/lib/x86_64-linux-gnu/libm.so.6" /* x87 and SSE math: more forms */

/* Disagreement classes accepted, with the reason. A class is
 * "MNEMONIC KIND UNIT": KIND is src+/src-/dst+/dst-/mem+/mem- (+: perpi has
 * it and Zydis does not; -: the reverse); "*" ends a prefix pattern. */
struct exception {
	const char *mnemonic, *kind, *unit, *reason;
};

static const struct exception exceptions[] = {
    {"fxam", "dst-", "fp*",
     "Zydis marks ST(0) read-write; the SDM: fxam only classifies ST(0) into C0-C3"},
    {"leave", "src-", "rsp",
     "Zydis lists RSP read for leave's pop step, which reads the RSP leave itself just "
     "set from RBP: no dependency on the old RSP"},
    {"ffreep", "*", "fp*",
     "ffreep only tags ST(i) empty and pops: Capstone calls ST(i) written, Zydis read; "
     "no value flows either way (perpi keeps Capstone's write)"},
    /* Seen in tests/x86/forms.S (forms.sh), none in libc or libm: */
    {"cmps*", "dst+", "rsi",
     "cmps advances RSI and RDI after every compare, REP prefix or not (SDM); Zydis does "
     "not list them written"},
    {"cmps*", "dst+", "rdi",
     "cmps advances RSI and RDI after every compare, REP prefix or not (SDM); Zydis does "
     "not list them written"},
    {"scas*", "dst+", "rdi",
     "scas advances RDI after every compare, REP prefix or not (SDM); Zydis does not list "
     "it written"},
    {"cmps*", "src-", "zf",
     "repe/repne test the ZF this iteration's own compare wrote, not an earlier one: one "
     "event per iteration (DESIGN.md), no dependency"},
    {"scas*", "src-", "zf",
     "repe/repne test the ZF this iteration's own compare wrote, not an earlier one: one "
     "event per iteration (DESIGN.md), no dependency"},
    {"vptest", "dst+", "*",
     "the SDM: (V)PTEST sets ZF and CF and clears AF OF PF SF; Zydis lists only ZF and CF "
     "for the VEX form (all six for ptest)"},
    {"cvtpi2ps", "src+", "v*",
     "cvtpi2ps writes the two low floats and keeps the two upper ones (SDM): the "
     "destination merges"},
    {"ftst", "dst-", "fp*", "Zydis marks ST(0) written; the SDM: ftst only compares ST(0) with 0"},
    {"xabort", "*", "rax",
     "xabort writes EAX only inside an RTM transaction; outside one (and Zen 4 has no "
     "RTM) it is a no-op"},
};

struct class_count {
	char key[96];
	char example[96];
	long count;
	int excepted;
};

static struct class_count classes[4096];
static int n_classes;

static int pattern(const char *p, const char *s)
{
	if (!p)
		return 1;
	size_t l = strlen(p);
	if (l && p[l - 1] == '*')
		return !strncmp(p, s, l - 1);
	return !strcmp(p, s);
}

static int excepted(const char *mn, const char *kind, const char *unit)
{
	for (size_t i = 0; i < ARRAY_SIZE(exceptions); i++)
		if (exceptions[i].reason && pattern(exceptions[i].mnemonic, mn) &&
		    pattern(exceptions[i].kind, kind) && pattern(exceptions[i].unit, unit))
			return 1;
	return 0;
}

static int unexplained; /* in the instruction being compared */

static void note(const char *mn, const char *kind, const char *unit, const char *text)
{
	char key[96];
	snprintf(key, sizeof(key), "%s %s %s", mn, kind, unit);
	for (int i = 0; i < n_classes; i++)
		if (!strcmp(classes[i].key, key)) {
			classes[i].count++;
			unexplained += !classes[i].excepted;
			return;
		}
	unexplained += !excepted(mn, kind, unit);
	if (n_classes >= (int)ARRAY_SIZE(classes))
		return;
	struct class_count *c = &classes[n_classes++];
	snprintf(c->key, sizeof(c->key), "%s", key);
	snprintf(c->example, sizeof(c->example), "%s", text);
	c->count = 1;
	c->excepted = excepted(mn, kind, unit);
}

static int in_list(const uint8_t *u, int n, int x)
{
	for (int i = 0; i < n; i++)
		if (u[i] == x)
			return 1;
	return 0;
}

/* Compare unit lists; returns the number of differences, noting each. */
static int diff_units(const char *mn, const char *what, const uint8_t *a, int na, const uint8_t *b,
		      int nb, const char *text)
{
	int d = 0;
	char kind[8];
	for (int i = 0; i < na; i++)
		if (!in_list(b, nb, a[i])) {
			snprintf(kind, sizeof(kind), "%s+", what);
			note(mn, kind, x86t_unit_name(a[i]), text);
			d++;
		}
	for (int i = 0; i < nb; i++)
		if (!in_list(a, na, b[i])) {
			snprintf(kind, sizeof(kind), "%s-", what);
			note(mn, kind, x86t_unit_name(b[i]), text);
			d++;
		}
	return d;
}

/* Memory as byte sets: expand accesses into (address, rw) bytes. */
static int mem_has(const struct perpi_event *ev, uint64_t addr, int write)
{
	for (int i = 0; i < ev->n_mem; i++)
		if (ev->mem[i].write == write && addr - ev->mem[i].addr < ev->mem[i].size)
			return 1;
	return 0;
}

static int diff_mem_one(const char *mn, const char *kind, const struct perpi_event *a,
			const struct perpi_event *b, const char *text)
{
	for (int i = 0; i < a->n_mem; i++)
		for (uint32_t o = 0; o < a->mem[i].size && o < 4096; o++)
			if (!mem_has(b, a->mem[i].addr + o, a->mem[i].write)) {
				note(mn, kind, a->mem[i].write ? "write" : "read", text);
				return 1;
			}
	return 0;
}

static void mnemonic_of(const char *text, char *out, size_t size)
{
	const char *t = text;
	static const char *const prefixes[] = {"rep ", "repe ", "repne ", "lock ",  "notrack ",
					       "bnd ", "repz ", "repnz ", "data16 "};
	for (int again = 1; again;) {
		again = 0;
		for (size_t i = 0; i < ARRAY_SIZE(prefixes); i++)
			if (!strncmp(t, prefixes[i], strlen(prefixes[i]))) {
				t += strlen(prefixes[i]);
				again = 1;
			}
	}
	size_t n = strcspn(t, " ");
	snprintf(out, size, "%.*s", (int)(n < size ? n : size - 1), t);
}

static void sweep_state(struct user_regs_struct *r, struct x86_xstate *xs)
{
	memset(r, 0, sizeof(*r));
	unsigned long long *g[16] = {&r->rax, &r->rcx, &r->rdx, &r->rbx, &r->rsp, &r->rbp,
				     &r->rsi, &r->rdi, &r->r8,	&r->r9,	 &r->r10, &r->r11,
				     &r->r12, &r->r13, &r->r14, &r->r15};
	for (int i = 0; i < 16; i++)
		*g[i] = 0x100000 * (uint64_t)(i + 1);
	r->rcx = 5;    /* non-zero count: REP iterations and shifts touch what they touch */
	r->rax = 0x1f; /* xsave: x87 .. AVX-512 requested */
	r->rdx = 0;
	r->fs_base = 0x7f0000000000;
	r->gs_base = 0x7e0000000000;
	memset(xs, 0, sizeof(*xs));
	xs->fsw = 3 << 11;
	for (int i = 0; i < 8; i++)
		xs->k[i] = ~0ull;
	for (int v = 0; v < 32; v++)
		for (int b = 0; b < 64; b += 4)
			xs->zmm[v][b + 3] = 0x80, xs->zmm[v][b] = (uint8_t)(b / 4);
}

struct ctx {
	struct x86_xstate xs;
};

static int fetch(void *c, struct x86_xstate *out)
{
	*out = ((struct ctx *)c)->xs;
	return 0;
}

struct totals {
	long swept, compared, agreeing, excepted, zydis_only, unknown, length_mismatch;
};

static void compare_one(struct x86_decoder *dec, uint64_t addr, const uint8_t *b, size_t avail,
			const struct x86_state *st, struct totals *t, size_t *advance)
{
	static struct perpi_event ea, eb;
	struct perpi_insn ia, ib;
	*advance = 1;
	if (x86_decode(dec, addr, b, avail, &ia) < 0)
		return;
	*advance = ia.len;
	t->swept++;
	if (ia.decoder == DECODER_UNKNOWN) {
		t->unknown++;
		return;
	}
	if (ia.decoder == DECODER_ZYDIS) {
		t->zydis_only++;
		return;
	}
	if (x86_decode_zydis_raw(dec, addr, b, avail, &ib) < 0)
		return;
	if (ib.len != ia.len) {
		t->length_mismatch++;
		return;
	}
	struct user_regs_struct regs = *st->regs;
	regs.rip = addr;
	struct x86_state s2 = *st;
	s2.regs = &regs;
	if (x86_resolve(&ia, &s2, &ea) < 0 || x86_resolve(&ib, &s2, &eb) < 0)
		return;
	t->compared++;
	char mn[32];
	mnemonic_of(ia.text, mn, sizeof(mn));
	int d = 0;
	unexplained = 0;
	d += diff_units(mn, "src", ea.src, ea.n_src, eb.src, eb.n_src, ia.text);
	d += diff_units(mn, "dst", ea.dst, ea.n_dst, eb.dst, eb.n_dst, ia.text);
	d += diff_mem_one(mn, "mem+", &ea, &eb, ia.text);
	d += diff_mem_one(mn, "mem-", &eb, &ea, ia.text);
	if (!d)
		t->agreeing++;
	else if (!unexplained)
		t->excepted++;
}

static int sweep(const char *path, struct totals *t)
{
	uint8_t *p;
	size_t size, off = 0, advance;
	uint64_t addr;
	if (elf_read_section(path, ".text", &p, &size, &addr) < 0)
		return -1;
	struct user_regs_struct regs;
	struct ctx ctx;
	sweep_state(&regs, &ctx.xs);
	struct x86_state st = {&regs, fetch, &ctx};
	struct x86_decoder *dec = x86_decoder_new();
	for (long n = 0; off < size; n++) {
		if (n % 20000 == 19999) { /* bound the decoder's semantics arena */
			x86_decoder_delete(dec);
			dec = x86_decoder_new();
		}
		size_t avail = size - off < 15 ? size - off : 15;
		compare_one(dec, addr + off, p + off, avail, &st, t, &advance);
		off += advance ? advance : 1;
	}
	x86_decoder_delete(dec);
	free(p);
	return 0;
}

static int by_count(const void *a, const void *b)
{
	const struct class_count *x = a, *y = b;
	return (y->count > x->count) - (y->count < x->count);
}

static int sweep_report(const char *path)
{
	struct totals t = {0};
	double t0 = perpi_now();
	n_classes = 0;
	if (sweep(path, &t) < 0) {
		fprintf(stderr, "perpi: test_x86_zydis: cannot read %s\n", path);
		return -1;
	}
	qsort(classes, (size_t)n_classes, sizeof(classes[0]), by_count);
	long bad = 0, exc = 0;
	for (int i = 0; i < n_classes; i++) {
		if (classes[i].excepted)
			exc += classes[i].count;
		else
			bad += classes[i].count;
		printf("%s %-40s %6ld  e.g. %s\n", classes[i].excepted ? "excepted" : "DISAGREE",
		       classes[i].key, classes[i].count, classes[i].example);
	}
	printf("%ld instructions swept in %s: %ld compared, %ld agreeing, %ld excepted, %ld "
	       "disagreeing (%ld excepted and %ld unexplained unit/memory differences); not "
	       "compared: %ld decoded by Zydis only, %ld by neither, %ld length mismatches; "
	       "%.1f s\n",
	       t.swept, path, t.compared, t.agreeing, t.excepted,
	       t.compared - t.agreeing - t.excepted, exc, bad, t.zydis_only, t.unknown,
	       t.length_mismatch, perpi_now() - t0);
	return bad ? 1 : 0;
}

int main(int argc, char **argv)
{
	const char *defaults[] = {LIBC, LIBM};
	const char **paths = argc > 1 ? (const char **)argv + 1 : defaults;
	int n = argc > 1 ? argc - 1 : 2, failed = 0, swept = 0;
	for (int i = 0; i < n; i++) {
		if (access(paths[i], R_OK) != 0) {
			printf("%s not readable: not swept\n", paths[i]);
			continue;
		}
		int rc = sweep_report(paths[i]);
		if (rc < 0)
			return 1;
		failed += rc;
		swept++;
	}
	if (!swept) {
		printf("SKIP: no library to sweep (%s)\n", LIBC);
		return 77;
	}
	return failed ? 1 : 0;
}
