/* Instruction forms: an instruction named with the kinds and sizes of its
 * explicit operands, e.g. ADD_GPR64_IMM8, ADDSD_XMM_M64, MOV_M64_GPR64,
 * VFMADD231PD_YMM_YMM_YMM. The mnemonic is upper case; prefixes that
 * Capstone folds into the mnemonic are joined with '.' (REP.STOSB). */
#ifndef PERPI_FORM_H
#define PERPI_FORM_H

#include <stddef.h>

#include <capstone/capstone.h>

enum form_kind {
	FORM_GPR8,
	FORM_GPR16,
	FORM_GPR32,
	FORM_GPR64,
	FORM_IMM8,
	FORM_IMM16,
	FORM_IMM32,
	FORM_IMM64,
	FORM_ONE, /* the implicit constant 1 of shift-by-one encodings */
	FORM_CL,  /* the fixed CL count of shifts and rotates */
	FORM_M8,
	FORM_M16,
	FORM_M32,
	FORM_M64,
	FORM_M80,
	FORM_M128,
	FORM_M256,
	FORM_M512,
	FORM_MEM, /* memory of no particular size (LEA-like address operands) */
	FORM_XMM,
	FORM_YMM,
	FORM_ZMM,
	FORM_K,
	FORM_MM,
	FORM_ST,
	FORM_SEG,
	FORM_REG, /* MMX, x87, segment, any other register */
	FORM_KIND_COUNT
};

#define FORM_MAX_OPERANDS 5
#define FORM_NAME_MAX 96

struct form {
	char mnemonic[32]; /* upper case, e.g. "VFMADD231PD" */
	unsigned n;	   /* explicit operands */
	enum form_kind op[FORM_MAX_OPERANDS];
};

/* Parse "ADD_GPR64_IMM8". Returns 0, or -1 with perpi_error() set. */
int form_parse(const char *name, struct form *out);

/* Write the canonical name into buf (FORM_NAME_MAX bytes suffice). */
void form_print(const struct form *f, char *buf, size_t size);

/* The form of a decoded instruction; insn must carry detail (CS_OPT_DETAIL
 * on). Every instruction maps to a form (unusual operands become REG/MEM).
 * Returns 0, or -1 with perpi_error() set if detail is missing. */
int form_from_insn(const cs_insn *insn, struct form *out);

/* The same from Zydis' decoding, for what Capstone 4 cannot decode (many
 * EVEX forms): insn and its operands from ZydisDecoderDecodeFull. */
struct ZydisDecodedInstruction_;
struct ZydisDecodedOperand_;
int form_from_zydis(const struct ZydisDecodedInstruction_ *insn,
		    const struct ZydisDecodedOperand_ *ops, struct form *out);

const char *form_kind_name(enum form_kind k);
/* Bytes a memory kind accesses, or a register/immediate kind's width; 0
 * for MEM and kinds of no fixed size. */
unsigned form_kind_bytes(enum form_kind k);
int form_kind_is_memory(enum form_kind k);
int form_kind_is_immediate(enum form_kind k);

/* Why the form cannot be benchmarked as a Pipedream kernel (control flow,
 * integer division, system, serialising, stack, string or locked
 * instructions, x87/MMX/segment operands), or NULL if it can. */
const char *form_unsupported_reason(const struct form *f);

#endif
