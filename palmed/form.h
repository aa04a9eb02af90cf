/* Instruction forms: an instruction named with the kinds and sizes of its
 * explicit operands, e.g. ADD_GPR64_IMM8, ADDSD_XMM_M64, MOV_M64_GPR64,
 * VFMADD231PD_YMM_YMM_YMM. The mnemonic is upper case; the LOCK prefix and
 * the repetition of string instructions are joined with '.' (LOCK.ADD,
 * REP.STOSB, REPNE.SCASB). */
#ifndef PERPI_FORM_H
#define PERPI_FORM_H

#include <stddef.h>
#include <stdint.h>

struct perpi_insn;
struct x86_operands;

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
	FORM_MEM, /* an address only (LEA), base + displacement; memory of no size */
	/* LEA's other address shapes (lea reads no memory; the shapes cost
	 * differently: docs/MODEL.md, "Forms split by how the CPU runs them") */
	FORM_MEMBI,  /* base + index */
	FORM_MEMBIS, /* base + index * scale (2, 4, 8) */
	FORM_MEMIS,  /* index * scale + displacement, no base */
	FORM_MEMBID, /* base + index * scale + displacement: three components */
	FORM_MEMRIP, /* RIP + displacement */
	FORM_XMM,
	FORM_YMM,
	FORM_ZMM,
	FORM_K,
	FORM_MM,
	FORM_ST,
	FORM_SEG,
	FORM_REG,  /* MMX, x87, segment, any other register */
	FORM_SAME, /* the same register as the operand before it (xor eax, eax) */
	/* M8..M512 addressed with an index register ([b + i*s + d], [i*s + d]):
	 * on a Zen 3 `cmp byte ptr [b + i*8 + d], r` beside adds and moves runs
	 * 24% slower than with [b + d] (docs/MODEL.md, "Forms split by how the
	 * CPU runs them"). Named M8X..M512X; a model without them predicts such
	 * an instruction with its unindexed form (model_form_lookup). */
	FORM_M8X,
	FORM_M16X,
	FORM_M32X,
	FORM_M64X,
	FORM_M80X,
	FORM_M128X,
	FORM_M256X,
	FORM_M512X,
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

/* A string instruction (movs, stos, lods, scas, cmps of a width, no
 * operands), REP-prefixed or not. */
int form_is_string(const struct form *f);
/* The bytes one iteration of a string instruction moves (1, 2, 4, 8), or
 * 0 for a form that is none. */
unsigned form_string_bytes(const struct form *f);

/* Write the canonical name into buf (FORM_NAME_MAX bytes suffice). */
void form_print(const struct form *f, char *buf, size_t size);

/* The form of an instruction described by the tracer's x86 layer
 * (tracer/x86_operands.h). Every instruction maps to a form (unusual
 * operands become REG/MEM). Returns 0. */
int form_from_operands(const struct x86_operands *d, struct form *out);
/* The same from machine code (decoded as the tracer decodes it); *insn_len,
 * if not NULL, gets the instruction's length. -1 with perpi_error() set if
 * no decoder knows the bytes. */
int form_from_bytes(const uint8_t *bytes, size_t len, struct form *out, unsigned *insn_len);
/* The same for a static instruction of a run, with the decoder it used. */
int form_of_insn(const struct perpi_insn *insn, struct form *out);

const char *form_kind_name(enum form_kind k);
/* Bytes a memory kind accesses, or a register/immediate kind's width; 0
 * for MEM and kinds of no fixed size. */
unsigned form_kind_bytes(enum form_kind k);
int form_kind_is_memory(enum form_kind k);  /* M8..M512(X), and the address kinds */
int form_kind_is_access(enum form_kind k);  /* M8..M512 and M8X..M512X: memory accessed */
int form_kind_is_indexed(enum form_kind k); /* M8X..M512X */
int form_kind_is_vector(enum form_kind k);  /* XMM, YMM, ZMM */
/* M8X -> M8 ... (other kinds as they are), and M8 -> M8X ... */
enum form_kind form_kind_unindexed(enum form_kind k);
enum form_kind form_kind_indexed(enum form_kind k);
/* f with its indexed memory operands unindexed, into out; returns whether
 * any was (out is f's copy either way). */
int form_unindexed(const struct form *f, struct form *out);
/* The same the other way: f's memory operands indexed (its indexed twin);
 * returns whether f has any to index. */
int form_indexed(const struct form *f, struct form *out);
/* The indexed twin's name ("CMP_M8_GPR8" -> "CMP_M8X_GPR8") into buf
 * (FORM_NAME_MAX bytes); 0 if the name is no form or has no memory
 * operand to index. */
int form_name_indexed(const char *name, char *buf, size_t size);
/* The same on a name ("CMP_M8X_GPR8" -> "CMP_M8_GPR8"), into buf
 * (FORM_NAME_MAX bytes); 0 if the name is no form or has none. */
int form_name_unindexed(const char *name, char *buf, size_t size);
/* The legacy SSE form a VEX-128 form with a separate first source would be
 * ("VPMULLW_XMM_XMM_XMM" -> "PMULLW_XMM_XMM", "VADDSD_XMM_XMM_M64" ->
 * "ADDSD_XMM_M64": the destination is the first source there), into buf
 * (FORM_NAME_MAX bytes); 0 for a name of another shape. Whether that form
 * exists (VPSHUFD_XMM_XMM_IMM8 has no such source: "PSHUFD_XMM_IMM8" is
 * none) is the caller's to check. */
int form_name_legacy(const char *name, char *buf, size_t size);
/* The register forms of a form with one accessed memory operand: that
 * operand a register of its width (M128 -> XMM, M256 -> YMM, M512 -> ZMM;
 * M8-M64 the general-purpose register of the width, or XMM first in a
 * form with vector operands: ADDSD_XMM_M64 -> ADDSD_XMM_XMM; M8 and M16
 * also GPR32: PINSRB_XMM_GPR32_IMM8), most likely first, into out (two
 * names of FORM_NAME_MAX bytes); returns how many (0 for a name that is no
 * form or has not exactly one accessed memory operand). Which of them
 * exists is the caller's to check. */
size_t form_name_registers(const char *name, char out[2][FORM_NAME_MAX]);
/* Whether the form stores to memory: a push, or a first (destination)
 * operand in memory but for the forms that only read it (cmp, test, bt,
 * prefetches, nop, cache-line flushes). REP and LOCK forms are left out
 * (0): their stores are timed as a whole. */
int form_stores(const struct form *f);
/* A non-temporal store (MOVNTI, MOVNTDQ, VMOVNTPS...: past the caches,
 * through write-combining buffers). */
int form_stores_nontemporal(const struct form *f);
/* How a storing form's store meets the stores beside it in a kernel: the
 * generator (gen_kernel.c) packs plain stores one after another in their
 * arena, gives each read-modify-write a line of its own, and pushes write
 * down the stack. */
enum form_store_kind {
	FORM_STORE_NONE,
	FORM_STORE_PLAIN, /* writes its destination only (mov, setcc, pextrd...) */
	FORM_STORE_RMW,	  /* reads and writes it (add [m], r; shl [m], 1...) */
	FORM_STORE_STACK, /* a push */
};
enum form_store_kind form_store_kind(const struct form *f);
/* Whether a kernel of these forms (names; one that is no form counts as
 * no store) has stores that go to other cache lines in turn: a
 * read-modify-write beside any other kind of store, or a push beside a
 * plain store. A store to another line than the store before takes a
 * commit cycle of its own; two to one line share one (on a Zen 4
 * `MOV_M64_GPR64 PUSH_GPR64` 2.0 cycles, each alone 0.5; `ADD_M64_IMM8
 * MOV_M64_GPR64` 2.0, the add alone 1.0; `MOVUPS_M128_XMM MOV_M32_IMM32^2`
 * 1.5, where `ADD_M64_GPR64^2 MOVUPS_M128_XMM VMOVDQU64_M256_YMM` 4.0): what
 * such a kernel costs depends on the order of its stores, which no usage
 * of a form holds. */
int form_stores_in_turn(const char *const *names, size_t n);
/* The same over a set of store kinds: bit k for form_store_kind k. */
int form_store_kinds_in_turn(unsigned kinds);
int form_kind_is_address(enum form_kind k); /* MEM, MEMBI...: computed, not accessed */
int form_kind_is_immediate(enum form_kind k);

/* Why the form cannot be benchmarked as a Pipedream kernel (control flow,
 * integer division, system, serialising, stack, string or locked
 * instructions, x87/MMX/segment operands), or NULL if it can. */
const char *form_unsupported_reason(const struct form *f);

/* How a form is encoded, as kernels may mix forms: FORM_ENC_VEX for a VEX
 * or EVEX form with vector registers, FORM_ENC_SSE_ALONE for a legacy SSE
 * form that has no VEX encoding in the instruction set (SHA, SSE4a's
 * extrq, insertq, movntsd and movntss; one with an MMX operand beside its
 * XMM one), for which the generator has no VEX twin (gen.h); 0 for the
 * others (and a name that does not parse). A kernel holding both kinds is
 * refused (transitions). */
enum { FORM_ENC_VEX = 1, FORM_ENC_SSE_ALONE = 2 };
int form_encoding(const char *name);

#endif
