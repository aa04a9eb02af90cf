/* An instruction's operands as its text shows them: the mnemonic, each
 * visible operand's kind and size, a memory operand's addressing shape,
 * an immediate's encoded size and the prefixes that change what runs.
 * Filled from whichever decoder the tracer's x86 layer uses for the bytes
 * (Capstone, Zydis where Capstone cannot: x86.h), normalised so that both
 * give the same description; the instruction forms of palmed/form.h are
 * derived from it, so no other folder needs a decoder of its own. */
#ifndef PERPI_X86_OPERANDS_H
#define PERPI_X86_OPERANDS_H

#include <stddef.h>
#include <stdint.h>

#include "tracer/event.h"

enum x86_operand_type {
	X86_OPND_REG = 1,
	X86_OPND_MEM,  /* memory accessed */
	X86_OPND_AGEN, /* an address computed, no memory accessed (lea) */
	X86_OPND_IMM,
};

enum x86_operand_reg {
	X86_REG_GPR = 1, /* number: encoding order (rax 0 ... r15 15), high: ah ch dh bh */
	X86_REG_XMM,
	X86_REG_YMM,
	X86_REG_ZMM,
	X86_REG_K,
	X86_REG_MM,
	X86_REG_ST,
	X86_REG_SEG,
	X86_REG_OTHER, /* control, debug, bound, tile registers... */
};

#define X86_BASE_RIP 16 /* base of a RIP-relative address */
#define X86_NO_REG (-1)

struct x86_operand {
	uint8_t type;	  /* enum x86_operand_type */
	uint8_t implicit; /* shown, but not encoded (the CL and 1 of shifts) */
	uint16_t size;	  /* bytes: register width, memory accessed (0: no size), immediate */
	/* X86_OPND_REG */
	uint8_t reg;  /* enum x86_operand_reg */
	uint8_t num;  /* register number within its kind */
	uint8_t high; /* ah, ch, dh, bh */
	/* X86_OPND_MEM, X86_OPND_AGEN */
	int8_t base, index; /* GPR numbers, X86_NO_REG, X86_BASE_RIP; index >= 32: vector (VSIB) */
	uint8_t scale;	    /* 1 2 4 8 */
	uint8_t disp_size;  /* bytes of the encoded displacement: 0, 1, 4 (8: moffs) */
	int64_t disp;
	uint8_t bcast; /* an EVEX embedded broadcast {1toN}: N (size: one element); 0 none */
	/* X86_OPND_IMM */
	uint8_t imm_size; /* bytes encoded: 1 2 4 8; 0: implicit (shift by 1) */
	int64_t imm;
};

#define X86_MAX_OPERANDS 6

struct x86_operands {
	char mnemonic[24]; /* lower case, no prefix words: "add", "stosb", "vaddpd" */
	uint8_t decoder;   /* enum perpi_decoder */
	uint8_t length;
	uint8_t encoding; /* 0 legacy, 1 VEX, 2 EVEX, 3 XOP */
	uint8_t lock;	  /* LOCK prefix */
	uint8_t rep;	  /* string instructions: 1 rep/repe, 2 repne; 0 otherwise */
	uint8_t mask_k;	  /* EVEX write mask k1-k7 (not an operand), 0 none */
	uint8_t n;	  /* visible operands, in Intel order, write mask left out */
	struct x86_operand op[X86_MAX_OPERANDS];
};

enum { X86_ENC_LEGACY, X86_ENC_VEX, X86_ENC_EVEX, X86_ENC_XOP };

/* Describe the instruction at bytes[0..avail), decoded as the tracer's x86
 * layer decodes it (x86_decode). Returns 0, or -1 with perpi_error() set
 * when no decoder knows the bytes. */
int x86_operands_decode(const uint8_t *bytes, size_t avail, struct x86_operands *out);

/* The same, with a given decoder (DECODER_CAPSTONE or DECODER_ZYDIS): the
 * one a trace recorded in insn->decoder, or the other, for tests. */
int x86_operands_decode_with(int decoder, const uint8_t *bytes, size_t avail,
			     struct x86_operands *out);

/* A static instruction of a run (live or replayed). */
int x86_operands_of_insn(const struct perpi_insn *insn, struct x86_operands *out);

/* Every mnemonic the decoders know (Capstone's list, then Zydis's, which
 * has those Capstone 4 lacks: vptestmb...; lower case, e.g. "vaddpd",
 * "rep stosb"; a name may come twice): *out and each string are the
 * caller's to free. */
size_t x86_operands_mnemonics(char ***out);

/* Whether a memory operand's address is RIP-relative, has a base, an index... */
static inline int x86_operand_is_memory(const struct x86_operand *o)
{
	return o->type == X86_OPND_MEM || o->type == X86_OPND_AGEN;
}

#endif
