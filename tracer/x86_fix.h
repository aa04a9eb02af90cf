/* The fix table's vocabulary (x86_fix.c) and its actions (x86_fix_actions.c):
 * internal to the x86 semantics. */
#ifndef PERPI_X86_FIX_H
#define PERPI_X86_FIX_H

#include "tracer/x86_sem.h"

enum scope { S_CS, S_ALL };
enum cond { C_ANY, C_VEC, C_NOVEC, C_MEM, C_REG, C_LEGACY, C_STORE /* memory is operand 0 */ };
enum action {
	A_ZERO_IDIOM, /* no source when both inputs are one register */
	A_PUSH,
	A_POP,
	A_LEAVE,
	A_ENTER, /* implicit stack bytes */
	A_MEM_W,
	A_MEM_RW,
	A_AGEN,	       /* fix the explicit memory operand's access */
	A_NO_OPERANDS, /* nop [mem]: nothing at all */
	A_FLAGS_R,
	A_FLAGS_W,
	A_FLAGS_NOT_R,	   /* arg: FL() mask */
	A_FLAGS_NOT_W,	   /* arg: FL() mask */
	A_NO_WRITE,	   /* explicit operands are only read (test, cmp) */
	A_GPR,		   /* implicit GPR: arg = num | size << 8 | access << 16 */
	A_GPR64,	   /* implicit 32-bit GPRs are the 64-bit units */
	A_DEST_READ,	   /* the destination register is also read (merges) */
	A_UNACCESSED_READ, /* explicit registers without access are read */
	A_ST,
	A_X87_PUSH,
	A_X87_ARITH, /* x87: arg = offset | access << 8 */
	A_UNIT,	     /* special register: arg = RC_* | access << 8 */
	A_SPECIAL,   /* arg: enum x86_special */
	A_SYSCALL,
	A_CMPXCHG,
	A_SHIFT,
	A_GATHER,
	A_LANE,		/* lane-selecting: arg enum lane */
	A_GPR_SET,	/* implicit GPR gets exactly this access: arg as A_GPR */
	A_ST_OPS_RW,	/* explicit ST(i) operands are read and written */
	A_VZEROUPPER,	/* writes parts arg (bitmask) of v0-v15 */
	A_MEM_SIZE,	/* the explicit memory operand has arg bytes */
	A_NO_FLAGS_W,	/* writes no flag */
	A_X87_CMOV,	/* fcmovcc st(0), st(i): st(0) merges, st(i) read */
	A_INT80,	/* int 0x80: the 32-bit system call */
	A_STATIC_BCAST, /* the memory operand is broadcast to every element */
	A_BIT_OFFSET,	/* bt m, r: the address depends on the register */
	A_XLAT,		/* xlat: reads [rbx + al] into al */
	A_COMPRESS,	/* vpcompress/vpexpand: the memory elements are contiguous */
	A_STORE_RDI,	/* maskmovdqu: arg bytes written at [rdi] (every byte, whatever the mask) */
};
enum lane { L_EXTRACT, L_INSERT, L_PERM2, L_PERMQ, L_SHUF4 };

#define GPR(n, s, a) ((n) | (s) << 8 | (a) << 16)
#define STA(off, a) ((uint8_t)(int8_t)(off) | (a) << 8)

/* Whether cond holds for ir, and the action itself (arg as in the table). */
int x86_fix_cond(const struct x86_ir *ir, int cond);
void x86_fix_action(struct x86_ir *ir, int action, uint32_t arg);
/* After the table: what every IR needs whatever its mnemonic. */
void x86_fix_defaults(struct x86_ir *ir);

#endif
