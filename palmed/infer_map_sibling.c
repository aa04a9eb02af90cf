/* Siblings: a form to map that runs as a core form of its shape does.
 *
 * Palmed groups instructions that behave alike into classes and models
 * one of each (its "basic instructions"). Here the core is a fixed list,
 * and most forms outside it are a core form at another operand width or
 * immediate size, or another operation on the same unit: xor r64, r64
 * beside xor r32, r32; sub r64, imm8 beside add r32, imm8; rol r64, imm8
 * beside rol r32, imm8. Probed against the core's bases, such a form is
 * read through kernels of several core forms whose bottleneck on the
 * machine need not be the one the core's model names: on a Zen 5 no base
 * saturated the integer ALUs, every probe read zero on them, and xor,
 * sub, or, add with an immediate came out on a resource of their own,
 * beside none of the core's integer forms (blocks of them were predicted
 * at 7.98 instructions a cycle, measured at 4.4-6.2).
 *
 * So before the probes, each form is measured in a pair with up to three
 * core forms of its shape (the same operand kinds, widths aside) whose
 * cycles alone are within 10% of its own, the one of the same mnemonic
 * first: a and b instances, as many cycles each. When the pair takes the
 * sum of both (they share the bottleneck, as the core's own pairs showed
 * for its forms), the form takes the core form's usages, scaled by their
 * cycles alone, and is not probed. A pair that takes less (they do not
 * share it) or far more (an interference) leaves the form to the probes.
 * Forms that run with helpers, or beside core forms that do, are left to
 * the probes too: their pairs would time the helpers as well.
 *
 * A memory form and a core memory form of another operation can take the
 * sum by their loads alone: on a Zen 4, vector loads run two a cycle, and
 * 447 forms (pmovsxbd xmm, [m32], punpckhqdq xmm, [m128], vpaddsw...)
 * paired with addsd xmm, [m64] took its usages, the FP adders' with them;
 * pcmpgtb x4, subps, vpmovsxbd xmm, [m32] x4 was predicted at 3.06
 * cycles and runs in 2.0. Such a pair is kept only where the two register
 * forms run on one unit (the core forms whose usages they carry share
 * their largest resource), or where the form has no register form mapped
 * here to go by (test byte ptr [m], imm8 on a machine without test r8,
 * imm8). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/util.h"
#include "palmed/form.h"
#include "palmed/infer_map_private.h"

#define SIB_SPREAD 0.10	      /* cycles alone within this much of each other */
#define SIB_CANDIDATES 3      /* core forms tried per form */
#define SIB_INTERFERENCE 0.10 /* a pair slower than the sum by this: not siblings */
#define SIB_ACCESS_SPREAD 0.25 /* for a core form of another shape that accesses memory */

/* Form name's mnemonic and operand kinds, widths and immediate sizes aside
 * (GPR64 -> GPR, IMM8 -> IMM, M64 and M64X -> M; XMM, YMM, MEMBI, ONE,
 * CL... kept: their sizes and addressing change the units a form runs on;
 * an indexed memory operand is a core form's sibling when the pair says
 * so: probed against the bases, TEST_M8X_IMM8 came out on a resource of
 * its own on a Zen 3, beside no load, and movzx r32, m8 with it was
 * predicted at 0.38 cycles where it runs 0.72), into f.
 * Returns 0, or -1 for a name that is no form or has no operands to go by
 * (nop, cdq; a simulated "A"). */
static int form_shape(const char *name, struct form *f)
{
	if (form_parse(name, f) < 0 || f->n == 0)
		return -1;
	for (unsigned i = 0; i < f->n; i++)
		if (f->op[i] >= FORM_GPR8 && f->op[i] <= FORM_GPR64)
			f->op[i] = FORM_GPR64;
		else if (f->op[i] >= FORM_IMM8 && f->op[i] <= FORM_IMM64)
			f->op[i] = FORM_IMM64;
		else if (form_kind_is_access(f->op[i])) /* indexed or not */
			f->op[i] = FORM_M64;
	return 0;
}

static int same_shape(const struct form *a, const struct form *b)
{
	return a->n == b->n && !memcmp(a->op, b->op, a->n * sizeof(a->op[0]));
}

/* Shape f has a vector, mask or MMX register operand. */
static int vector(const struct form *f)
{
	for (unsigned i = 0; i < f->n; i++)
		if (f->op[i] == FORM_XMM || f->op[i] == FORM_YMM || f->op[i] == FORM_ZMM ||
		    f->op[i] == FORM_K || f->op[i] == FORM_MM)
			return 1;
	return 0;
}

/* Shape f has a memory operand that is accessed (not LEA's address). */
static int accesses(const struct form *f)
{
	for (unsigned i = 0; i < f->n; i++)
		if (form_kind_is_access(f->op[i]))
			return 1;
	return 0;
}

static int by_kind(const void *a, const void *b)
{
	return (int)*(const enum form_kind *)a - (int)*(const enum form_kind *)b;
}

/* Shapes a and b hold the same operand kinds in another order (cmp m8, r8
 * and cmp r64, m64 both load and compare). */
static int same_kinds(const struct form *a, const struct form *b)
{
	struct form x = *a, y = *b;
	qsort(x.op, x.n, sizeof(x.op[0]), by_kind);
	qsort(y.op, y.n, sizeof(y.op[0]), by_kind);
	return same_shape(&x, &y);
}

#define SIB_UNIT 0.95 /* a core form's unit: its resources within this of its largest usage */

struct candidate {
	size_t target, core;
	double rank;
};

/* Core form j measures beside no helper. */
static int core_alone(const struct mapping *mp, size_t j)
{
	struct kernel k;
	kernel_init(&k);
	kernel_add(&k, mp->core.forms[j], 1);
	char *h = map_helpers_expected(mp, &k);
	kernel_done(&k);
	free(h);
	return h == NULL;
}

static int by_rank(const void *a, const void *b)
{
	double x = ((const struct candidate *)a)->rank, y = ((const struct candidate *)b)->rank;
	return (x > y) - (x < y);
}

/* The core forms target t may be a sibling of, best first, into out
 * (up to SIB_CANDIDATES; all holds room for the whole core); returns how
 * many. */
static size_t candidates_of(const struct mapping *mp, size_t t, const unsigned char *alone,
			    struct candidate *all, struct candidate *out)
{
	const struct target *tg = &mp->t[t];
	struct form want, got;
	size_t n = 0;
	if (form_shape(tg->name, &want) < 0)
		return 0;
	for (size_t j = 0; j < mp->core.n; j++) {
		double s = mp->core.single[j], off = fabs(s / tg->single - 1);
		const char *pair[2] = {tg->name, mp->core.forms[j]};
		if (!alone[j] || !(s > 0) || off > SIB_ACCESS_SPREAD ||
		    form_shape(mp->core.forms[j], &got) < 0 || form_stores_in_turn(pair, 2))
			continue;
		int mnemonic = !strcmp(want.mnemonic, got.mnemonic), rank;
		if (off > SIB_SPREAD)
			rank = -1;
		else if (same_shape(&want, &got))
			rank = mnemonic ? 0 : 1;
		else if (mnemonic && same_kinds(&want, &got))
			rank = 2; /* the same operation, its operands in another order */
		else
			rank = -1;
		/* last: a core form of another shape, both accessing memory (test
		 * byte ptr [m], imm8 beside cmp r64, [m] on a Zen 3: their pair
		 * takes the sum, each bound by the loads; probed, the test read
		 * little against the core's load base, held vector loads that
		 * leave room for it, and was predicted beside a mov load at 0.44
		 * cycles where it runs 0.75); of the same registers first (test
		 * dword ptr [m], imm32, 0.47 cycles alone, tried movd xmm, [m]
		 * and movaps, closer in cycles, and not cmp r64, [m]) */
		if (rank < 0 && accesses(&want) && accesses(&got))
			rank = vector(&want) == vector(&got) ? 3 : 4;
		if (rank < 0)
			continue;
		all[n].target = t;
		all[n].core = j;
		all[n++].rank = rank + fabs(log(s / tg->single));
	}
	qsort(all, n, sizeof(*all), by_rank);
	n = n < SIB_CANDIDATES ? n : SIB_CANDIDATES;
	memcpy(out, all, n * sizeof(*all));
	return n;
}

/* A memory form and a core form of another operation (their pair is
 * judged by their register forms: same_unit). */
static int other_operation(const struct mapping *mp, size_t t, size_t j)
{
	struct form a, b;
	return form_parse(mp->t[t].name, &a) == 0 && form_parse(mp->core.forms[j], &b) == 0 &&
	       accesses(&a) && strcmp(a.mnemonic, b.mnemonic) != 0;
}

/* The core form whose usages the form named name carries here: the core
 * form of that name, or the sibling a target of that name took; -1 when it
 * took none (probed), -2 when no form of that name is mapped here. */
static long carried_by(const struct mapping *mp, const char *name)
{
	for (size_t j = 0; j < mp->core.n; j++)
		if (!strcmp(mp->core.forms[j], name))
			return (long)j;
	for (size_t t = 0; t < mp->nt; t++)
		if (!strcmp(mp->t[t].name, name))
			return mp->t[t].sibling >= 0 ? mp->t[t].sibling : -1;
	return -2;
}

/* Whether core forms a and b share a resource that carries nearly the
 * largest usage of each. */
static int units_meet(const struct map_core *c, size_t a, size_t b)
{
	double ta = 0, tb = 0;
	for (size_t r = 0; r < c->R; r++) {
		ta = fmax(ta, c->rho[r][a]);
		tb = fmax(tb, c->rho[r][b]);
	}
	for (size_t r = 0; r < c->R; r++)
		if (ta > 0 && tb > 0 && c->rho[r][a] >= SIB_UNIT * ta &&
		    c->rho[r][b] >= SIB_UNIT * tb)
			return 1;
	return 0;
}

/* Memory form t of another operation than core form j, their pair the sum
 * of both: whether t may take j's usages (see the top of this file). */
static int same_unit(const struct mapping *mp, size_t t, size_t j)
{
	char rt[2][FORM_NAME_MAX], rj[2][FORM_NAME_MAX];
	size_t nt = form_name_registers(mp->t[t].name, rt),
	       nj = form_name_registers(mp->core.forms[j], rj);
	long ut = -2, uj = -2;
	for (size_t i = 0; i < nt && ut == -2; i++)
		ut = carried_by(mp, rt[i]);
	if (ut == -2)
		return 1;
	for (size_t i = 0; i < nj && uj == -2; i++)
		uj = carried_by(mp, rj[i]);
	return ut >= 0 && uj >= 0 && units_meet(&mp->core, (size_t)ut, (size_t)uj);
}

int map_siblings(struct mapping *mp)
{
	unsigned char *alone = xmalloc(mp->core.n + 1);
	struct candidate *c = xmalloc((mp->nt * SIB_CANDIDATES + 1) * sizeof(*c)),
			 *all = xmalloc((mp->core.n + 1) * sizeof(*all));
	size_t n = 0;
	for (size_t j = 0; j < mp->core.n; j++)
		alone[j] = (unsigned char)core_alone(mp, j);
	for (size_t t = 0; t < mp->nt; t++)
		if (!mp->t[t].helpers && mp->t[t].sibling < 0 && mp->t[t].twin < 0)
			n += candidates_of(mp, t, alone, all, c + n);
	struct batch b;
	unsigned *xa = xmalloc((n + 1) * sizeof(unsigned)),
		 *xb = xmalloc((n + 1) * sizeof(unsigned));
	map_batch_init(&b, n);
	for (size_t k = 0; k < n; k++) {
		map_balance(mp->t[c[k].target].single, mp->core.single[c[k].core], &xa[k], &xb[k]);
		kernel_add(&b.ks[k], mp->t[c[k].target].name, xa[k]);
		kernel_add(&b.ks[k], mp->core.forms[c[k].core], xb[k]);
	}
	if (n)
		infer_meter_label(mp->mt, "mapping: %zu forms beside core forms of their shape", n);
	int rc = n ? map_measure(mp, b.ks, b.n, b.cycles, b.status, b.errors) : 0;
	/* the candidates of a target are consecutive, best first; a memory
	 * form beside a core form of another operation waits for the register
	 * forms' siblings (a second pass) */
	unsigned char *took = xcalloc(n + 1, 1);
	for (size_t k = 0; rc == 0 && k < n; k++) {
		struct target *t = &mp->t[c[k].target];
		double sum = xa[k] * t->single + xb[k] * mp->core.single[c[k].core];
		if (getenv("PERPI_MAP_DEBUG")) { /* every pair, for bench/ */
			char *spec = kernel_to_string(&b.ks[k]);
			fprintf(stderr, "sibling %s: %d %.4f sum %.4f %s\n", spec, b.status[k],
				b.cycles[k], sum, b.errors[k] ? b.errors[k] : "");
			free(spec);
		}
		if (t->sibling >= 0 || b.status[k] != 0)
			continue;
		if (!(b.cycles[k] >= sum * (1 - 2 * mp->o->tol) &&
		      b.cycles[k] <= sum * (1 + SIB_INTERFERENCE)))
			continue;
		if (other_operation(mp, c[k].target, c[k].core)) {
			took[k] = 1;
			continue;
		}
		t->sibling = (long)c[k].core;
		mp->stats->siblings++;
	}
	for (size_t k = 0; rc == 0 && k < n; k++) {
		struct target *t = &mp->t[c[k].target];
		if (!took[k] || t->sibling >= 0)
			continue;
		if (!same_unit(mp, c[k].target, c[k].core)) {
			took[k] = 2;
			continue;
		}
		t->sibling = (long)c[k].core;
		mp->stats->siblings++;
	}
	for (size_t k = 0, apart = 0; rc == 0 && k < n; k++) { /* once per form */
		apart |= took[k] == 2;
		if (k + 1 == n || c[k + 1].target != c[k].target) {
			mp->stats->siblings_apart += apart && mp->t[c[k].target].sibling < 0;
			apart = 0;
		}
	}
	free(took);
	mp->stats->sibling_pairs += (unsigned)n;
	map_batch_done(&b);
	free(xa);
	free(xb);
	free(c);
	free(all);
	free(alone);
	return rc;
}
