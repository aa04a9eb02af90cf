/* The fix table's vocabulary (x86_fix.c) and its procedures
 * (x86_fix_actions.c): internal to the x86 semantics.
 *
 * An entry is data where the fix is data (flags added or removed, the
 * memory operand's access and size, an implicit register or memory operand,
 * a dynamic handler) and names a procedure only for what rewrites operands
 * (zero idioms, lane selection, x87 pushes, ...). */
#ifndef PERPI_X86_FIX_H
#define PERPI_X86_FIX_H

#include "tracer/x86_sem.h"

/* Which decoder's output an entry corrects: S_ALL entries are DESIGN.md
 * rules and apply to both decoders. */
enum scope { S_CS, S_ALL };

/* When an entry applies, beyond its mnemonic: every bit set must hold. */
enum cond {
	C_ANY = 0,
	C_VEC = 1 << 0,	   /* an explicit vector register operand */
	C_NOVEC = 1 << 1,  /* none */
	C_MEM = 1 << 2,	   /* an explicit memory operand */
	C_REG = 1 << 3,	   /* none */
	C_LEGACY = 1 << 4, /* legacy (not VEX/EVEX/XOP) encoding */
	C_STORE = 1 << 5,  /* operand 0 is explicit memory */
	C_REP = 1 << 6,	   /* a REP prefix */
};

/* A register an entry adds as an implicit operand, or whose access it
 * widens if present (RC_ST: num is the offset from TOP). With exact, the
 * implicit operand already there gets exactly this access instead. */
struct fix_reg {
	uint8_t cls;
	int8_t num;
	uint8_t size, access, exact;
};

/* An implicit memory operand at [base] (maskmovdqu's [rdi]). */
struct fix_mem {
	uint8_t base, size, access;
};

struct fix {
	const char *mnemonics; /* space-separated; "cmov*": prefix, "?": any one letter */
	uint8_t scope, cond;
	/* Data, applied in this order where set (non-zero): */
	uint8_t flags_r, flags_w;	/* FL() masks added to the flags read / written */
	uint8_t no_flags_r, no_flags_w; /* FL() masks removed */
	uint8_t mem_access;		/* AC_*: operand 0 if memory, else each explicit one */
	uint16_t mem_size;		/* bytes of the explicit memory operands */
	struct fix_mem mem;		/* an implicit memory operand */
	struct fix_reg reg;		/* an implicit register */
	uint8_t special;		/* enum x86_special */
	uint8_t bcast;			/* 2: the memory operand is broadcast (vbroadcast*) */
	uint8_t compress;		/* vpcompress/vpexpand: selected elements contiguous */
	/* A procedure for the rest, called last with its argument. */
	void (*fn)(struct x86_ir *ir, int arg);
	int arg;
};

#define FIX_GPR(n, s, a)                                                                           \
	{                                                                                          \
		RC_GPR, (n), (s), (a), 0                                                           \
	}
#define FIX_GPR_EXACT(n, s, a)                                                                     \
	{                                                                                          \
		RC_GPR, (n), (s), (a), 1                                                           \
	}
#define FIX_ST(off, a)                                                                             \
	{                                                                                          \
		RC_ST, (off), 10, (a), 0                                                           \
	}
#define FIX_UNIT(cls, a)                                                                           \
	{                                                                                          \
		(cls), 0, 4, (a), 0                                                                \
	}

/* Whether cond (enum cond bits) holds for ir; apply one entry. */
int x86_fix_cond(const struct x86_ir *ir, int cond);
void x86_fix_data(struct x86_ir *ir, const struct fix *f);
/* After the table: what every IR needs whatever its mnemonic. */
void x86_fix_defaults(struct x86_ir *ir);

/* The procedures (x86_fix_actions.c); arg as the entry gives. */
void x86_fix_zero_idiom(struct x86_ir *ir, int arg);
void x86_fix_push(struct x86_ir *ir, int arg);
void x86_fix_pop(struct x86_ir *ir, int arg);
void x86_fix_leave(struct x86_ir *ir, int arg);
void x86_fix_enter(struct x86_ir *ir, int arg);
void x86_fix_agen(struct x86_ir *ir, int arg);
void x86_fix_no_operands(struct x86_ir *ir, int arg);
void x86_fix_read_only(struct x86_ir *ir, int arg);
void x86_fix_gpr64(struct x86_ir *ir, int arg);
void x86_fix_dest_read(struct x86_ir *ir, int arg);
void x86_fix_x87_push(struct x86_ir *ir, int arg);
void x86_fix_x87_arith(struct x86_ir *ir, int arg);
void x86_fix_x87_cmov(struct x86_ir *ir, int arg);
void x86_fix_st_ops_rw(struct x86_ir *ir, int arg);
void x86_fix_st_written(struct x86_ir *ir, int arg);
void x86_fix_syscall(struct x86_ir *ir, int arg);
void x86_fix_int80(struct x86_ir *ir, int arg);
void x86_fix_cmpxchg(struct x86_ir *ir, int arg);
void x86_fix_shift(struct x86_ir *ir, int arg);
void x86_fix_gather(struct x86_ir *ir, int arg);
void x86_fix_bit_offset(struct x86_ir *ir, int arg);
void x86_fix_xlat(struct x86_ir *ir, int arg);
void x86_fix_vzero(struct x86_ir *ir, int arg); /* arg: the parts written */
void x86_fix_lane_extract(struct x86_ir *ir, int arg);
void x86_fix_lane_insert(struct x86_ir *ir, int arg);
void x86_fix_lane_perm2(struct x86_ir *ir, int arg);
void x86_fix_lane_permq(struct x86_ir *ir, int arg);
void x86_fix_lane_shuf4(struct x86_ir *ir, int arg);

/* Shared by the procedures. */
struct x86_ireg x86_fix_reg(int cls, int num, int size);
void x86_fix_ensure_reg(struct x86_ir *ir, struct x86_ireg r, int access);
void x86_fix_add_mem(struct x86_ir *ir, int base, int64_t disp, int size, int access);
int x86_fix_explicit_regs(const struct x86_ir *ir, const struct x86_irop **out, int max);
struct x86_irop *x86_fix_explicit_op(struct x86_ir *ir, int type);

#endif
