/* Internals of the x86 semantics (tracer/x86*.c), not for other modules.
 *
 * Decoding goes in three stages, so that both decoders feed one set of rules:
 *   1. a decoder (Capstone, or Zydis where Capstone fails) fills a neutral
 *      operand list, struct x86_ir (x86_ir_capstone, x86_ir_zydis);
 *   2. the fix table (x86_fix.c) corrects what the decoder got wrong and
 *      adds the implicit effects DESIGN.md asks for;
 *   3. x86_sem_build turns the IR into struct x86_sem: static unit lists,
 *      memory templates and one special handler for what depends on the run,
 *      so that x86_resolve only computes addresses. */
#ifndef PERPI_X86_SEM_H
#define PERPI_X86_SEM_H

#include <stdint.h>

#include "tracer/x86.h"

/* Register classes of the neutral IR. */
enum x86_rcls {
	RC_NONE,
	RC_GPR,
	RC_VEC,
	RC_K,
	RC_ST,
	RC_RIP,
	RC_FLAGS,
	RC_MXCSR,
	RC_FPSW,
	RC_FPCW,
	RC_FS,
	RC_GS,
	RC_SEG,
	RC_OTHER,
	RC_MM /* mm0-mm7: the x87 physical registers R0-R7, not through TOP */
};

struct x86_ireg {
	uint8_t cls;  /* enum x86_rcls */
	uint8_t num;  /* GPR encoding number, vector/mask/st index */
	uint8_t size; /* bytes: 1 2 4 8 16 32 64 */
	uint8_t high; /* ah ch dh bh */
};

/* Parse a register name as either decoder prints it ("eax", "st(1)", "st1",
 * "zmm17", "k3", "mm2", "x87status"...). Unknown names give RC_OTHER. */
struct x86_ireg x86_reg_parse(const char *name);

enum { OP_REG = 1, OP_MEM, OP_IMM, OP_AGEN /* address only: lea, nop, prefetch */ };
enum { AC_R = 1, AC_W = 2 };
enum { ENC_LEGACY, ENC_VEX, ENC_EVEX, ENC_XOP };

struct x86_irop {
	uint8_t type, access, implicit;
	uint16_t size; /* bytes */
	struct x86_ireg reg;
	struct x86_ireg base, index; /* OP_MEM / OP_AGEN; index RC_VEC: VSIB */
	uint8_t scale, seg;	     /* seg: 0, RC_FS or RC_GS */
	uint8_t part_mask;	     /* vector parts read, if not all of size (lane selection) */
	int8_t st_offset;	     /* RC_ST: offset from TOP before execution (x87 pushes: -1) */
	int64_t disp;
	int64_t imm;
};

/* Flags as a bitmask, bit i = UNIT_CF + i. */
#define FL(u) (1u << ((u)-UNIT_CF))
#define FL_STATUS                                                                                  \
	(FL(UNIT_CF) | FL(UNIT_PF) | FL(UNIT_AF) | FL(UNIT_ZF) | FL(UNIT_SF) | FL(UNIT_OF))
#define FL_ALL (FL_STATUS | FL(UNIT_DF))

#define IR_MAX_OPS 16

struct x86_ir {
	char mnemonic[32];
	uint8_t decoder; /* enum perpi_decoder */
	uint8_t enc;	 /* ENC_* */
	uint8_t nops;
	struct x86_irop ops[IR_MAX_OPS];
	uint8_t flags_read, flags_write;
	uint8_t mask_k, mask_zero; /* EVEX {kN}, {z} */
	uint8_t bcast;		   /* 1: EVEX embedded broadcast; 2: vbroadcast* source */
	uint8_t elem_size;	   /* bytes of one vector element (masking, broadcast) */
	uint8_t rep, lock, addr32, opsize;
	/* Semantics added by the fix table / rules */
	uint8_t special; /* enum x86_special */
	uint8_t event_flags;
	uint8_t zero_idiom;
	uint8_t no_fixes;	   /* second opinion: raw decoder + design rules only */
	uint8_t xsave_kind;	   /* 0 xsave/xrstor, 1 compacted (xsavec), 2 fxsave/fxrstor */
	uint8_t shift_mask;	   /* SP_SHIFT_CL: count mask */
	uint8_t gather_index_q;	   /* SP_GATHER: 64-bit indices */
	uint8_t compress;	   /* vpcompress/vpexpand: selected elements are contiguous */
	uint8_t bit_reg, bit_size; /* SP_BITOFFSET: GPR + 1 holding the offset, operand bytes */
};

void x86_ir_add_reg(struct x86_ir *ir, struct x86_ireg r, int access, int implicit);
void x86_ir_add_gpr(struct x86_ir *ir, int num, int size, int access);
int x86_ir_has_reg(const struct x86_ir *ir, struct x86_ireg r, int access);
void x86_ir_drop_mem(struct x86_ir *ir);

/* Dynamic handlers: what x86_resolve must look at beyond the templates. */
enum x86_special {
	SP_NONE,
	SP_SHIFT_CL, /* flags written only if (CL & count mask) != 0 */
	SP_STRING,   /* REP with RCX == 0 touches no memory */
	SP_X87,	     /* ST(i) resolved through TOP */
	SP_MASKED,   /* AVX-512 masked memory: selected elements only */
	SP_GATHER,   /* VSIB: addresses from the index vector, mask-selected */
	SP_XSAVE,    /* xsave family: components from EDX:EAX & XCR0 */
	SP_XRSTOR,
	SP_BITOFFSET, /* bt/bts/btr/btc m, r: the register's offset moves the address */
	SP_UNKNOWN,   /* reads and writes everything */
};

struct x86_memt {
	int8_t base, index;			/* GPR numbers, -1 none, -2 RIP (base only) */
	uint8_t scale, seg, access, vsib_index; /* vsib_index: vector number + 1 */
	uint8_t addr32;
	uint8_t index_low8;  /* xlat: the index is AL */
	uint8_t bcast_elems; /* embedded broadcast: elements of the vector, else 0 */
	uint32_t size;
	int64_t disp;
};

#define SEM_MAX_MEM 3

struct x86_sem {
	uint8_t n_src, n_dst, n_mem;
	uint8_t special;
	uint8_t event_flags;
	uint8_t needs_xstate;
	uint8_t shift_mask; /* SP_SHIFT_CL */
	uint8_t flags_dyn;  /* SP_SHIFT_CL: flag units to drop when count is 0 */
	uint8_t mask_k;	    /* masking register (0: none) */
	uint8_t elem_size;
	uint8_t xsave_kind;	   /* SP_XSAVE/SP_XRSTOR: 0 standard, 1 compacted, 2 fxsave */
	uint8_t compress;	   /* SP_MASKED: popcount(k) contiguous elements */
	uint8_t bit_reg, bit_size; /* SP_BITOFFSET */
	/* x87: ST(i) as offsets from TOP before execution (-1: the pushed slot) */
	uint8_t n_st_src, n_st_dst;
	int8_t st_src[8], st_dst[8];
	/* SP_GATHER */
	uint8_t gather_mask_vec, gather_index_q, gather_count;
	struct x86_memt mem[SEM_MAX_MEM];
	uint8_t units[]; /* n_src sources, then n_dst destinations */
};

/* Room x86_sem_build needs, and the bytes a built sem really uses (the
 * decoder keeps one per static instruction: it must stay small). */
#define X86_SEM_MAX_SIZE (sizeof(struct x86_sem) + 2 * UNIT_COUNT)
#define X86_SEM_SIZE(s) (sizeof(struct x86_sem) + (s)->n_src + (s)->n_dst)

void x86_sem_build(const struct x86_ir *ir, struct x86_sem *sem);
void x86_classify(const struct x86_ir *ir, uint8_t *klass, uint8_t *control);

/* The fix table: corrections and implicit effects by mnemonic. */
void x86_fix_apply(struct x86_ir *ir);
/* For the tests: how often entry i fired since the start of the process. */
size_t x86_fix_count(void);
unsigned long x86_fix_hits(size_t i, const char **mnemonic, int *capstone_only);

/* Decoders into the IR. Return 0, or -1 if that decoder cannot decode. */
struct x86_decoders;
int x86_ir_capstone(void *cs_handle, uint64_t addr, const uint8_t *bytes, size_t avail,
		    struct x86_ir *ir, uint8_t *len, char *text, size_t text_size);
int x86_ir_zydis(const void *zydis_decoder, const void *zydis_formatter, uint64_t addr,
		 const uint8_t *bytes, size_t avail, struct x86_ir *ir, uint8_t *len, char *text,
		 size_t text_size);

/* XSAVE layout (CPUID leaf 0xD in perpi's own process: same CPU). */
struct x86_xsave_layout {
	uint64_t xcr0;
	uint32_t offset[32], size[32], align64[32];
};
const struct x86_xsave_layout *x86_xsave_layout(void);
/* Units and bytes of an xsave-family instruction whose area is at base. */
int x86_resolve_xsave(const struct x86_sem *s, const struct user_regs_struct *r, uint64_t base,
		      uint64_t xcr0, struct perpi_event *ev);

/* The second opinion (tests): decode with Zydis only, no fix table. */
int x86_decode_zydis_raw(struct x86_decoder *dec, uint64_t addr, const uint8_t *bytes, size_t avail,
			 struct perpi_insn *out);

#endif
