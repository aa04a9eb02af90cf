/* What a kernel needs beyond independent operands (gen_private.h): the
 * forms that cannot simply be repeated (stack, string and division
 * instructions), the dependencies through implicit registers and flags
 * broken by zero idioms, and legacy-SSE forms turned into their VEX twins
 * when the kernel also holds VEX/EVEX vector forms (on Intel cores the mix
 * runs at a few percent of its speed: SSE/AVX transitions). */
#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "palmed/gen_private.h"

const char *const gen_gpr64[16] = {"rax", "rcx", "rdx", "rbx", "rsp", "rbp", "rsi", "rdi",
				   "r8",  "r9",	 "r10", "r11", "r12", "r13", "r14", "r15"};
const char *const gen_gpr32[16] = {"eax", "ecx", "edx",	 "ebx",	 "esp",	 "ebp",	 "esi",	 "edi",
				   "r8d", "r9d", "r10d", "r11d", "r12d", "r13d", "r14d", "r15d"};

enum { RAX = 0, RCX = 1, RDX = 2, RSP = 4, RSI = 6, RDI = 7 };

/* Breaker candidates, the loop's own registers (rsp, r13-r15) left out. */
static const int breaker_order[] = {7, 6, 2, 1, 0, 12, 11, 10};

/* Private stack of kernels with push/pop (rsp in its middle), and where the
 * function's own rsp waits meanwhile. */
#define STACK_BYTES 16384
/* String instructions work on the upper half of each arena half. */
#define STRING_OFFSET 8192

static const char *base_mnemonic(const struct form *f)
{
	const char *dot = strrchr(f->mnemonic, '.');
	return dot ? dot + 1 : f->mnemonic;
}

/* The bytes a push or pop moves rsp by: 2 for a 16-bit operand (push bx,
 * push word ptr [m] or [b + i*8 + d], push imm16 with an operand-size
 * prefix), else 8. (Until 2026-12-06 an indexed word, M16X, counted 8:
 * `perpi bench POP_M16X` moved rsp 1,536 bytes a turn and faulted.) */
static int stack_bytes(const struct form *f)
{
	for (unsigned i = 0; i < f->n; i++)
		if (form_kind_bytes(f->op[i]) == 2)
			return 2;
	return 8;
}


static enum term_kind kind_of(const struct form *f)
{
	const char *m = base_mnemonic(f);
	if (!strncmp(m, "PUSH", 4) || !strncmp(m, "POP", 3))
		return TERM_STACK;
	if (form_is_string(f))
		return strncmp(f->mnemonic, "REP", 3) ? TERM_STRING : TERM_REP;
	if (!strcmp(m, "DIV") || !strcmp(m, "IDIV"))
		return TERM_DIVIDE;
	return TERM_PLAIN;
}

static int has_vector(const struct gen_form_info *info)
{
	for (unsigned i = 0; i < info->form.n; i++)
		if (info->form.op[i] == FORM_XMM || info->form.op[i] == FORM_YMM ||
		    info->form.op[i] == FORM_ZMM)
			return 1;
	return 0;
}

__attribute__((format(printf, 2, 3))) static void flag(struct gen_info *gi, const char *fmt, ...)
{
	va_list ap;
	if (gi->flagged)
		return;
	gi->flagged = 1;
	va_start(ap, fmt);
	vsnprintf(gi->reason, sizeof(gi->reason), fmt, ap);
	va_end(ap);
}

static unsigned popcount(uint32_t v)
{
	return (unsigned)__builtin_popcount(v);
}

/* Legacy-SSE forms beside VEX/EVEX vector forms: their VEX twins. */
static void plan_twins(const struct kernel *k, const struct gen_form_info *const *infos,
		       struct plan *pl, struct gen_info *gi)
{
	int sse = 0, vex = 0;
	for (size_t t = 0; t < k->n; t++) {
		sse |= infos[t]->sse;
		vex |= infos[t]->vex && has_vector(infos[t]);
	}
	if (!sse || !vex)
		return;
	for (size_t t = 0; t < k->n; t++) {
		if (!infos[t]->sse)
			continue;
		if (infos[t]->twin) {
			pl->terms[t].twin = 1;
			gi->twins++;
		} else {
			flag(gi, "legacy-SSE %s " GEN_NO_TWIN, infos[t]->name);
		}
	}
	pl->legacy_only = 0;
}

static void helpers_text(const struct kernel *k, const struct plan *pl, struct gen_info *gi)
{
	unsigned xors = 0, movs = 0;
	for (size_t t = 0; t < k->n; t++) {
		const struct term_plan *tp = &pl->terms[t];
		unsigned per = popcount(tp->zero_before) + (unsigned)tp->flag_break;
		if (tp->kind == TERM_DIVIDE) {
			per += tp->width > 1;
			movs += k->terms[t].count;
		}
		xors += per * k->terms[t].count;
	}
	struct kernel h;
	kernel_init(&h);
	if (movs)
		kernel_add(&h, "MOV_GPR32_IMM32", movs);
	if (xors)
		kernel_add(&h, "XOR_GPR32_SAME", xors);
	char *s = kernel_to_string(&h);
	snprintf(gi->helpers, sizeof(gi->helpers), "%s", s);
	free(s);
	kernel_done(&h);
}

/* A register for the flag breaker: not implicit in any form, not the loop's. */
static int pick_breaker(uint32_t implicit)
{
	for (size_t i = 0; i < ARRAY_SIZE(breaker_order); i++)
		if (!(implicit & (1u << breaker_order[i])))
			return breaker_order[i];
	return -1;
}

static void plan_term(const struct gen_form_info *info, uint32_t written, int flags_written,
		      struct term_plan *tp)
{
	tp->kind = kind_of(&info->form);
	if (tp->kind == TERM_DIVIDE)
		tp->width = form_kind_bytes(info->form.op[0]);
	else if (tp->kind == TERM_STRING || tp->kind == TERM_REP)
		tp->width = form_string_bytes(&info->form);
	uint32_t zero = info->implicit_read & written & ~(1u << RSP);
	if (tp->kind == TERM_DIVIDE)
		zero &= ~((1u << RAX) | (1u << RDX));
	if (tp->kind == TERM_STRING || tp->kind == TERM_REP)
		zero &= ~((1u << RCX) | (1u << RSI) | (1u << RDI));
	tp->zero_before = zero;
	/* string instructions read only DF, which no kernel writes */
	tp->flag_break =
	    info->flags_read && flags_written && tp->kind != TERM_STRING && tp->kind != TERM_REP;
}

int gen_plan_make(const struct kernel *k, const struct gen_form_info *const *infos, int latency,
		  struct plan *pl, struct gen_info *gi)
{
	uint32_t written = 0, implicit = 0;
	int flags_written = 0, breaks = 0;
	memset(pl, 0, sizeof(*pl));
	pl->terms = xcalloc(k->n + 1, sizeof(*pl->terms));
	pl->breaker = -1;
	pl->legacy_only = 1;
	for (size_t t = 0; t < k->n; t++) {
		written |= infos[t]->implicit_write;
		implicit |= infos[t]->implicit_read | infos[t]->implicit_write;
		flags_written |= infos[t]->flags_written;
		if (has_vector(infos[t])) {
			pl->any_vec = 1;
			pl->legacy_only &= infos[t]->sse;
		}
	}
	for (size_t t = 0; t < k->n; t++) {
		struct term_plan *tp = &pl->terms[t];
		plan_term(infos[t], written, flags_written, tp);
		if (latency && tp->kind != TERM_PLAIN)
			return perpi_set_error("latency of %s: not measured (the generator must "
					       "set its implicit operands)",
					       infos[t]->name);
		if (latency)
			tp->zero_before = tp->flag_break = 0;
		breaks |= tp->flag_break;
		pl->stack |= tp->kind == TERM_STACK;
		pl->string |= tp->kind == TERM_STRING || tp->kind == TERM_REP;
		pl->divide |= tp->kind == TERM_DIVIDE;
		if (tp->kind == TERM_STACK)
			*(!strncmp(base_mnemonic(&infos[t]->form), "PUSH", 4) ? &pl->pushes
									      : &pl->pops) +=
			    (int)k->terms[t].count * stack_bytes(&infos[t]->form);
	}
	if (breaks && (pl->breaker = pick_breaker(implicit)) < 0)
		return perpi_set_error("no register left to break the flags' dependencies");
	if (pl->breaker >= 0)
		pl->reserved |= 1u << pl->breaker;
	if (!latency)
		plan_twins(k, infos, pl, gi);
	helpers_text(k, pl, gi);
	return 0;
}

void gen_plan_done(struct plan *pl)
{
	free(pl->terms);
	memset(pl, 0, sizeof(*pl));
}

void gen_plan_prologue(const struct plan *pl, const struct pools *po, const char *symbol,
		       struct strbuf *out)
{
	if (pl->stack)
		strbuf_addf(out,
			    "\t.local %s_stack\n\t.comm %s_stack, %d, 64\n"
			    "\t.local %s_rsp\n\t.comm %s_rsp, 8, 8\n"
			    "\tmov [rip + %s_rsp], rsp\n"
			    "\tlea rsp, [rip + %s_stack + %d]\n",
			    symbol, symbol, STACK_BYTES, symbol, symbol, symbol, symbol,
			    STACK_BYTES / 2);
	/* a divisor of 7: not 1 (a CPU may take a shortcut), never 0 */
	for (unsigned i = 0; pl->divide && i < po->n_read[C_GPR]; i++)
		strbuf_addf(out, "\tmov %s, 7\n", gen_gpr32[po->read[C_GPR][i]]);
	/* scas compares with al: 0x55 is no byte of the arena (0x11, 0xf1, 0x3f) */
	if (pl->string)
		strbuf_addf(out, "\tmov eax, 0x55\n");
}

/* Each REP instruction with rsi, rdi and rcx set, then rsi and rdi again
 * for the string instructions without REP in the body. */
void gen_plan_body_start(const struct kernel *k, const struct plan *pl, unsigned copies,
			 struct strbuf *out)
{
	if (!pl->string)
		return;
	/* scas and cmps read [rdi]: it points into the read half then */
	int reads_rdi = 0;
	for (size_t t = 0; t < k->n; t++) {
		const char *b = strrchr(k->terms[t].form, '.');
		b = b ? b + 1 : k->terms[t].form;
		reads_rdi |= !strncmp(b, "SCAS", 4) || !strncmp(b, "CMPS", 4);
	}
	for (size_t t = 0; t <= k->n; t++) {
		if (t < k->n && pl->terms[t].kind != TERM_REP)
			continue;
		strbuf_addf(out, "\tlea rsi, [r14 + %d]\n\tlea rdi, [%s + %d]\n", STRING_OFFSET,
			    reads_rdi ? "r14" : "r15",
			    reads_rdi ? STRING_OFFSET / 2 : STRING_OFFSET);
		if (t == k->n)
			break;
		strbuf_addf(out, "\tmov ecx, %u\n\t", k->terms[t].count * copies);
		for (const char *c = k->terms[t].form; *c; c++)
			strbuf_addf(out, "%c", *c == '.' ? ' ' : tolower((unsigned char)*c));
		strbuf_addf(out, "\n");
	}
}

int gen_plan_check_size(const struct kernel *k, const struct plan *pl, unsigned copies)
{
	for (size_t t = 0; t < k->n; t++)
		if (pl->terms[t].kind == TERM_REP &&
		    (size_t)k->terms[t].count * copies * pl->terms[t].width > STRING_OFFSET / 2)
			return perpi_set_error("%s: %u iterations of %u bytes do not fit the "
					       "arena (give a smaller --unroll)",
					       k->terms[t].form, k->terms[t].count * copies,
					       pl->terms[t].width);
	return 0;
}

void gen_plan_body_end(const struct plan *pl, unsigned copies, struct strbuf *out)
{
	int balance = (pl->pushes - pl->pops) * (int)copies;
	if (pl->stack && balance)
		strbuf_addf(out, "\tlea rsp, [rsp + %d]\n", balance);
}

void gen_plan_epilogue(const struct plan *pl, const struct pools *po, const char *symbol,
		       struct strbuf *out)
{
	if (pl->stack)
		strbuf_addf(out, "\tmov rsp, [rip + %s_rsp]\n", symbol);
	/* zmm16-31 are not cleared by vzeroupper: leave them clean too */
	for (unsigned r = 16; r <= po->max_vec; r++)
		strbuf_addf(out, "\tvpxord xmm%u, xmm%u, xmm%u\n", r, r, r);
}

void gen_plan_before(const struct plan *pl, size_t t, struct strbuf *out)
{
	const struct term_plan *tp = &pl->terms[t];
	for (int r = 0; r < 16; r++)
		if (tp->zero_before & (1u << r))
			strbuf_addf(out, "\txor %s, %s\n", gen_gpr32[r], gen_gpr32[r]);
	if (tp->flag_break)
		strbuf_addf(out, "\txor %s, %s\n", gen_gpr32[pl->breaker], gen_gpr32[pl->breaker]);
	if (tp->kind == TERM_DIVIDE) {
		if (tp->width > 1)
			strbuf_addf(out, "\txor edx, edx\n");
		/* dx:ax / 7 fits in the quotient register at every width */
		strbuf_addf(out, "\tmov eax, %s\n", tp->width > 1 ? "0x12345678" : "100");
	}
}
