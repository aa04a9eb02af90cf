/* The one table of per-mnemonic semantic fixes (DESIGN.md, "Decoding").
 *
 * Two scopes: S_CS entries correct what Capstone 4.0.2 reports wrongly
 * (tests/x86/test_x86_zydis.c finds them by comparing with Zydis over libc);
 * S_ALL entries are DESIGN.md rules no decoder knows (zero idioms, syscall,
 * the special registers, x87 pushes, dynamic handlers) and apply to both
 * decoders. Each entry is covered by a case in tests/x86/test_x86_sem.c. */
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
	A_VZEROUPPER,   /* writes bits 128-511 of v0-v15 */
};
enum lane { L_EXTRACT, L_INSERT, L_PERM2, L_PERMQ, L_SHUF4 };

struct fix {
	const char *mnemonic; /* "cmov*": prefix */
	uint8_t scope, cond, action;
	uint32_t arg;
};

#define GPR(n, s, a) ((n) | (s) << 8 | (a) << 16)
#define STA(off, a) ((uint8_t)(int8_t)(off) | (a) << 8)
#define ARITH_FLAGS FL_STATUS

static const struct fix fixes[] = {
	/* Zero and all-ones idioms (DESIGN.md): no source. */
	{"xor", S_ALL, C_ANY, A_ZERO_IDIOM, 0}, {"sub", S_ALL, C_ANY, A_ZERO_IDIOM, 0},
	{"pxor", S_ALL, C_ANY, A_ZERO_IDIOM, 0}, {"xorps", S_ALL, C_ANY, A_ZERO_IDIOM, 0},
	{"xorpd", S_ALL, C_ANY, A_ZERO_IDIOM, 0}, {"vpxor", S_ALL, C_ANY, A_ZERO_IDIOM, 0},
	{"vpxord", S_ALL, C_ANY, A_ZERO_IDIOM, 0}, {"vpxorq", S_ALL, C_ANY, A_ZERO_IDIOM, 0},
	{"vxorps", S_ALL, C_ANY, A_ZERO_IDIOM, 0}, {"vxorpd", S_ALL, C_ANY, A_ZERO_IDIOM, 0},
	{"pcmpeq*", S_ALL, C_ANY, A_ZERO_IDIOM, 0}, {"vpcmpeq*", S_ALL, C_VEC, A_ZERO_IDIOM, 0},
	{"psub*", S_ALL, C_ANY, A_ZERO_IDIOM, 0}, {"vpsub*", S_ALL, C_ANY, A_ZERO_IDIOM, 0},
	{"pcmpgt*", S_ALL, C_ANY, A_ZERO_IDIOM, 0}, {"vpcmpgt*", S_ALL, C_ANY, A_ZERO_IDIOM, 0},
	{"pandn", S_ALL, C_ANY, A_ZERO_IDIOM, 0}, {"vpandn", S_ALL, C_ANY, A_ZERO_IDIOM, 0},
	/* Stack bytes: Capstone reports RSP only. */
	{"push", S_CS, C_ANY, A_PUSH, 0}, {"pushfq", S_CS, C_ANY, A_PUSH, 0},
	{"call", S_CS, C_ANY, A_PUSH, 0},
	{"pop", S_CS, C_ANY, A_POP, 0}, {"popfq", S_CS, C_ANY, A_POP, 0},
	{"ret", S_CS, C_ANY, A_POP, 0},
	{"leave", S_CS, C_ANY, A_LEAVE, 0}, {"enter", S_CS, C_ANY, A_ENTER, 0},
	{"pushfq", S_ALL, C_ANY, A_FLAGS_R, FL_ALL}, {"popfq", S_ALL, C_ANY, A_FLAGS_W, FL_ALL},
	/* Stores reported as reads. */
	{"movups", S_CS, C_STORE, A_MEM_W, 0}, {"movaps", S_CS, C_STORE, A_MEM_W, 0},
	{"movupd", S_CS, C_STORE, A_MEM_W, 0}, {"movapd", S_CS, C_STORE, A_MEM_W, 0},
	{"movdqu", S_CS, C_STORE, A_MEM_W, 0}, {"movdqa", S_CS, C_STORE, A_MEM_W, 0},
	{"movq", S_CS, C_STORE, A_MEM_W, 0}, {"movd", S_CS, C_STORE, A_MEM_W, 0},
	{"vmovdqu", S_CS, C_STORE, A_MEM_W, 0}, {"vmovdqa", S_CS, C_STORE, A_MEM_W, 0},
	{"vmovdqu8", S_CS, C_STORE, A_MEM_W, 0}, {"vmovdqu64", S_CS, C_STORE, A_MEM_W, 0},
	{"vmovups", S_CS, C_STORE, A_MEM_W, 0}, {"vmovaps", S_CS, C_STORE, A_MEM_W, 0},
	{"fstp", S_CS, C_STORE, A_MEM_W, 0}, {"fst", S_CS, C_STORE, A_MEM_W, 0},
	{"fistp", S_CS, C_STORE, A_MEM_W, 0}, {"fisttp", S_CS, C_STORE, A_MEM_W, 0},
	{"set*", S_CS, C_STORE, A_MEM_W, 0},
	{"stmxcsr", S_CS, C_ANY, A_MEM_W, 0}, {"vstmxcsr", S_CS, C_ANY, A_MEM_W, 0},
	/* lea, prefetches, clflush: address registers, no memory. */
	{"lea", S_CS, C_ANY, A_AGEN, 0}, {"prefetch*", S_ALL, C_ANY, A_AGEN, 0},
	{"clflush", S_ALL, C_ANY, A_AGEN, 0}, {"clflushopt", S_ALL, C_ANY, A_AGEN, 0},
	{"nop", S_ALL, C_ANY, A_NO_OPERANDS, 0},
	/* Flags. */
	{"adc", S_CS, C_ANY, A_FLAGS_R, FL(UNIT_CF)}, {"sbb", S_CS, C_ANY, A_FLAGS_R, FL(UNIT_CF)},
	{"movsd", S_CS, C_VEC, A_FLAGS_NOT_R, FL(UNIT_DF)},
	{"movss", S_CS, C_VEC, A_FLAGS_NOT_R, FL(UNIT_DF)},
	{"test", S_CS, C_ANY, A_NO_WRITE, 0},
	/* Implicit registers. */
	{"cpuid", S_CS, C_ANY, A_GPR64, 0},
	{"cmpxchg", S_CS, C_ANY, A_CMPXCHG, 0},
	{"cmpxchg8b", S_CS, C_ANY, A_MEM_RW, 0}, {"cmpxchg16b", S_CS, C_ANY, A_MEM_RW, 0},
	{"leave", S_CS, C_ANY, A_GPR_SET, GPR(UNIT_RSP, 8, AC_W)},
	{"cqo", S_CS, C_ANY, A_GPR_SET, GPR(UNIT_RAX, 8, AC_R)},
	{"cdq", S_CS, C_ANY, A_GPR_SET, GPR(UNIT_RAX, 4, AC_R)},
	{"cwd", S_CS, C_ANY, A_GPR_SET, GPR(UNIT_RAX, 2, AC_R)},
	{"rcl", S_CS, C_ANY, A_FLAGS_R, FL(UNIT_CF)}, {"rcr", S_CS, C_ANY, A_FLAGS_R, FL(UNIT_CF)},
	{"vzeroupper", S_ALL, C_ANY, A_VZEROUPPER, 0},
	/* Destination merges. */
	{"cvtsi2sd", S_ALL, C_LEGACY, A_DEST_READ, 0}, {"cvtsi2ss", S_ALL, C_LEGACY, A_DEST_READ, 0},
	{"cvtss2sd", S_ALL, C_LEGACY, A_DEST_READ, 0}, {"cvtsd2ss", S_ALL, C_LEGACY, A_DEST_READ, 0},
	{"sqrtsd", S_ALL, C_LEGACY, A_DEST_READ, 0}, {"sqrtss", S_ALL, C_LEGACY, A_DEST_READ, 0},
	{"roundsd", S_ALL, C_LEGACY, A_DEST_READ, 0}, {"roundss", S_ALL, C_LEGACY, A_DEST_READ, 0},
	{"rcpss", S_ALL, C_LEGACY, A_DEST_READ, 0}, {"rsqrtss", S_ALL, C_LEGACY, A_DEST_READ, 0},
	{"movss", S_ALL, C_REG, A_DEST_READ, 0}, {"movsd", S_ALL, C_REG, A_DEST_READ, 0},
	{"cmov*", S_ALL, C_ANY, A_DEST_READ, 0},
	/* EVEX masked moves leave the stored register / loaded memory without access. */
	{"vmov*", S_CS, C_ANY, A_UNACCESSED_READ, 0},
	/* Syscalls (DESIGN.md): not counted, fixed register sets. */
	{"syscall", S_ALL, C_ANY, A_SYSCALL, 0}, {"sysenter", S_ALL, C_ANY, A_SYSCALL, 0},
	/* Special registers, which the IR does not carry as operands. */
	{"stmxcsr", S_ALL, C_ANY, A_UNIT, RC_MXCSR | AC_R << 8},
	{"vstmxcsr", S_ALL, C_ANY, A_UNIT, RC_MXCSR | AC_R << 8},
	{"ldmxcsr", S_ALL, C_ANY, A_UNIT, RC_MXCSR | AC_W << 8},
	{"vldmxcsr", S_ALL, C_ANY, A_UNIT, RC_MXCSR | AC_W << 8},
	{"fnstsw", S_ALL, C_ANY, A_UNIT, RC_FPSW | AC_R << 8},
	{"fstsw", S_ALL, C_ANY, A_UNIT, RC_FPSW | AC_R << 8},
	{"fnstcw", S_ALL, C_ANY, A_UNIT, RC_FPCW | AC_R << 8},
	{"fldcw", S_ALL, C_ANY, A_UNIT, RC_FPCW | AC_W << 8},
	{"fcom*", S_ALL, C_ANY, A_UNIT, RC_FPSW | AC_W << 8},
	{"fucom*", S_ALL, C_ANY, A_UNIT, RC_FPSW | AC_W << 8},
	{"ficom*", S_ALL, C_ANY, A_UNIT, RC_FPSW | AC_W << 8},
	{"ftst", S_ALL, C_ANY, A_UNIT, RC_FPSW | AC_W << 8},
	{"fxam", S_ALL, C_ANY, A_UNIT, RC_FPSW | AC_W << 8},
	{"fprem*", S_ALL, C_ANY, A_UNIT, RC_FPSW | AC_W << 8},
	/* x87: the stack through TOP. */
	{"fld", S_ALL, C_ANY, A_X87_PUSH, 0}, {"fild", S_ALL, C_ANY, A_X87_PUSH, 0},
	{"fld1", S_ALL, C_ANY, A_X87_PUSH, 0}, {"fldz", S_ALL, C_ANY, A_X87_PUSH, 0},
	{"fldpi", S_ALL, C_ANY, A_X87_PUSH, 0}, {"fldl2e", S_ALL, C_ANY, A_X87_PUSH, 0},
	{"fldln2", S_ALL, C_ANY, A_X87_PUSH, 0}, {"fldlg2", S_ALL, C_ANY, A_X87_PUSH, 0},
	{"fst", S_ALL, C_MEM, A_ST, STA(0, AC_R)}, {"fstp", S_ALL, C_MEM, A_ST, STA(0, AC_R)},
	{"fist", S_ALL, C_MEM, A_ST, STA(0, AC_R)}, {"fistp", S_ALL, C_MEM, A_ST, STA(0, AC_R)},
	{"fisttp", S_ALL, C_MEM, A_ST, STA(0, AC_R)},
	{"fadd", S_ALL, C_ANY, A_X87_ARITH, 0}, {"fsub", S_ALL, C_ANY, A_X87_ARITH, 0},
	{"fsubr", S_ALL, C_ANY, A_X87_ARITH, 0}, {"fmul", S_ALL, C_ANY, A_X87_ARITH, 0},
	{"fdiv", S_ALL, C_ANY, A_X87_ARITH, 0}, {"fdivr", S_ALL, C_ANY, A_X87_ARITH, 0},
	{"faddp", S_ALL, C_ANY, A_ST_OPS_RW, 0}, {"fsubp", S_ALL, C_ANY, A_ST_OPS_RW, 0},
	{"fsubrp", S_ALL, C_ANY, A_ST_OPS_RW, 0}, {"fmulp", S_ALL, C_ANY, A_ST_OPS_RW, 0},
	{"fdivp", S_ALL, C_ANY, A_ST_OPS_RW, 0}, {"fdivrp", S_ALL, C_ANY, A_ST_OPS_RW, 0},
	{"faddp", S_ALL, C_ANY, A_ST, STA(0, AC_R)}, {"fsubp", S_ALL, C_ANY, A_ST, STA(0, AC_R)},
	{"fsubrp", S_ALL, C_ANY, A_ST, STA(0, AC_R)}, {"fmulp", S_ALL, C_ANY, A_ST, STA(0, AC_R)},
	{"fdivp", S_ALL, C_ANY, A_ST, STA(0, AC_R)}, {"fdivrp", S_ALL, C_ANY, A_ST, STA(0, AC_R)},
	{"fxch", S_ALL, C_ANY, A_ST_OPS_RW, 0}, {"fxch", S_ALL, C_ANY, A_ST, STA(0, AC_R | AC_W)},
	{"fchs", S_ALL, C_ANY, A_ST, STA(0, AC_R | AC_W)},
	{"fabs", S_ALL, C_ANY, A_ST, STA(0, AC_R | AC_W)},
	{"fsqrt", S_ALL, C_ANY, A_ST, STA(0, AC_R | AC_W)},
	{"frndint", S_ALL, C_ANY, A_ST, STA(0, AC_R | AC_W)},
	{"fcomi", S_ALL, C_ANY, A_FLAGS_W, FL_STATUS}, {"fcomip", S_ALL, C_ANY, A_FLAGS_W, FL_STATUS},
	{"fucomi", S_ALL, C_ANY, A_FLAGS_W, FL_STATUS}, {"fucomip", S_ALL, C_ANY, A_FLAGS_W, FL_STATUS},
	{"fcomi*", S_ALL, C_ANY, A_ST, STA(0, AC_R)}, {"fucomi*", S_ALL, C_ANY, A_ST, STA(0, AC_R)},
	{"fcom", S_ALL, C_ANY, A_ST, STA(0, AC_R)}, {"fcomp", S_ALL, C_ANY, A_ST, STA(0, AC_R)},
	{"fucom", S_ALL, C_ANY, A_ST, STA(0, AC_R)}, {"fucomp", S_ALL, C_ANY, A_ST, STA(0, AC_R)},
	{"fcompp", S_ALL, C_ANY, A_ST, STA(0, AC_R)}, {"fcompp", S_ALL, C_ANY, A_ST, STA(1, AC_R)},
	{"fucompp", S_ALL, C_ANY, A_ST, STA(0, AC_R)}, {"fucompp", S_ALL, C_ANY, A_ST, STA(1, AC_R)},
	{"ftst", S_ALL, C_ANY, A_ST, STA(0, AC_R)}, {"fxam", S_ALL, C_ANY, A_ST, STA(0, AC_R)},
	/* Dynamic handlers. */
	{"shl", S_ALL, C_ANY, A_SHIFT, 0}, {"sal", S_ALL, C_ANY, A_SHIFT, 0},
	{"shr", S_ALL, C_ANY, A_SHIFT, 0}, {"sar", S_ALL, C_ANY, A_SHIFT, 0},
	{"rol", S_ALL, C_ANY, A_SHIFT, 0}, {"ror", S_ALL, C_ANY, A_SHIFT, 0},
	{"rcl", S_ALL, C_ANY, A_SHIFT, 0}, {"rcr", S_ALL, C_ANY, A_SHIFT, 0},
	{"shld", S_ALL, C_ANY, A_SHIFT, 0}, {"shrd", S_ALL, C_ANY, A_SHIFT, 0},
	{"movs*", S_ALL, C_NOVEC, A_SPECIAL, SP_STRING}, {"stos*", S_ALL, C_ANY, A_SPECIAL, SP_STRING},
	{"lods*", S_ALL, C_ANY, A_SPECIAL, SP_STRING}, {"cmps*", S_ALL, C_NOVEC, A_SPECIAL, SP_STRING},
	{"scas*", S_ALL, C_ANY, A_SPECIAL, SP_STRING},
	{"vgather*", S_ALL, C_ANY, A_GATHER, 0}, {"vpgather*", S_ALL, C_ANY, A_GATHER, 0},
	{"vscatter*", S_ALL, C_ANY, A_GATHER, 0}, {"vpscatter*", S_ALL, C_ANY, A_GATHER, 0},
	{"xsave", S_ALL, C_ANY, A_SPECIAL, SP_XSAVE}, {"xsave64", S_ALL, C_ANY, A_SPECIAL, SP_XSAVE},
	{"xsavec", S_ALL, C_ANY, A_SPECIAL, SP_XSAVE}, {"xsavec64", S_ALL, C_ANY, A_SPECIAL, SP_XSAVE},
	{"xsaveopt", S_ALL, C_ANY, A_SPECIAL, SP_XSAVE},
	{"xsaveopt64", S_ALL, C_ANY, A_SPECIAL, SP_XSAVE},
	{"fxsave", S_ALL, C_ANY, A_SPECIAL, SP_XSAVE}, {"fxsave64", S_ALL, C_ANY, A_SPECIAL, SP_XSAVE},
	{"xrstor", S_ALL, C_ANY, A_SPECIAL, SP_XRSTOR}, {"xrstor64", S_ALL, C_ANY, A_SPECIAL, SP_XRSTOR},
	{"fxrstor", S_ALL, C_ANY, A_SPECIAL, SP_XRSTOR},
	{"fxrstor64", S_ALL, C_ANY, A_SPECIAL, SP_XRSTOR},
	/* Lane-selecting instructions read exactly the lanes they select. */
	{"vextractf128", S_ALL, C_ANY, A_LANE, L_EXTRACT}, {"vextracti128", S_ALL, C_ANY, A_LANE, L_EXTRACT},
	{"vextract?32x4", S_ALL, C_ANY, A_LANE, L_EXTRACT}, {"vextract?64x2", S_ALL, C_ANY, A_LANE, L_EXTRACT},
	{"vextract?32x8", S_ALL, C_ANY, A_LANE, L_EXTRACT}, {"vextract?64x4", S_ALL, C_ANY, A_LANE, L_EXTRACT},
	{"vinsertf128", S_ALL, C_ANY, A_LANE, L_INSERT}, {"vinserti128", S_ALL, C_ANY, A_LANE, L_INSERT},
	{"vperm2f128", S_ALL, C_ANY, A_LANE, L_PERM2}, {"vperm2i128", S_ALL, C_ANY, A_LANE, L_PERM2},
	{"vpermq", S_ALL, C_ANY, A_LANE, L_PERMQ}, {"vpermpd", S_ALL, C_ANY, A_LANE, L_PERMQ},
	{"vshuf?32x4", S_ALL, C_ANY, A_LANE, L_SHUF4}, {"vshuf?64x2", S_ALL, C_ANY, A_LANE, L_SHUF4},
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
		int piece = s2 ? s2->size : 16, lanes = s1->size == 64 ? 3 : 1;
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
		n += ir->ops[i].type == OP_REG && ir->ops[i].reg.cls == RC_ST && !ir->ops[i].implicit;
	if (n <= 1) /* "fadd st(1)" or "fadd m64": st(0) op= operand */
		ensure_reg(ir, reg_of(RC_ST, 0, 10), AC_R | AC_W);
}

static void fix_action(struct x86_ir *ir, const struct fix *f)
{
	switch (f->action) {
	case A_ZERO_IDIOM: fix_zero_idiom(ir); break;
	case A_PUSH: case A_POP: case A_LEAVE: case A_ENTER: fix_stack(ir, f->action); break;
	case A_MEM_W: set_mem_access(ir, AC_W); break;
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
	case A_CMPXCHG: fix_cmpxchg(ir); break;
	case A_SHIFT: fix_shift(ir); break;
	case A_GATHER: fix_gather(ir); break;
	case A_LANE: fix_lane(ir, (int)f->arg); break;
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
			ir->ops[ir->nops - 1].part_mask = 6;
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

static int mnemonic_match(const char *pattern, const char *m)
{
	for (; *pattern; pattern++, m++) {
		if (*pattern == '*')
			return 1;
		if (*pattern != *m && !(*pattern == '?' && *m))
			return 0;
	}
	return *m == 0;
}

void x86_fix_apply(struct x86_ir *ir)
{
	for (size_t i = 0; i < ARRAY_SIZE(fixes); i++) {
		const struct fix *f = &fixes[i];
		if (f->scope == S_CS && (ir->decoder != DECODER_CAPSTONE || ir->no_fixes))
			continue;
		if (!mnemonic_match(f->mnemonic, ir->mnemonic) || !cond_holds(ir, f->cond))
			continue;
		fix_action(ir, f);
	}
	fix_defaults(ir);
}
