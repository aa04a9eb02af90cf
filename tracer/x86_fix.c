/* The one table of per-mnemonic semantic fixes (DESIGN.md, "Decoding").
 *
 * Two scopes: S_CS entries correct what Capstone 4.0.2 reports wrongly
 * (tests/x86/test_x86_zydis.c finds them by comparing with Zydis over libc);
 * S_ALL entries are DESIGN.md rules no decoder knows (zero idioms, syscall,
 * the special registers, x87 pushes, dynamic handlers) and apply to both
 * decoders. Each entry is covered by a case in tests/x86/test_x86_sem.c. */
#include <stdio.h>
#include <string.h>

#include "common/util.h"
#include "tracer/x86_sem.h"

enum scope { S_CS, S_ALL };
enum cond { C_ANY, C_VEC, C_NOVEC, C_MEM, C_REG, C_LEGACY, C_STORE /* memory is operand 0 */ };
enum action {
	A_ZERO_IDIOM,   /* no source when both inputs are one register */
	A_PUSH, A_POP, A_LEAVE, A_ENTER, /* implicit stack bytes */
	A_MEM_W, A_MEM_RW, A_AGEN, /* fix the explicit memory operand's access */
	A_NO_OPERANDS,  /* nop [mem]: nothing at all */
	A_FLAGS_R, A_FLAGS_W, A_FLAGS_NOT_R, /* arg: FL() mask */
	A_NO_WRITE,     /* explicit operands are only read (test, cmp) */
	A_GPR,          /* implicit GPR: arg = num | size << 8 | access << 16 */
	A_GPR64,        /* implicit 32-bit GPRs are the 64-bit units */
	A_DEST_READ,    /* the destination register is also read (merges) */
	A_UNACCESSED_READ, /* explicit registers without access are read */
	A_ST, A_X87_PUSH, A_X87_ARITH, /* x87: arg = offset | access << 8 */
	A_UNIT,         /* special register: arg = RC_* | access << 8 */
	A_SPECIAL,      /* arg: enum x86_special */
	A_SYSCALL, A_CMPXCHG, A_SHIFT, A_GATHER,
	A_LANE,         /* lane-selecting: arg enum lane */
	A_GPR_SET,      /* implicit GPR gets exactly this access: arg as A_GPR */
	A_ST_OPS_RW,    /* explicit ST(i) operands are read and written */
	A_VZEROUPPER,   /* writes parts arg (bitmask) of v0-v15 */
	A_MEM_SIZE,     /* the explicit memory operand has arg bytes */
	A_NO_FLAGS_W,   /* writes no flag */
	A_X87_CMOV,     /* fcmovcc st(0), st(i): st(0) merges, st(i) read */
	A_INT80,        /* int 0x80: the 32-bit system call */
	A_STATIC_BCAST, /* the memory operand is broadcast to every element */
};
enum lane { L_EXTRACT, L_INSERT, L_PERM2, L_PERMQ, L_SHUF4 };

struct fix {
	const char *mnemonics; /* space-separated; "cmov*": prefix, "?": any one letter */
	uint8_t scope, cond, action;
	uint32_t arg;
};

#define GPR(n, s, a) ((n) | (s) << 8 | (a) << 16)
#define STA(off, a) ((uint8_t)(int8_t)(off) | (a) << 8)
#define ARITH_FLAGS FL_STATUS

static const struct fix fixes[] = {
	/* Zero and all-ones idioms (DESIGN.md): no source. */
	{"xor sub pxor xorps xorpd vpxor vpxord vpxorq vxorps vxorpd "
	 "pcmpeq* psub* vpsub* pcmpgt* vpcmpgt* pandn vpandn",
	 S_ALL, C_ANY, A_ZERO_IDIOM, 0},
	{"vpcmpeq*", S_ALL, C_VEC, A_ZERO_IDIOM, 0},
	/* The mask-register forms glibc uses (kxnorq k2,k2,k2: all ones). */
	{"kxnor? kxor?", S_ALL, C_ANY, A_ZERO_IDIOM, 0},
	/* Stack bytes: Capstone reports RSP only. */
	{"push pushfq call", S_CS, C_ANY, A_PUSH, 0},
	{"pop popfq ret", S_CS, C_ANY, A_POP, 0},
	{"leave", S_CS, C_ANY, A_LEAVE, 0},
	{"enter", S_CS, C_ANY, A_ENTER, 0},
	{"pushfq", S_ALL, C_ANY, A_FLAGS_R, FL_ALL},
	{"popfq", S_ALL, C_ANY, A_FLAGS_W, FL_ALL},
	/* Stores reported as reads: moves whose first operand is memory. */
	{"mov* vmov* fst fstp fist fistp fisttp fnstcw fnstsw set*", S_CS, C_STORE, A_MEM_W, 0},
	{"stmxcsr vstmxcsr", S_CS, C_ANY, A_MEM_W, 0},
	/* lea, prefetches, clflush: address registers, no memory. */
	{"lea", S_CS, C_ANY, A_AGEN, 0},
	{"prefetch* clflush clflushopt", S_ALL, C_ANY, A_AGEN, 0},
	{"nop", S_ALL, C_ANY, A_NO_OPERANDS, 0},
	/* Flags. */
	{"adc sbb", S_CS, C_ANY, A_FLAGS_R, FL(UNIT_CF)},
	{"movsd movss", S_CS, C_VEC, A_FLAGS_NOT_R, FL(UNIT_DF)},
	{"test", S_CS, C_ANY, A_NO_WRITE, 0},
	/* Implicit registers. */
	{"cpuid", S_CS, C_ANY, A_GPR64, 0},
	{"cmpxchg", S_CS, C_ANY, A_CMPXCHG, 0},
	{"cmpxchg8b cmpxchg16b", S_CS, C_ANY, A_MEM_RW, 0},
	{"leave", S_CS, C_ANY, A_GPR_SET, GPR(UNIT_RSP, 8, AC_W)},
	{"cqo", S_CS, C_ANY, A_GPR_SET, GPR(UNIT_RAX, 8, AC_R)},
	{"cdq", S_CS, C_ANY, A_GPR_SET, GPR(UNIT_RAX, 4, AC_R)},
	{"cwd", S_CS, C_ANY, A_GPR_SET, GPR(UNIT_RAX, 2, AC_R)},
	{"rcl rcr", S_CS, C_ANY, A_FLAGS_R, FL(UNIT_CF)},
	{"vzeroupper", S_ALL, C_ANY, A_VZEROUPPER, 6},
	{"vzeroall", S_ALL, C_ANY, A_VZEROUPPER, 7},
	/* Destination merges. */
	{"cvtsi2sd cvtsi2ss cvtss2sd cvtsd2ss sqrtsd sqrtss roundsd "
	 "roundss rcpss rsqrtss movhps movlps movhpd movlpd movhlps "
	 "movlhps pinsr*",
	 S_ALL, C_LEGACY, A_DEST_READ, 0},
	{"movss movsd", S_ALL, C_REG, A_DEST_READ, 0},
	{"cmov*", S_ALL, C_ANY, A_DEST_READ, 0},
	/* EVEX masked forms leave operands without access: they are read. */
	{"v*", S_CS, C_ANY, A_UNACCESSED_READ, 0},
	{"pcmpistri pcmpestri pcmpistrm pcmpestrm vcomis* vucomis*",
	 S_CS, C_ANY, A_FLAGS_W, FL_STATUS},
	{"lzcnt tzcnt", S_CS, C_ANY, A_FLAGS_W, FL(UNIT_CF)},
	{"comiss ucomiss vcomiss vucomiss", S_CS, C_ANY, A_MEM_SIZE, 4},
	{"comisd ucomisd vcomisd vucomisd", S_CS, C_ANY, A_MEM_SIZE, 8},
	{"fnstsw", S_CS, C_MEM, A_MEM_SIZE, 2},
	{"vbroadcast?32x4 vbroadcast?64x2", S_CS, C_MEM, A_MEM_SIZE, 16},
	/* SSE compares write a mask, not flags */
	{"cmp*", S_CS, C_VEC, A_NO_FLAGS_W, 0},
	/* Flags Capstone 4 does not report read */
	{"cmps*", S_CS, C_NOVEC, A_FLAGS_R, FL(UNIT_DF)},
	{"scas* lods* stos*", S_CS, C_ANY, A_FLAGS_R, FL(UNIT_DF)},
	{"adcx cmc fcmovb fcmovnb", S_CS, C_ANY, A_FLAGS_R, FL(UNIT_CF)},
	{"adox", S_CS, C_ANY, A_FLAGS_R, FL(UNIT_OF)},
	{"adcx adox", S_CS, C_ANY, A_DEST_READ, 0},
	{"lahf", S_CS, C_ANY, A_FLAGS_R, FL_STATUS & ~FL(UNIT_OF)},
	{"rol ror rcl rcr", S_CS, C_MEM, A_MEM_RW, 0},
	{"extractps vextract* pextr* vpextr*", S_CS, C_STORE, A_MEM_W, 0},
	{"fcmove fcmovne", S_CS, C_ANY, A_FLAGS_R, FL(UNIT_ZF)},
	{"fcmovbe fcmovnbe", S_CS, C_ANY, A_FLAGS_R, FL(UNIT_CF) | FL(UNIT_ZF)},
	{"fcmovu fcmovnu", S_CS, C_ANY, A_FLAGS_R, FL(UNIT_PF)},
	/* Syscalls (DESIGN.md): not counted, fixed register sets. */
	{"syscall sysenter", S_ALL, C_ANY, A_SYSCALL, 0},
	{"int", S_ALL, C_ANY, A_INT80, 0},
	/* Special registers, which the IR does not carry as operands. */
	{"stmxcsr vstmxcsr", S_ALL, C_ANY, A_UNIT, RC_MXCSR | AC_R << 8},
	{"ldmxcsr vldmxcsr", S_ALL, C_ANY, A_UNIT, RC_MXCSR | AC_W << 8},
	{"fnstsw fstsw", S_ALL, C_ANY, A_UNIT, RC_FPSW | AC_R << 8},
	{"fnstcw", S_ALL, C_ANY, A_UNIT, RC_FPCW | AC_R << 8},
	{"fldcw", S_ALL, C_ANY, A_UNIT, RC_FPCW | AC_W << 8},
	{"fcom fcomp fcompp fucom fucomp fucompp ficom ficomp ftst fxam fprem fprem1",
	 S_ALL, C_ANY, A_UNIT, RC_FPSW | AC_W << 8},
	/* x87: the stack through TOP. */
	{"fld fild fld1 fldz fldpi fldl2e fldln2 fldlg2 fldl2t fbld "
	 "fxtract fptan fsincos",
	 S_ALL, C_ANY, A_X87_PUSH, 0},
	{"fxtract fptan fsincos fscale fprem* fsin fcos f2xm1 fxch "
	 "fchs fabs fsqrt frndint",
	 S_ALL, C_ANY, A_ST, STA(0, AC_R | AC_W)},
	{"fbstp ficom ficomp fst fstp fpatan fyl2x* faddp fsubp "
	 "fsubrp fmulp fdivp fdivrp fcomi* fucomi* fcom fcomp fucom "
	 "fucomp fcompp fucompp ftst fxam",
	 S_ALL, C_ANY, A_ST, STA(0, AC_R)},
	{"fcmov*", S_ALL, C_ANY, A_X87_CMOV, 0},
	{"fiadd fisub fisubr fimul fidiv fidivr fadd fsub fsubr fmul "
	 "fdiv fdivr",
	 S_ALL, C_ANY, A_X87_ARITH, 0},
	{"fscale fprem* fcompp fucompp", S_ALL, C_ANY, A_ST, STA(1, AC_R)},
	{"fpatan fyl2x*", S_ALL, C_ANY, A_ST, STA(1, AC_R | AC_W)},
	{"fist fistp fisttp", S_ALL, C_MEM, A_ST, STA(0, AC_R)},
	{"faddp fsubp fsubrp fmulp fdivp fdivrp fxch", S_ALL, C_ANY, A_ST_OPS_RW, 0},
	{"fcomi fcomip fucomi fucomip", S_ALL, C_ANY, A_FLAGS_W, FL_STATUS},
	/* Dynamic handlers. */
	{"shl sal shr sar rol ror rcl rcr shld shrd", S_ALL, C_ANY, A_SHIFT, 0},
	{"movs* cmps*", S_ALL, C_NOVEC, A_SPECIAL, SP_STRING},
	{"stos* lods* scas*", S_ALL, C_ANY, A_SPECIAL, SP_STRING},
	{"vgather* vpgather* vscatter* vpscatter*", S_ALL, C_ANY, A_GATHER, 0},
	/* Masked broadcasts read their one source if any element is selected. */
	{"vbroadcast* vpbroadcast*", S_ALL, C_MEM, A_STATIC_BCAST, 0},
	{"xsave xsave64 xsavec xsavec64 xsaveopt xsaveopt64 fxsave "
	 "fxsave64",
	 S_ALL, C_ANY, A_SPECIAL, SP_XSAVE},
	{"xrstor xrstor64 fxrstor fxrstor64", S_ALL, C_ANY, A_SPECIAL, SP_XRSTOR},
	/* Lane-selecting instructions read exactly the lanes they select. */
	{"vextractf128 vextracti128 vextract?32x4 vextract?64x2 "
	 "vextract?32x8 vextract?64x4",
	 S_ALL, C_ANY, A_LANE, L_EXTRACT},
	{"vinsertf128 vinserti128 vinsert?32x4 vinsert?64x2 vinsert?32x8 vinsert?64x4",
	 S_ALL, C_ANY, A_LANE, L_INSERT},
	{"vperm2f128 vperm2i128", S_ALL, C_ANY, A_LANE, L_PERM2},
	{"vpermq vpermpd", S_ALL, C_ANY, A_LANE, L_PERMQ},
	{"vshuf?32x4 vshuf?64x2", S_ALL, C_ANY, A_LANE, L_SHUF4},
};


/* ---- actions ---- */

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

static int cond_holds(const struct x86_ir *ir, int cond)
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
	case C_VEC: return vec;
	case C_NOVEC: return !vec;
	case C_MEM: return mem;
	case C_REG: return !mem;
	case C_LEGACY: return ir->enc == ENC_LEGACY;
	case C_STORE: return ir->nops && ir->ops[0].type == OP_MEM && !ir->ops[0].implicit;
	default: return 1;
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
	static const uint8_t in[] = {UNIT_RAX, UNIT_RBX, UNIT_RCX, UNIT_RDX, UNIT_RSI, UNIT_RDI,
				     UNIT_RBP};
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
		if (!s1) s1 = op; else if (!s2) s2 = op;
	}
	if (kind == L_EXTRACT && s1) {
		int out = dst->size; /* 16 or 32 bytes extracted */
		s1->part_mask = (uint8_t)(out >= 32 ? ((imm & 1) ? 4 : 3) : lane_mask(imm & (s1->size == 64 ? 3 : 1)));
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
		int m2 = wide ? lane_mask(imm >> 4 & 3) | lane_mask(imm >> 6 & 3) : 1 << (imm >> 1 & 1);
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

static void fix_action(struct x86_ir *ir, const struct fix *f)
{
	switch (f->action) {
	case A_ZERO_IDIOM: fix_zero_idiom(ir); break;
	case A_PUSH: case A_POP: case A_LEAVE: case A_ENTER: fix_stack(ir, f->action); break;
	case A_MEM_W:
		if (ir->nops && ir->ops[0].type == OP_MEM)
			ir->ops[0].access = AC_W;
		else
			set_mem_access(ir, AC_W);
		break;
	case A_MEM_RW: set_mem_access(ir, AC_R | AC_W); break;
	case A_AGEN:
		for (int i = 0; i < ir->nops; i++)
			if (ir->ops[i].type == OP_MEM)
				ir->ops[i].type = OP_AGEN;
		break;
	case A_NO_OPERANDS: ir->nops = 0; ir->flags_read = ir->flags_write = 0; break;
	case A_FLAGS_R: ir->flags_read |= (uint8_t)f->arg; break;
	case A_FLAGS_W: ir->flags_write |= (uint8_t)f->arg; break;
	case A_FLAGS_NOT_R: ir->flags_read &= (uint8_t)~f->arg; break;
	case A_NO_WRITE:
		for (int i = 0; i < ir->nops; i++)
			if (!ir->ops[i].implicit && ir->ops[i].type != OP_IMM)
				ir->ops[i].access = AC_R;
		break;
	case A_GPR:
		ensure_reg(ir, reg_of(RC_GPR, f->arg & 0xff, f->arg >> 8 & 0xff), (int)(f->arg >> 16));
		break;
	case A_GPR64:
		for (int i = 0; i < ir->nops; i++)
			if (ir->ops[i].implicit && ir->ops[i].reg.cls == RC_GPR && ir->ops[i].size == 4)
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
		struct x86_ireg r = reg_of(RC_ST, (int8_t)(f->arg & 0xff), 10);
		ensure_reg(ir, r, (int)(f->arg >> 8));
		break;
	}
	case A_X87_PUSH: fix_x87_push(ir); break;
	case A_X87_ARITH: fix_x87_arith(ir); break;
	case A_UNIT: x86_ir_add_reg(ir, reg_of((int)(f->arg & 0xff), 0, 4), (int)(f->arg >> 8), 1); break;
	case A_SPECIAL:
		if (f->arg != SP_STRING || ir->rep) {
			ir->special = (uint8_t)f->arg;
			if (f->arg == SP_STRING)
				ensure_reg(ir, reg_of(RC_GPR, UNIT_RCX, 8), AC_R | AC_W);
		}
		break;
	case A_SYSCALL: fix_syscall(ir); break;
	case A_INT80: fix_int80(ir); break;
	case A_STATIC_BCAST: ir->bcast = 2; break;
	case A_CMPXCHG: fix_cmpxchg(ir); break;
	case A_SHIFT: fix_shift(ir); break;
	case A_GATHER: fix_gather(ir); break;
	case A_LANE: fix_lane(ir, (int)f->arg); break;
	case A_MEM_SIZE:
		for (int i = 0; i < ir->nops; i++)
			if (ir->ops[i].type == OP_MEM && !ir->ops[i].implicit)
				ir->ops[i].size = (uint16_t)f->arg;
		break;
	case A_NO_FLAGS_W: ir->flags_write = 0; break;
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
			    ir->ops[i].reg.num == (f->arg & 0xff) && ir->ops[i].implicit)
				ir->ops[i].access = (uint8_t)(f->arg >> 16);
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
			ir->ops[ir->nops - 1].part_mask = (uint8_t)f->arg;
		}
		break;
	}
}

/* After the table: what every IR needs whatever its mnemonic. */
static void fix_defaults(struct x86_ir *ir)
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

static int pattern_match(const char *p, size_t len, const char *m)
{
	for (size_t i = 0; i < len; i++, m++) {
		if (p[i] == '*')
			return 1;
		if (p[i] != *m && !(p[i] == '?' && *m))
			return 0;
	}
	return *m == 0;
}

static int mnemonic_match(const char *list, const char *m)
{
	while (*list) {
		size_t len = strcspn(list, " ");
		if (pattern_match(list, len, m))
			return 1;
		list += len;
		list += strspn(list, " ");
	}
	return 0;
}

static unsigned long fix_hits[ARRAY_SIZE(fixes)];

size_t x86_fix_count(void)
{
	return ARRAY_SIZE(fixes);
}

unsigned long x86_fix_hits(size_t i, const char **mnemonic, int *capstone_only)
{
	*mnemonic = fixes[i].mnemonics;
	*capstone_only = fixes[i].scope == S_CS;
	return fix_hits[i];
}

/* Which entries a mnemonic matches, cached: matching ~80 pattern lists per
 * decode costs microseconds. Static, like the table (decoding is not
 * multi-threaded). */
#define MATCH_CACHE 4096
#define MATCH_WORDS ((ARRAY_SIZE(fixes) + 63) / 64)
static struct {
	char mnemonic[32];
	uint64_t match[MATCH_WORDS];
} match_cache[MATCH_CACHE];

static const uint64_t *matching_fixes(const char *m)
{
	uint32_t h = 2166136261u;
	for (const char *p = m; *p; p++)
		h = (h ^ (uint8_t)*p) * 16777619u;
	for (uint32_t probe = 0; probe < MATCH_CACHE; probe++) {
		__typeof__(match_cache[0]) *e = &match_cache[(h + probe) % MATCH_CACHE];
		if (e->mnemonic[0] && strcmp(e->mnemonic, m))
			continue;
		if (!e->mnemonic[0]) {
			snprintf(e->mnemonic, sizeof(e->mnemonic), "%s", m);
			for (size_t i = 0; i < ARRAY_SIZE(fixes); i++)
				if (mnemonic_match(fixes[i].mnemonics, m))
					e->match[i / 64] |= 1ull << (i % 64);
		}
		return e->match;
	}
	return NULL; /* full: match without the cache */
}

void x86_fix_apply(struct x86_ir *ir)
{
	const uint64_t *match = matching_fixes(ir->mnemonic);
	for (size_t i = 0; i < ARRAY_SIZE(fixes); i++) {
		const struct fix *f = &fixes[i];
		if (match ? !(match[i / 64] >> (i % 64) & 1) : !mnemonic_match(f->mnemonics, ir->mnemonic))
			continue;
		if (f->scope == S_CS && (ir->decoder != DECODER_CAPSTONE || ir->no_fixes))
			continue;
		if (!cond_holds(ir, f->cond))
			continue;
		fix_hits[i]++;
		fix_action(ir, f);
	}
	fix_defaults(ir);
}
