/* What the cycle model knows of a static instruction: its form's resources
 * (the Palmed model) and latency (the core file), the registers its memory
 * operand's address is made of, whether it is a stack instruction or an
 * indirect branch. Decoded once, from the instruction's bytes, with
 * Capstone (the form also through Zydis, palmed/lift.h). */
#include <capstone/capstone.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "common/util.h"
#include "palmed/cycles_private.h"
#include "palmed/form.h"
#include "palmed/lift.h"

/* The GPR a register name is part of (0 rax ... 15 r15), or -1. */
static int gpr_of(const char *name)
{
	static const char *const names[4][16] = {
	    {"rax", "rcx", "rdx", "rbx", "rsp", "rbp", "rsi", "rdi", "r8", "r9", "r10", "r11",
	     "r12", "r13", "r14", "r15"},
	    {"eax", "ecx", "edx", "ebx", "esp", "ebp", "esi", "edi", "r8d", "r9d", "r10d", "r11d",
	     "r12d", "r13d", "r14d", "r15d"},
	    {"ax", "cx", "dx", "bx", "sp", "bp", "si", "di", "r8w", "r9w", "r10w", "r11w", "r12w",
	     "r13w", "r14w", "r15w"},
	    {"al", "cl", "dl", "bl", "spl", "bpl", "sil", "dil", "r8b", "r9b", "r10b", "r11b",
	     "r12b", "r13b", "r14b", "r15b"},
	};
	for (int s = 0; s < 4; s++)
		for (int g = 0; g < 16; g++)
			if (!strcmp(name, names[s][g]))
				return g;
	return -1;
}

static csh decoder(void)
{
	static csh cs;
	static int opened;
	if (!opened) {
		opened = cs_open(CS_ARCH_X86, CS_MODE_64, &cs) == CS_ERR_OK ? 1 : -1;
		if (opened > 0)
			cs_option(cs, CS_OPT_DETAIL, CS_OPT_ON);
	}
	return opened > 0 ? cs : 0;
}

static uint64_t mix(uint64_t h, uint64_t v)
{
	return (h ^ v) * 0x9E3779B97F4A7C15ull + 1;
}

/* Address registers, the address expression and indirection, from
 * Capstone's operands. */
static void operands(struct cycles_static *s, const struct perpi_insn *insn)
{
	csh cs = decoder();
	cs_insn *ci = NULL;
	if (!cs || cs_disasm(cs, insn->bytes, insn->len, insn->addr, 1, &ci) != 1)
		return;
	const cs_x86 *x = &ci->detail->x86;
	for (uint8_t i = 0; i < x->op_count; i++) {
		const cs_x86_op *op = &x->operands[i];
		if (insn->control == CTRL_JUMP || insn->control == CTRL_CALL)
			s->indirect |= op->type == X86_OP_REG || op->type == X86_OP_MEM;
		if (op->type != X86_OP_MEM || !strncmp(ci->mnemonic, "lea", 3) ||
		    !strncmp(ci->mnemonic, "nop", 3))
			continue;
		int base = op->mem.base ? gpr_of(cs_reg_name(cs, op->mem.base)) : -1;
		int index = op->mem.index ? gpr_of(cs_reg_name(cs, op->mem.index)) : -1;
		s->addr_unit[0] = base >= 0 ? (uint8_t)(UNIT_GPR + base) : CYCLES_NO_UNIT;
		s->addr_unit[1] = index >= 0 ? (uint8_t)(UNIT_GPR + index) : CYCLES_NO_UNIT;
		uint64_t key = mix(mix(mix(1, op->mem.base), op->mem.index), op->mem.scale);
		key = mix(mix(key, (uint64_t)op->mem.disp), op->mem.segment);
		s->addr_key = op->mem.base == X86_REG_RIP ? 0 : key;
	}
	cs_free(ci, 1);
}

/* The core's extra cycles from the flags to a cmovcc on combined flags:
 * signed comparisons (l, ge, le, g and their n forms), a and be. */
static float cmov_extra(const char *text, const struct core *c)
{
	static const char *const sgn[] = {"l", "nge", "ge", "nl", "le", "ng", "g", "nle"};
	static const char *const uns[] = {"a", "nbe", "be", "na"};
	char cc[8];
	if (!c || strncmp(text, "cmov", 4) || sscanf(text + 4, "%7[a-z]", cc) != 1)
		return 0;
	for (size_t i = 0; i < ARRAY_SIZE(sgn); i++)
		if (!strcmp(cc, sgn[i]))
			return (float)c->value[CORE_CMOV_SIGNED];
	for (size_t i = 0; i < ARRAY_SIZE(uns); i++)
		if (!strcmp(cc, uns[i]))
			return (float)c->value[CORE_CMOV_UNSIGNED];
	return 0;
}

/* push/pop/call/ret: their RSP update is the stack engine's ("pop rsp"
 * is not, its RSP comes from memory). */
static int is_stack(const struct perpi_insn *insn)
{
	const char *t = insn->text;
	if (insn->control == CTRL_CALL || insn->control == CTRL_RET)
		return 1;
	if (strncmp(t, "push", 4) && strncmp(t, "pop", 3))
		return 0;
	return strcmp(t, "pop rsp") != 0;
}

/* The cycles an iteration of REP form name takes past L1, at the core's
 * stream rate for stores (stos) or copies (movs), or 0: no rate measured,
 * another string operation, or no slower than iteration (in L1). */
static float rep_far(const char *name, float iteration, const struct core *c)
{
	struct form f;
	if (form_parse(name, &f) < 0 || !form_string_bytes(&f))
		return 0;
	const char *dot = strrchr(f.mnemonic, '.'), *op = dot ? dot + 1 : f.mnemonic;
	double rate = !strncmp(op, "STOS", 4)	? c->value[CORE_STREAM_STORE]
		      : !strncmp(op, "MOVS", 4) ? c->value[CORE_STREAM_COPY]
						: 0;
	double far = rate > 0 ? form_string_bytes(&f) / rate : 0;
	return far > iteration ? (float)far : 0;
}

static void usages(struct cycles_static *s, const char *form, const struct model *m,
		   struct cycles_usage *u)
{
	long f = m ? model_form_lookup(m, form) : -1;
	s->first_use = (uint32_t)u->n;
	if (f < 0)
		return;
	s->mapped = 1;
	for (size_t i = 0; i < m->nstrings; i++)
		if (!strcmp(m->strings[i].form, m->forms[f]) && m->form_cycles[f] > 0) {
			s->rep_start = (float)m->strings[i].start;
			s->rep_iteration = (float)m->strings[i].iteration;
			s->rep_first = (float)((m->strings[i].start + m->strings[i].iteration) /
					       m->form_cycles[f]);
			s->rep_next = (float)(m->strings[i].iteration / m->form_cycles[f]);
		}
	for (int front = 1; front >= 0; front--) /* the front end's first */
		for (size_t r = 0; r < m->nres; r++) {
			double rho = model_rho_slot(m, (size_t)f, r);
			if (rho <= 0 || (u->front && u->front[r]) != front)
				continue;
			if (u->n == u->cap) {
				u->cap = u->cap ? 2 * u->cap : 256;
				u->res = xrealloc(u->res, u->cap * sizeof(*u->res));
				u->rho = xrealloc(u->rho, u->cap * sizeof(*u->rho));
			}
			u->res[u->n] = (uint16_t)r;
			u->rho[u->n++] = (float)rho;
			s->nuse++;
			s->nfront += (uint16_t)front;
		}
}

/* An FP or vector instruction goes to one of n pipes when it is
 * dispatched, and waits for that one (docs/CYCLES.md, "Pipes"): the pipes
 * are those of the resource that binds its form alone, when that resource
 * serves n = 2 to 4 of it a cycle (a usage of 1/n, within 10%). */
static void pipes(struct cycles_static *s, const char *form, const struct model *m,
		  const struct cycles_usage *u)
{
	long f = m ? model_form_lookup(m, form) : -1;
	if (f < 0)
		return;
	double cycles = m->form_cycles[f], best = 0;
	for (size_t r = 0; r < m->nres; r++) {
		double rho = model_rho(m, (size_t)f, r);
		if ((u->front && u->front[r]) || rho < 0.95 * cycles || rho <= best)
			continue;
		double n = 1 / rho;
		if (n < 1.9 || n > 4.2 || fabs(n - round(n)) > 0.1 * n)
			continue;
		best = rho;
		s->bind_res = (uint16_t)r;
		s->bind_n = (uint8_t)lround(n);
	}
}

size_t cycles_front_resources(const struct model *m, unsigned char *front)
{
	size_t n = 0;
	for (size_t r = 0; m && r < m->nres; r++)
		n += front[r] = (unsigned char)model_front_end(m, r);
	return n;
}

static int accesses_memory(const struct perpi_event *ev)
{
	return ev->n_mem > 0;
}

void cycles_static_fill(struct cycles_static *s, const struct perpi_event *ev,
			const struct model *m, const struct core *c, struct cycles_usage *u)
{
	const struct perpi_insn *insn = ev->insn;
	char form[FORM_NAME_MAX];
	double lat;
	memset(s, 0, sizeof(*s));
	s->known = 1;
	s->addr_unit[0] = s->addr_unit[1] = CYCLES_NO_UNIT;
	s->stack = (uint8_t)is_stack(insn);
	for (size_t i = 0; i < ev->n_dst; i++)
		s->vec_dst |= ev->dst[i] >= UNIT_VEC && ev->dst[i] < UNIT_K;
	for (size_t i = 0; i < ev->n_src; i++)
		s->vec_src |= ev->src[i] >= UNIT_VEC && ev->src[i] < UNIT_K;
	operands(s, insn);
	int named = lift_insn_form(insn->bytes, insn->len, insn->addr, form, sizeof(form)) == 0;
	if (named)
		usages(s, form, m, u);
	else
		s->first_use = (uint32_t)u->n;
	if (named && (insn->klass == CLASS_FP || insn->klass == CLASS_VEC))
		pipes(s, form, m, u);
	s->latency = 1;
	if (named && c && core_latency(c, form, &lat) == 0) {
		s->latency = (float)lat;
		s->timed = 1;
	} else if (accesses_memory(ev) || insn->control != CTRL_NONE) {
		/* Pipedream has no chain for these: a plain load's latency is
		 * the load-to-use latency, a plain store's data is ready when
		 * its sources are, a branch resolves in a cycle. */
		s->latency = accesses_memory(ev) ? 0 : 1;
		s->timed = 1;
	}
	if (s->rep_next > 0) /* an execution chains its iterations: see cycles.c */
		s->timed = 1;
	if (s->rep_next > 0 && c)
		s->rep_far = rep_far(form, s->rep_iteration, c);
	s->flags_extra = cmov_extra(insn->text, c);
	if (insn->klass == CLASS_FP || insn->klass == CLASS_VEC)
		s->fp = s->latency > 0.5 && s->latency < 2.5 ? 1 : 2;
}
