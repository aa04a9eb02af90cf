/* The actions of the fix table (x86_fix.c): each corrects or completes the
 * IR of one instruction in one way. */
#include <stdio.h>
#include <string.h>

#include "common/util.h"
#include "tracer/x86_fix.h"

static int explicit_regs(const struct x86_ir *ir, const struct x86_irop **out, int max)
{
	int n = 0;
	for (int i = 0; i < ir->nops && n < max; i++)
		if (ir->ops[i].type == OP_REG && !ir->ops[i].implicit)
			out[n++] = &ir->ops[i];
	return n;
}

static struct x86_irop *explicit_op(struct x86_ir *ir, int type)
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
	switch (cond) {
	case C_VEC:
		return vec;
	case C_NOVEC:
		return !vec;
	case C_MEM:
		return mem;
	case C_REG:
		return !mem;
	case C_LEGACY:
		return ir->enc == ENC_LEGACY;
	case C_STORE:
		return ir->nops && ir->ops[0].type == OP_MEM && !ir->ops[0].implicit;
	default:
		return 1;
	}
}

static struct x86_ireg reg_of(int cls, int num, int size)
{
	struct x86_ireg r = {(uint8_t)cls, (uint8_t)num, (uint8_t)size, 0};
	return r;
}

/* Add a register operand, or widen the access of the one already there. */
static void ensure_reg(struct x86_ir *ir, struct x86_ireg r, int access)
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

static void add_stack_mem(struct x86_ir *ir, int base, int64_t disp, int size, int access)
{
	if (ir->nops >= IR_MAX_OPS)
		return;
	struct x86_irop *op = &ir->ops[ir->nops++];
	memset(op, 0, sizeof(*op));
	op->type = OP_MEM;
	op->implicit = 1;
	op->access = (uint8_t)access;
	op->size = (uint16_t)size;
	op->base = reg_of(RC_GPR, base, 8);
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

static void fix_zero_idiom(struct x86_ir *ir)
{
	const struct x86_irop *e[3];
	int n = explicit_regs(ir, e, 3);
	if (explicit_op(ir, OP_MEM) || explicit_op(ir, OP_IMM) || n < 2)
		return;
	const struct x86_irop *a = e[n - 2], *b = e[n - 1];
	if (a->reg.cls == b->reg.cls && a->reg.num == b->reg.num && a->reg.high == b->reg.high)
		ir->zero_idiom = 1;
}

static void fix_stack(struct x86_ir *ir, int action)
{
	int size = ir->opsize == 2 ? 2 : 8;
	if (action == A_PUSH) {
		add_stack_mem(ir, UNIT_RSP, -size, size, AC_W);
	} else if (action == A_POP) {
		struct x86_irop *m = explicit_op(ir, OP_MEM);
		if (m) { /* pop [rsp+d] addresses with RSP already incremented */
			m->access = AC_W;
			if (m->base.cls == RC_GPR && m->base.num == UNIT_RSP)
				m->disp += size;
		}
		add_stack_mem(ir, UNIT_RSP, 0, size, AC_R);
	} else if (action == A_LEAVE) {
		add_stack_mem(ir, UNIT_RBP, 0, 8, AC_R);
		ensure_reg(ir, reg_of(RC_GPR, UNIT_RBP, 8), AC_R | AC_W);
	} else {
		add_stack_mem(ir, UNIT_RSP, -8, 8, AC_W);
		ensure_reg(ir, reg_of(RC_GPR, UNIT_RBP, 8), AC_R | AC_W);
	}
	ensure_reg(ir, reg_of(RC_GPR, UNIT_RSP, 8), action == A_LEAVE ? AC_W : AC_R | AC_W);
}

static void fix_syscall(struct x86_ir *ir)
{
	static const uint8_t in[] = {UNIT_RAX, UNIT_RDI, UNIT_RSI, UNIT_RDX, 10, 8, 9};
	static const uint8_t out[] = {UNIT_RAX, UNIT_RCX, 11};
	ir->nops = 0;
	ir->flags_read = ir->flags_write = 0;
	for (size_t i = 0; i < ARRAY_SIZE(in); i++)
		ensure_reg(ir, reg_of(RC_GPR, in[i], 8), AC_R);
	for (size_t i = 0; i < ARRAY_SIZE(out); i++)
		ensure_reg(ir, reg_of(RC_GPR, out[i], 8), AC_W);
	ir->event_flags |= EVENT_NOT_COUNTED;
}

static void fix_int80(struct x86_ir *ir)
{
	static const uint8_t in[] = {UNIT_RAX, UNIT_RBX, UNIT_RCX, UNIT_RDX,
				     UNIT_RSI, UNIT_RDI, UNIT_RBP};
	const struct x86_irop *imm = explicit_op(ir, OP_IMM);
	if (!imm || (imm->imm & 0xff) != 0x80)
		return;
	ir->nops = 0;
	ir->flags_read = ir->flags_write = 0;
	for (size_t i = 0; i < ARRAY_SIZE(in); i++)
		ensure_reg(ir, reg_of(RC_GPR, in[i], 8), AC_R);
	ensure_reg(ir, reg_of(RC_GPR, UNIT_RAX, 8), AC_W);
	ir->event_flags |= EVENT_NOT_COUNTED;
}

static void fix_cmpxchg(struct x86_ir *ir)
{
	const struct x86_irop *e[2];
	int n = explicit_regs(ir, e, 2);
	struct x86_irop *m = explicit_op(ir, OP_MEM);
	int size = n ? e[n - 1]->size : 8;
	if (m)
		m->access = AC_R | AC_W;
	else if (n == 2)
		ir->ops[e[0] - ir->ops].access = AC_R | AC_W;
	ensure_reg(ir, reg_of(RC_GPR, UNIT_RAX, size), AC_R | AC_W);
	ir->flags_write |= FL_STATUS;
}

static void fix_shift(struct x86_ir *ir)
{
	const struct x86_irop *e[2];
	int n = explicit_regs(ir, e, 2);
	const struct x86_irop *imm = explicit_op(ir, OP_IMM);
	struct x86_irop *mem = explicit_op(ir, OP_MEM);
	int size = mem ? mem->size : n ? e[0]->size : 4;
	ir->shift_mask = size == 8 ? 0x3f : 0x1f;
	if (imm && !(imm->imm & ir->shift_mask))
		ir->flags_write = 0;
	else if (!imm && n >= 1 && e[n - 1]->reg.cls == RC_GPR && e[n - 1]->reg.num == UNIT_RCX &&
		 e[n - 1]->size == 1 && (n == 2 || mem))
		ir->special = SP_SHIFT_CL;
}

static void fix_gather(struct x86_ir *ir)
{
	const struct x86_irop *e[3];
	int n = explicit_regs(ir, e, 3);
	struct x86_irop *m = explicit_op(ir, OP_MEM);
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
		x86_ir_add_reg(ir, reg_of(RC_K, ir->mask_k, 8), AC_R | AC_W, 1);
}

static int lane_mask(int lane)
{
	return lane < 2 ? 1 << lane : 4;
}

static void fix_lane(struct x86_ir *ir, int kind)
{
	const struct x86_irop *e[3];
	int n = explicit_regs(ir, e, 3);
	const struct x86_irop *imm_op = explicit_op(ir, OP_IMM);
	struct x86_irop *dst = &ir->ops[0];
	if (!imm_op || n < 1 || ir->ops[0].type == OP_IMM)
		return;
	int imm = (int)imm_op->imm, wide = 0;
	struct x86_irop *s1 = NULL, *s2 = NULL;
	for (int i = 1; i < ir->nops; i++) {
		struct x86_irop *op = &ir->ops[i];
		if (op->implicit || op->type != OP_REG || op->reg.cls != RC_VEC)
			continue;
		if (!s1)
			s1 = op;
		else if (!s2)
			s2 = op;
	}
	if (kind == L_EXTRACT && s1) {
		int out = dst->size; /* 16 or 32 bytes extracted */
		s1->part_mask = (uint8_t)(out >= 32 ? ((imm & 1) ? 4 : 3)
						    : lane_mask(imm & (s1->size == 64 ? 3 : 1)));
	} else if (kind == L_INSERT && s1) {
		const struct x86_irop *m = explicit_op(ir, OP_MEM);
		int piece = s2 ? s2->size : m ? m->size : 16, lanes = s1->size == 64 ? 3 : 1;
		if (piece >= 32)
			s1->part_mask = (imm & 1) ? 3 : 4;
		else if (s1->size == 64)
			s1->part_mask = (imm & lanes) < 2 ? (uint8_t)(7 & ~(1 << (imm & 3))) : 7;
		else
			s1->part_mask = (uint8_t)(1 << (1 - (imm & 1)));
	} else if (kind == L_PERM2 && s1) {
		int m1 = 0, m2 = 0;
		for (int k = 0; k < 2; k++) {
			int sel = imm >> (4 * k) & 0xf;
			if (sel & 8)
				continue;
			*((sel & 2) ? &m2 : &m1) |= 1 << (sel & 1);
		}
		s1->part_mask = (uint8_t)(m1 ? m1 : 0x80);
		if (s2)
			s2->part_mask = (uint8_t)(m2 ? m2 : 0x80);
	} else if (kind == L_PERMQ && s1 && !s2) {
		int m = 0;
		for (int k = 0; k < 4; k++)
			m |= 1 << ((imm >> (2 * k) & 3) / 2);
		s1->part_mask = (uint8_t)(s1->size == 64 ? m | 4 : m);
	} else if (kind == L_SHUF4 && s1) {
		wide = s1->size == 64;
		int m1 = wide ? lane_mask(imm & 3) | lane_mask(imm >> 2 & 3) : 1 << (imm & 1);
		int m2 =
		    wide ? lane_mask(imm >> 4 & 3) | lane_mask(imm >> 6 & 3) : 1 << (imm >> 1 & 1);
		s1->part_mask = (uint8_t)m1;
		if (s2)
			s2->part_mask = (uint8_t)m2;
	}
}

static void fix_x87_push(struct x86_ir *ir)
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
		x86_ir_add_reg(ir, reg_of(RC_ST, 0, 10), AC_W, 1);
		ir->ops[ir->nops - 1].st_offset = -1;
	}
}

static void fix_x87_arith(struct x86_ir *ir)
{
	int n = 0;
	for (int i = 0; i < ir->nops; i++)
		n += ir->ops[i].type == OP_REG && ir->ops[i].reg.cls == RC_ST;
	if (n <= 1) { /* "fadd st(1)" or "fadd m64": st(0) op= operand */
		ensure_reg(ir, reg_of(RC_ST, 0, 10), AC_R | AC_W);
		return;
	}
	for (int i = 0; i < ir->nops; i++) /* "fmul st(2), st(0)": the first is updated */
		if (ir->ops[i].type == OP_REG && ir->ops[i].reg.cls == RC_ST) {
			ir->ops[i].access = AC_R | AC_W;
			return;
		}
}

void x86_fix_action(struct x86_ir *ir, int action, uint32_t arg)
{
	switch (action) {
	case A_ZERO_IDIOM:
		fix_zero_idiom(ir);
		break;
	case A_PUSH:
	case A_POP:
	case A_LEAVE:
	case A_ENTER:
		fix_stack(ir, action);
		break;
	case A_MEM_W:
		if (ir->nops && ir->ops[0].type == OP_MEM)
			ir->ops[0].access = AC_W;
		else
			set_mem_access(ir, AC_W);
		break;
	case A_MEM_RW:
		set_mem_access(ir, AC_R | AC_W);
		break;
	case A_STORE_RDI:
		add_stack_mem(ir, UNIT_RDI, 0, (int)arg, AC_W);
		break;
	case A_AGEN:
		for (int i = 0; i < ir->nops; i++)
			if (ir->ops[i].type == OP_MEM)
				ir->ops[i].type = OP_AGEN;
		break;
	case A_NO_OPERANDS:
		ir->nops = 0;
		ir->flags_read = ir->flags_write = 0;
		break;
	case A_FLAGS_R:
		ir->flags_read |= (uint8_t)arg;
		break;
	case A_FLAGS_W:
		ir->flags_write |= (uint8_t)arg;
		break;
	case A_FLAGS_NOT_R:
		ir->flags_read &= (uint8_t)~arg;
		break;
	case A_FLAGS_NOT_W:
		ir->flags_write &= (uint8_t)~arg;
		break;
	case A_NO_WRITE:
		for (int i = 0; i < ir->nops; i++)
			if (!ir->ops[i].implicit && ir->ops[i].type != OP_IMM)
				ir->ops[i].access = AC_R;
		break;
	case A_GPR:
		ensure_reg(ir, reg_of(RC_GPR, arg & 0xff, arg >> 8 & 0xff), (int)(arg >> 16));
		break;
	case A_GPR64:
		for (int i = 0; i < ir->nops; i++)
			if (ir->ops[i].implicit && ir->ops[i].reg.cls == RC_GPR &&
			    ir->ops[i].size == 4)
				ir->ops[i].size = ir->ops[i].reg.size = 8;
		break;
	case A_DEST_READ:
		if (ir->nops && ir->ops[0].type == OP_REG && !ir->ops[0].implicit)
			ir->ops[0].access |= AC_R;
		break;
	case A_UNACCESSED_READ:
		for (int i = 0; i < ir->nops; i++)
			if ((ir->ops[i].type == OP_REG || ir->ops[i].type == OP_MEM) &&
			    !ir->ops[i].implicit && !ir->ops[i].access)
				ir->ops[i].access = AC_R;
		break;
	case A_ST: {
		struct x86_ireg r = reg_of(RC_ST, (int8_t)(arg & 0xff), 10);
		ensure_reg(ir, r, (int)(arg >> 8));
		break;
	}
	case A_X87_PUSH:
		fix_x87_push(ir);
		break;
	case A_X87_ARITH:
		fix_x87_arith(ir);
		break;
	case A_UNIT:
		x86_ir_add_reg(ir, reg_of((int)(arg & 0xff), 0, 4), (int)(arg >> 8), 1);
		break;
	case A_SPECIAL:
		if (arg != SP_STRING || ir->rep) {
			ir->special = (uint8_t)arg;
			if (arg == SP_STRING)
				ensure_reg(ir, reg_of(RC_GPR, UNIT_RCX, 8), AC_R | AC_W);
		}
		break;
	case A_SYSCALL:
		fix_syscall(ir);
		break;
	case A_INT80:
		fix_int80(ir);
		break;
	case A_BIT_OFFSET: {
		const struct x86_irop *e[2];
		const struct x86_irop *m = explicit_op(ir, OP_MEM);
		if (m && explicit_regs(ir, e, 2) == 1 && e[0]->reg.cls == RC_GPR) {
			ir->special = SP_BITOFFSET;
			ir->bit_reg = (uint8_t)(e[0]->reg.num + 1);
			ir->bit_size = (uint8_t)m->size;
		}
		break;
	}
	case A_XLAT:
		ir->nops = 0;
		ensure_reg(ir, reg_of(RC_GPR, UNIT_RBX, 8), AC_R);
		ensure_reg(ir, reg_of(RC_GPR, UNIT_RAX, 1), AC_R | AC_W);
		add_stack_mem(ir, UNIT_RBX, 0, 1, AC_R);
		ir->ops[ir->nops - 1].index = reg_of(RC_GPR, UNIT_RAX, 1);
		break;
	case A_COMPRESS:
		ir->compress = 1;
		break;
	case A_STATIC_BCAST:
		ir->bcast = 2;
		break;
	case A_CMPXCHG:
		fix_cmpxchg(ir);
		break;
	case A_SHIFT:
		fix_shift(ir);
		break;
	case A_GATHER:
		fix_gather(ir);
		break;
	case A_LANE:
		fix_lane(ir, (int)arg);
		break;
	case A_MEM_SIZE:
		for (int i = 0; i < ir->nops; i++)
			if (ir->ops[i].type == OP_MEM && !ir->ops[i].implicit)
				ir->ops[i].size = (uint16_t)arg;
		break;
	case A_NO_FLAGS_W:
		ir->flags_write = 0;
		break;
	case A_X87_CMOV: {
		int first = 1;
		for (int i = 0; i < ir->nops; i++)
			if (ir->ops[i].type == OP_REG && ir->ops[i].reg.cls == RC_ST) {
				ir->ops[i].access = first ? AC_R | AC_W : AC_R;
				first = 0;
			}
		break;
	}
	case A_GPR_SET:
		for (int i = 0; i < ir->nops; i++)
			if (ir->ops[i].type == OP_REG && ir->ops[i].reg.cls == RC_GPR &&
			    ir->ops[i].reg.num == (arg & 0xff) && ir->ops[i].implicit)
				ir->ops[i].access = (uint8_t)(arg >> 16);
		break;
	case A_ST_OPS_RW:
		for (int i = 0; i < ir->nops; i++)
			if (ir->ops[i].type == OP_REG && ir->ops[i].reg.cls == RC_ST &&
			    !ir->ops[i].implicit && ir->ops[i].st_offset)
				ir->ops[i].access = AC_R | AC_W;
		break;
	case A_VZEROUPPER:
		ir->nops = 0;
		for (int v = 0; v < 16; v++) {
			x86_ir_add_reg(ir, reg_of(RC_VEC, v, 64), AC_W, 1);
			ir->ops[ir->nops - 1].part_mask = (uint8_t)arg;
		}
		break;
	}
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
			ensure_reg(ir, reg_of(RC_GPR, UNIT_RAX, 4), AC_R);
			ensure_reg(ir, reg_of(RC_GPR, UNIT_RDX, 4), AC_R);
		}
	}
}
