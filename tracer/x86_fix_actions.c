/* What the fix table's entries do (x86_fix.c): the data fields, applied by
 * x86_fix_data, and the procedures for what rewrites operands. */
#include <stdio.h>
#include <string.h>

#include "common/util.h"
#include "tracer/x86_fix.h"

int x86_fix_explicit_regs(const struct x86_ir *ir, const struct x86_irop **out, int max)
{
	int n = 0;
	for (int i = 0; i < ir->nops && n < max; i++)
		if (ir->ops[i].type == OP_REG && !ir->ops[i].implicit)
			out[n++] = &ir->ops[i];
	return n;
}

struct x86_irop *x86_fix_explicit_op(struct x86_ir *ir, int type)
{
	for (int i = 0; i < ir->nops; i++)
		if (ir->ops[i].type == type && !ir->ops[i].implicit)
			return &ir->ops[i];
	return NULL;
}

int x86_fix_cond(const struct x86_ir *ir, int cond)
{
	int vec = 0, mem = 0;
	for (int i = 0; i < ir->nops; i++) {
		const struct x86_irop *op = &ir->ops[i];
		if (op->implicit)
			continue;
		vec |= op->type == OP_REG && op->reg.cls == RC_VEC;
		mem |= op->type == OP_MEM;
	}
	int store = ir->nops && ir->ops[0].type == OP_MEM && !ir->ops[0].implicit;
	int holds = (vec ? C_VEC : C_NOVEC) | (mem ? C_MEM : C_REG) | (store ? C_STORE : 0) |
		    (ir->enc == ENC_LEGACY ? C_LEGACY : 0) | (ir->rep ? C_REP : 0);
	return (cond & holds) == cond;
}

struct x86_ireg x86_fix_reg(int cls, int num, int size)
{
	struct x86_ireg r = {(uint8_t)cls, (uint8_t)num, (uint8_t)size, 0};
	return r;
}

/* Add a register operand, or widen the access of the one already there. */
void x86_fix_ensure_reg(struct x86_ir *ir, struct x86_ireg r, int access)
{
	for (int i = 0; i < ir->nops; i++) {
		struct x86_irop *op = &ir->ops[i];
		if (op->type == OP_REG && op->reg.cls == r.cls && op->reg.num == r.num &&
		    (r.cls != RC_ST || op->st_offset == (int8_t)r.num)) {
			op->access |= (uint8_t)access;
			return;
		}
	}
	x86_ir_add_reg(ir, r, access, 1);
}

void x86_fix_add_mem(struct x86_ir *ir, int base, int64_t disp, int size, int access)
{
	if (ir->nops >= IR_MAX_OPS)
		return;
	struct x86_irop *op = &ir->ops[ir->nops++];
	memset(op, 0, sizeof(*op));
	op->type = OP_MEM;
	op->implicit = 1;
	op->access = (uint8_t)access;
	op->size = (uint16_t)size;
	op->base = x86_fix_reg(RC_GPR, base, 8);
	op->index.cls = RC_NONE;
	op->scale = 1;
	op->disp = disp;
}

static void set_mem_access(struct x86_ir *ir, int access)
{
	for (int i = 0; i < ir->nops; i++)
		if (ir->ops[i].type == OP_MEM && !ir->ops[i].implicit)
			ir->ops[i].access = (uint8_t)access;
}

void x86_fix_zero_idiom(struct x86_ir *ir, int arg)
{
	const struct x86_irop *e[3];
	int n = x86_fix_explicit_regs(ir, e, 3);
	if (x86_fix_explicit_op(ir, OP_MEM) || x86_fix_explicit_op(ir, OP_IMM) || n < 2)
		return;
	const struct x86_irop *a = e[n - 2], *b = e[n - 1];
	if (a->reg.cls == b->reg.cls && a->reg.num == b->reg.num && a->reg.high == b->reg.high)
		ir->zero_idiom = 1;
}

static int stack_size(const struct x86_ir *ir)
{
	return ir->opsize == 2 ? 2 : 8;
}

void x86_fix_push(struct x86_ir *ir, int arg)
{
	x86_fix_add_mem(ir, UNIT_RSP, -stack_size(ir), stack_size(ir), AC_W);
	x86_fix_ensure_reg(ir, x86_fix_reg(RC_GPR, UNIT_RSP, 8), AC_R | AC_W);
}

void x86_fix_pop(struct x86_ir *ir, int arg)
{
	int size = stack_size(ir);
	struct x86_irop *m = x86_fix_explicit_op(ir, OP_MEM);
	if (m) { /* pop [rsp+d] addresses with RSP already incremented */
		m->access = AC_W;
		if (m->base.cls == RC_GPR && m->base.num == UNIT_RSP)
			m->disp += size;
	}
	x86_fix_add_mem(ir, UNIT_RSP, 0, size, AC_R);
	x86_fix_ensure_reg(ir, x86_fix_reg(RC_GPR, UNIT_RSP, 8), AC_R | AC_W);
}

void x86_fix_leave(struct x86_ir *ir, int arg)
{
	x86_fix_add_mem(ir, UNIT_RBP, 0, 8, AC_R);
	x86_fix_ensure_reg(ir, x86_fix_reg(RC_GPR, UNIT_RBP, 8), AC_R | AC_W);
	x86_fix_ensure_reg(ir, x86_fix_reg(RC_GPR, UNIT_RSP, 8), AC_W);
}

void x86_fix_enter(struct x86_ir *ir, int arg)
{
	x86_fix_add_mem(ir, UNIT_RSP, -8, 8, AC_W);
	x86_fix_ensure_reg(ir, x86_fix_reg(RC_GPR, UNIT_RBP, 8), AC_R | AC_W);
	x86_fix_ensure_reg(ir, x86_fix_reg(RC_GPR, UNIT_RSP, 8), AC_R | AC_W);
}

void x86_fix_syscall(struct x86_ir *ir, int arg)
{
	static const uint8_t in[] = {UNIT_RAX, UNIT_RDI, UNIT_RSI, UNIT_RDX, 10, 8, 9};
	static const uint8_t out[] = {UNIT_RAX, UNIT_RCX, 11};
	ir->nops = 0;
	ir->flags_read = ir->flags_write = 0;
	for (size_t i = 0; i < ARRAY_SIZE(in); i++)
		x86_fix_ensure_reg(ir, x86_fix_reg(RC_GPR, in[i], 8), AC_R);
	for (size_t i = 0; i < ARRAY_SIZE(out); i++)
		x86_fix_ensure_reg(ir, x86_fix_reg(RC_GPR, out[i], 8), AC_W);
	ir->event_flags |= EVENT_NOT_COUNTED;
}

void x86_fix_int80(struct x86_ir *ir, int arg)
{
	static const uint8_t in[] = {UNIT_RAX, UNIT_RBX, UNIT_RCX, UNIT_RDX,
				     UNIT_RSI, UNIT_RDI, UNIT_RBP};
	const struct x86_irop *imm = x86_fix_explicit_op(ir, OP_IMM);
	if (!imm || (imm->imm & 0xff) != 0x80)
		return;
	ir->nops = 0;
	ir->flags_read = ir->flags_write = 0;
	for (size_t i = 0; i < ARRAY_SIZE(in); i++)
		x86_fix_ensure_reg(ir, x86_fix_reg(RC_GPR, in[i], 8), AC_R);
	x86_fix_ensure_reg(ir, x86_fix_reg(RC_GPR, UNIT_RAX, 8), AC_W);
	ir->event_flags |= EVENT_NOT_COUNTED;
}

void x86_fix_cmpxchg(struct x86_ir *ir, int arg)
{
	const struct x86_irop *e[2];
	int n = x86_fix_explicit_regs(ir, e, 2);
	struct x86_irop *m = x86_fix_explicit_op(ir, OP_MEM);
	int size = n ? e[n - 1]->size : 8;
	if (m)
		m->access = AC_R | AC_W;
	else if (n == 2)
		ir->ops[e[0] - ir->ops].access = AC_R | AC_W;
	x86_fix_ensure_reg(ir, x86_fix_reg(RC_GPR, UNIT_RAX, size), AC_R | AC_W);
	ir->flags_write |= FL_STATUS;
}

void x86_fix_shift(struct x86_ir *ir, int arg)
{
	const struct x86_irop *e[2];
	int n = x86_fix_explicit_regs(ir, e, 2);
	const struct x86_irop *imm = x86_fix_explicit_op(ir, OP_IMM);
	struct x86_irop *mem = x86_fix_explicit_op(ir, OP_MEM);
	int size = mem ? mem->size : n ? e[0]->size : 4;
	ir->shift_mask = size == 8 ? 0x3f : 0x1f;
	if (imm && !(imm->imm & ir->shift_mask))
		ir->flags_write = 0;
	else if (!imm && n >= 1 && e[n - 1]->reg.cls == RC_GPR && e[n - 1]->reg.num == UNIT_RCX &&
		 e[n - 1]->size == 1 && (n == 2 || mem))
		ir->special = SP_SHIFT_CL;
}

void x86_fix_gather(struct x86_ir *ir, int arg)
{
	const struct x86_irop *e[3];
	int n = x86_fix_explicit_regs(ir, e, 3);
	struct x86_irop *m = x86_fix_explicit_op(ir, OP_MEM);
	const char *g = strstr(ir->mnemonic, "gather") ? strstr(ir->mnemonic, "gather") + 6
						       : strstr(ir->mnemonic, "scatter") + 7;
	if (!m || m->index.cls != RC_VEC || n < 1)
		return;
	ir->special = SP_GATHER;
	ir->gather_index_q = g[0] == 'q';
	ir->elem_size = (g[1] == 'p' ? g[2] == 'd' : g[1] == 'q') ? 8 : 4;
	m->access = strstr(ir->mnemonic, "scatter") ? AC_W : AC_R;
	if (m->access == AC_R)
		ir->ops[e[0] - ir->ops].access = AC_R | AC_W; /* unselected elements stay */
	if (ir->enc == ENC_VEX && n >= 2)
		ir->ops[e[n - 1] - ir->ops].access = AC_R | AC_W; /* the mask is cleared */
	if (ir->mask_k)
		x86_ir_add_reg(ir, x86_fix_reg(RC_K, ir->mask_k, 8), AC_R | AC_W, 1);
}

/* Lane selection: the immediate and the vector sources after operand 0. */
struct lanes {
	int imm;
	struct x86_irop *dst, *s1, *s2;
};

static int lanes_of(struct x86_ir *ir, struct lanes *l)
{
	const struct x86_irop *e[3];
	const struct x86_irop *imm_op = x86_fix_explicit_op(ir, OP_IMM);
	if (!imm_op || x86_fix_explicit_regs(ir, e, 3) < 1 || ir->ops[0].type == OP_IMM)
		return 0;
	l->imm = (int)imm_op->imm;
	l->dst = &ir->ops[0];
	l->s1 = l->s2 = NULL;
	for (int i = 1; i < ir->nops; i++) {
		struct x86_irop *op = &ir->ops[i];
		if (op->implicit || op->type != OP_REG || op->reg.cls != RC_VEC)
			continue;
		if (!l->s1)
			l->s1 = op;
		else if (!l->s2)
			l->s2 = op;
	}
	return l->s1 != NULL;
}

/* The vector parts (bit 0: bits 0-127, 1: 128-255, 2: 256-511) holding 128-bit lane `lane`. */
static int lane_mask(int lane)
{
	return lane < 2 ? 1 << lane : 4;
}

void x86_fix_lane_extract(struct x86_ir *ir, int arg)
{
	struct lanes l;
	if (!lanes_of(ir, &l))
		return;
	int out = l.dst->size; /* 16 or 32 bytes extracted */
	l.s1->part_mask = (uint8_t)(out >= 32 ? ((l.imm & 1) ? 4 : 3)
					      : lane_mask(l.imm & (l.s1->size == 64 ? 3 : 1)));
}

void x86_fix_lane_insert(struct x86_ir *ir, int arg)
{
	struct lanes l;
	if (!lanes_of(ir, &l))
		return;
	const struct x86_irop *m = x86_fix_explicit_op(ir, OP_MEM);
	int imm = l.imm, piece = l.s2 ? l.s2->size : m ? m->size : 16;
	int lanes = l.s1->size == 64 ? 3 : 1;
	if (piece >= 32)
		l.s1->part_mask = (imm & 1) ? 3 : 4;
	else if (l.s1->size == 64)
		l.s1->part_mask = (imm & lanes) < 2 ? (uint8_t)(7 & ~(1 << (imm & 3))) : 7;
	else
		l.s1->part_mask = (uint8_t)(1 << (1 - (imm & 1)));
}

void x86_fix_lane_perm2(struct x86_ir *ir, int arg)
{
	struct lanes l;
	if (!lanes_of(ir, &l))
		return;
	int m1 = 0, m2 = 0;
	for (int k = 0; k < 2; k++) {
		int sel = l.imm >> (4 * k) & 0xf;
		if (sel & 8)
			continue;
		*((sel & 2) ? &m2 : &m1) |= 1 << (sel & 1);
	}
	l.s1->part_mask = (uint8_t)(m1 ? m1 : 0x80);
	if (l.s2)
		l.s2->part_mask = (uint8_t)(m2 ? m2 : 0x80);
}

void x86_fix_lane_permq(struct x86_ir *ir, int arg)
{
	struct lanes l;
	if (!lanes_of(ir, &l) || l.s2)
		return;
	int m = 0;
	for (int k = 0; k < 4; k++)
		m |= 1 << ((l.imm >> (2 * k) & 3) / 2);
	l.s1->part_mask = (uint8_t)(l.s1->size == 64 ? m | 4 : m);
}

void x86_fix_lane_shuf4(struct x86_ir *ir, int arg)
{
	struct lanes l;
	if (!lanes_of(ir, &l))
		return;
	int imm = l.imm, wide = l.s1->size == 64;
	int m1 = wide ? lane_mask(imm & 3) | lane_mask(imm >> 2 & 3) : 1 << (imm & 1);
	int m2 = wide ? lane_mask(imm >> 4 & 3) | lane_mask(imm >> 6 & 3) : 1 << (imm >> 1 & 1);
	l.s1->part_mask = (uint8_t)m1;
	if (l.s2)
		l.s2->part_mask = (uint8_t)m2;
}

void x86_fix_x87_push(struct x86_ir *ir, int arg)
{
	int written = 0;
	for (int i = 0; i < ir->nops; i++) {
		struct x86_irop *op = &ir->ops[i];
		if (op->type != OP_REG || op->reg.cls != RC_ST || !(op->access & AC_W))
			continue;
		written = 1;
		if (op->access & AC_R && op->st_offset == 0) { /* fld st(0) */
			op->access = AC_R;
			written = 0;
		} else {
			op->st_offset = -1;
		}
	}
	if (!written) {
		x86_ir_add_reg(ir, x86_fix_reg(RC_ST, 0, 10), AC_W, 1);
		ir->ops[ir->nops - 1].st_offset = -1;
	}
}

void x86_fix_x87_arith(struct x86_ir *ir, int arg)
{
	int n = 0;
	for (int i = 0; i < ir->nops; i++)
		n += ir->ops[i].type == OP_REG && ir->ops[i].reg.cls == RC_ST;
	if (n <= 1) { /* "fadd st(1)" or "fadd m64": st(0) op= operand */
		x86_fix_ensure_reg(ir, x86_fix_reg(RC_ST, 0, 10), AC_R | AC_W);
		return;
	}
	for (int i = 0; i < ir->nops; i++) /* "fmul st(2), st(0)": the first is updated */
		if (ir->ops[i].type == OP_REG && ir->ops[i].reg.cls == RC_ST) {
			ir->ops[i].access = AC_R | AC_W;
			return;
		}
}

void x86_fix_x87_cmov(struct x86_ir *ir, int arg)
{
	int first = 1; /* fcmovcc st(0), st(i): st(0) merges, st(i) is read */
	for (int i = 0; i < ir->nops; i++)
		if (ir->ops[i].type == OP_REG && ir->ops[i].reg.cls == RC_ST) {
			ir->ops[i].access = first ? AC_R | AC_W : AC_R;
			first = 0;
		}
}

/* faddp st(i), st(0)... and fxch: the explicit ST(i) is read and written. */
void x86_fix_st_ops_rw(struct x86_ir *ir, int arg)
{
	for (int i = 0; i < ir->nops; i++)
		if (ir->ops[i].type == OP_REG && ir->ops[i].reg.cls == RC_ST &&
		    !ir->ops[i].implicit && ir->ops[i].st_offset)
			ir->ops[i].access = AC_R | AC_W;
}

void x86_fix_st_written(struct x86_ir *ir, int arg)
{
	for (int i = 0; i < ir->nops; i++)
		if (ir->ops[i].type == OP_REG && ir->ops[i].reg.cls == RC_ST &&
		    !ir->ops[i].implicit)
			ir->ops[i].access = AC_W;
}

void x86_fix_agen(struct x86_ir *ir, int arg)
{
	for (int i = 0; i < ir->nops; i++)
		if (ir->ops[i].type == OP_MEM)
			ir->ops[i].type = OP_AGEN;
}

void x86_fix_no_operands(struct x86_ir *ir, int arg)
{
	ir->nops = 0;
	ir->flags_read = ir->flags_write = 0;
}

/* test, cmp-like: the explicit operands are only read. */
void x86_fix_read_only(struct x86_ir *ir, int arg)
{
	for (int i = 0; i < ir->nops; i++)
		if (!ir->ops[i].implicit && ir->ops[i].type != OP_IMM)
			ir->ops[i].access = AC_R;
}

/* cpuid: the implicit 32-bit GPRs Capstone 4 reports are the 64-bit units. */
void x86_fix_gpr64(struct x86_ir *ir, int arg)
{
	for (int i = 0; i < ir->nops; i++)
		if (ir->ops[i].implicit && ir->ops[i].reg.cls == RC_GPR && ir->ops[i].size == 4)
			ir->ops[i].size = ir->ops[i].reg.size = 8;
}

/* The destination register merges: it is also read. */
void x86_fix_dest_read(struct x86_ir *ir, int arg)
{
	if (ir->nops && ir->ops[0].type == OP_REG && !ir->ops[0].implicit)
		ir->ops[0].access |= AC_R;
}

void x86_fix_bit_offset(struct x86_ir *ir, int arg)
{
	const struct x86_irop *e[2];
	const struct x86_irop *m = x86_fix_explicit_op(ir, OP_MEM);
	if (m && x86_fix_explicit_regs(ir, e, 2) == 1 && e[0]->reg.cls == RC_GPR) {
		ir->special = SP_BITOFFSET;
		ir->bit_reg = (uint8_t)(e[0]->reg.num + 1);
		ir->bit_size = (uint8_t)m->size;
	}
}

void x86_fix_xlat(struct x86_ir *ir, int arg)
{
	ir->nops = 0;
	x86_fix_ensure_reg(ir, x86_fix_reg(RC_GPR, UNIT_RBX, 8), AC_R);
	x86_fix_ensure_reg(ir, x86_fix_reg(RC_GPR, UNIT_RAX, 1), AC_R | AC_W);
	x86_fix_add_mem(ir, UNIT_RBX, 0, 1, AC_R);
	ir->ops[ir->nops - 1].index = x86_fix_reg(RC_GPR, UNIT_RAX, 1);
}

void x86_fix_vzero(struct x86_ir *ir, int parts)
{
	ir->nops = 0;
	for (int v = 0; v < 16; v++) {
		x86_ir_add_reg(ir, x86_fix_reg(RC_VEC, v, 64), AC_W, 1);
		ir->ops[ir->nops - 1].part_mask = (uint8_t)parts;
	}
}

static void fix_data_reg(struct x86_ir *ir, const struct fix_reg *r)
{
	if (!r->exact) {
		x86_fix_ensure_reg(ir, x86_fix_reg(r->cls, (uint8_t)r->num, r->size), r->access);
		return;
	}
	for (int i = 0; i < ir->nops; i++)
		if (ir->ops[i].type == OP_REG && ir->ops[i].reg.cls == r->cls &&
		    ir->ops[i].reg.num == (uint8_t)r->num && ir->ops[i].implicit)
			ir->ops[i].access = r->access;
}

void x86_fix_data(struct x86_ir *ir, const struct fix *f)
{
	ir->flags_read = (uint8_t)((ir->flags_read | f->flags_r) & ~f->no_flags_r);
	ir->flags_write = (uint8_t)((ir->flags_write | f->flags_w) & ~f->no_flags_w);
	if (f->mem_access && ir->nops && ir->ops[0].type == OP_MEM)
		ir->ops[0].access = f->mem_access;
	else if (f->mem_access)
		set_mem_access(ir, f->mem_access);
	for (int i = 0; i < ir->nops && f->mem_size; i++)
		if (ir->ops[i].type == OP_MEM && !ir->ops[i].implicit)
			ir->ops[i].size = f->mem_size;
	if (f->mem.size)
		x86_fix_add_mem(ir, f->mem.base, 0, f->mem.size, f->mem.access);
	if (f->reg.cls)
		fix_data_reg(ir, &f->reg);
	if (f->special)
		ir->special = f->special;
	if (f->bcast)
		ir->bcast = f->bcast;
	if (f->compress)
		ir->compress = f->compress;
	if (f->fn)
		f->fn(ir, f->arg);
}

void x86_fix_defaults(struct x86_ir *ir)
{
	const char *m = ir->mnemonic;
	size_t l = strlen(m);
	if (ir->enc == ENC_EVEX && !ir->elem_size && l > 2) {
		/* Capstone: element size from the mnemonic (vmovdqu8, vpcmpb, vaddpd...) */
		const char *t = m + l - 2;
		if (!strcmp(t, "ps") || !strcmp(t, "ss") || !strcmp(t, "32") || t[1] == 'd')
			ir->elem_size = 4;
		else if (!strcmp(t, "pd") || !strcmp(t, "sd") || !strcmp(t, "64") || t[1] == 'q')
			ir->elem_size = 8;
		else if (!strcmp(t, "16") || t[1] == 'w')
			ir->elem_size = 2;
		else
			ir->elem_size = 1;
	}
	if (ir->special == SP_XSAVE || ir->special == SP_XRSTOR) {
		ir->xsave_kind = strstr(m, "fx") ? 2 : strstr(m, "xsavec") ? 1 : 0;
		if (ir->xsave_kind != 2) {
			x86_fix_ensure_reg(ir, x86_fix_reg(RC_GPR, UNIT_RAX, 4), AC_R);
			x86_fix_ensure_reg(ir, x86_fix_reg(RC_GPR, UNIT_RDX, 4), AC_R);
		}
	}
}
