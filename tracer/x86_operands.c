/* An instruction's visible operands from Capstone or Zydis: see
 * x86_operands.h. The two decoders disagree on a few conventions, settled
 * here the way the Intel SDM's instruction tables write the form:
 * - string instructions (stosb, movsq...) have no operands (Capstone 4
 *   prints the implicit [rdi] and al);
 * - the EVEX write mask is not an operand (Capstone lists it second);
 * - the CL count and the 1 of shifts are operands (Zydis hides them);
 * - rep/repe/repne count only on string instructions, lock always. */
#include "tracer/x86_operands.h"

#include <capstone/capstone.h>
#include <Zydis/Zydis.h>
#include <ctype.h>
#include <stdio.h>
#include <string.h>

#include "common/util.h"
#include "tracer/x86_sem.h"

/* One Capstone handle, as the tracer's decoder opens it. */
static csh capstone(void)
{
	static csh cs;
	static int opened;
	if (!opened) {
		opened = cs_open(CS_ARCH_X86, CS_MODE_64, &cs) == CS_ERR_OK ? 1 : -1;
		if (opened > 0) {
			cs_option(cs, CS_OPT_DETAIL, CS_OPT_ON);
			cs_option(cs, CS_OPT_SYNTAX, CS_OPT_SYNTAX_INTEL);
		}
	}
	return opened > 0 ? cs : 0;
}

/* String instructions by opcode (movsd and cmpsd are also SSE mnemonics):
 * ins/outs 6c-6f, movs/cmps a4-a7, stos/lods/scas aa-af. */
static int is_string_op(const uint8_t *b, size_t len)
{
	size_t i = 0;
	while (i < len && (b[i] == 0x66 || b[i] == 0x67 || b[i] == 0xf0 || b[i] == 0xf2 ||
			   b[i] == 0xf3 || b[i] == 0x2e || b[i] == 0x36 || b[i] == 0x3e ||
			   b[i] == 0x26 || b[i] == 0x64 || b[i] == 0x65 || (b[i] & 0xf0) == 0x40))
		i++;
	return i < len && ((b[i] >= 0x6c && b[i] <= 0x6f) || (b[i] >= 0xa4 && b[i] <= 0xa7) ||
			   (b[i] >= 0xaa && b[i] <= 0xaf));
}

/* The encoding, from the bytes: legacy, VEX (c4/c5), EVEX (62), XOP (8f). */
static uint8_t encoding_of(const uint8_t *b, size_t len)
{
	size_t i = 0;
	while (i < len && (b[i] == 0x66 || b[i] == 0x67 || b[i] == 0xf0 || b[i] == 0xf2 ||
			   b[i] == 0xf3 || b[i] == 0x2e || b[i] == 0x36 || b[i] == 0x3e ||
			   b[i] == 0x26 || b[i] == 0x64 || b[i] == 0x65 || (b[i] & 0xf0) == 0x40))
		i++;
	if (i >= len)
		return X86_ENC_LEGACY;
	if (b[i] == 0xc4 || b[i] == 0xc5)
		return X86_ENC_VEX;
	if (b[i] == 0x62)
		return X86_ENC_EVEX;
	if (b[i] == 0x8f && i + 1 < len && (b[i + 1] & 0x1f) >= 8)
		return X86_ENC_XOP;
	return X86_ENC_LEGACY;
}

/* Where the EVEX prefix (62 P0 P1 P2) starts, past legacy prefixes; -1
 * if there is none with an opcode and ModRM after it. */
static long evex_at(const uint8_t *b, size_t len)
{
	size_t i = 0;
	while (i < len && (b[i] == 0x66 || b[i] == 0x67 || b[i] == 0xf2 || b[i] == 0xf3 ||
			   b[i] == 0x64 || b[i] == 0x65))
		i++;
	return i + 5 < len && b[i] == 0x62 ? (long)i : -1;
}

/* The EVEX write mask register (aaa of the prefix's third byte), or 0. */
static uint8_t evex_mask(const uint8_t *b, size_t len)
{
	long i = evex_at(b, len);
	return i >= 0 ? b[i + 3] & 7 : 0;
}

/* An EVEX embedded broadcast {1toN} of a memory operand of elem bytes: N,
 * from the prefix (EVEX.b with a memory ModRM; L'L the vector's length),
 * or 0. From the bytes: Capstone 5 leaves avx_bcast unset. */
static uint8_t evex_broadcast(const uint8_t *b, size_t len, unsigned elem)
{
	long i = evex_at(b, len);
	if (i < 0 || !(b[i + 3] & 0x10) || (b[i + 5] >> 6) == 3 ||
	    (elem != 2 && elem != 4 && elem != 8))
		return 0;
	unsigned bytes = 16u << ((b[i + 3] >> 5) & 3);
	return bytes <= 64 ? (uint8_t)(bytes / elem) : 0;
}

/* A register by name, as either decoder prints it. */
static void set_register(struct x86_operand *o, const char *name, unsigned size)
{
	struct x86_ireg r = x86_reg_parse(name);
	o->type = X86_OPND_REG;
	o->size = (uint16_t)size;
	o->num = r.num;
	o->high = r.high;
	switch (r.cls) {
	case RC_GPR:
		o->reg = X86_REG_GPR;
		o->size = r.size;
		break;
	case RC_VEC:
		o->reg = r.size == 16 ? X86_REG_XMM : r.size == 32 ? X86_REG_YMM : X86_REG_ZMM;
		o->size = r.size;
		break;
	case RC_K:
		o->reg = X86_REG_K;
		break;
	case RC_MM:
		o->reg = X86_REG_MM;
		break;
	case RC_ST:
		o->reg = X86_REG_ST;
		break;
	case RC_SEG:
	case RC_FS:
	case RC_GS:
		o->reg = X86_REG_SEG;
		break;
	default:
		o->reg = X86_REG_OTHER;
		break;
	}
}

static int8_t address_register(const char *name)
{
	if (!name || !*name)
		return X86_NO_REG;
	struct x86_ireg r = x86_reg_parse(name);
	if (r.cls == RC_RIP)
		return X86_BASE_RIP;
	if (r.cls == RC_GPR)
		return (int8_t)r.num;
	if (r.cls == RC_VEC)
		return (int8_t)(32 + r.num);
	return X86_NO_REG;
}

/* Mnemonic words before the instruction itself ("rep stosb", "lock add"). */
static void split_prefixes(const char *m, struct x86_operands *out)
{
	static const char *const words[] = {"rep",    "repe",	  "repz",    "repne",
					    "repnz",  "lock",	  "notrack", "bnd",
					    "data16", "xacquire", "xrelease"};
	for (;;) {
		const char *sp = strchr(m, ' ');
		size_t l = sp ? (size_t)(sp - m) : 0, i;
		for (i = 0; sp && i < ARRAY_SIZE(words); i++)
			if (strlen(words[i]) == l && !strncmp(m, words[i], l))
				break;
		if (!sp || i == ARRAY_SIZE(words))
			break;
		if (!strncmp(m, "lock", 4))
			out->lock = 1;
		else if (!strncmp(m, "repn", 4))
			out->rep = 2;
		else if (!strncmp(m, "rep", 3))
			out->rep = 1;
		m = sp + 1;
	}
	size_t i = 0;
	for (; m[i] && i + 1 < sizeof(out->mnemonic); i++)
		out->mnemonic[i] = (char)tolower((unsigned char)m[i]);
	out->mnemonic[i] = '\0';
}

/* ---- Capstone ---- */

/* Memory sizes Capstone 4 gets wrong (the SDM's operand column). */
static const struct {
	const char *mnemonic;
	uint16_t size;
} cs_memory_sizes[] = {
    {"comiss", 4}, {"vcomiss", 4}, {"comisd", 8}, {"vcomisd", 8}, {"fnstsw", 2},
};

/* x87 arithmetic on two stack registers: Capstone sometimes shows only the
 * one that is not st(0) ("fmulp st(1)"); Zydis always both. */
static void cs_x87_both(struct x86_operands *out)
{
	static const char *const two[] = {"fadd",  "fsub",  "fsubr",  "fmul", "fdiv",
					  "fdivr", "fcomi", "fucomi", "fcmov"};
	int n_st = 0;
	for (unsigned i = 0; i < out->n; i++)
		n_st += out->op[i].type == X86_OPND_REG && out->op[i].reg == X86_REG_ST;
	if (n_st != 1 || out->n != 1 || out->n >= X86_MAX_OPERANDS)
		return;
	for (size_t i = 0; i < ARRAY_SIZE(two); i++)
		if (!strncmp(out->mnemonic, two[i], strlen(two[i]))) {
			out->op[1] = out->op[0];
			out->op[1].num = 0;
			out->n = 2;
			return;
		}
}

static void cs_operand(csh cs, const cs_x86 *x, const cs_x86_op *op, struct x86_operand *o,
		       int agen)
{
	memset(o, 0, sizeof(*o));
	switch (op->type) {
	case X86_OP_REG:
		set_register(o, cs_reg_name(cs, op->reg), op->size);
		break;
	case X86_OP_IMM:
		o->type = X86_OPND_IMM;
		o->size = op->size;
		o->imm = op->imm;
		o->imm_size = x->encoding.imm_size;
		o->implicit = o->imm_size == 0;
		break;
	case X86_OP_MEM:
		o->type = agen ? X86_OPND_AGEN : X86_OPND_MEM;
		o->size = agen ? 0 : op->size;
		o->base = address_register(op->mem.base ? cs_reg_name(cs, op->mem.base) : NULL);
		o->index = address_register(op->mem.index ? cs_reg_name(cs, op->mem.index) : NULL);
		o->scale = op->mem.index ? (uint8_t)op->mem.scale : 1;
		o->disp = op->mem.disp;
		o->disp_size = x->encoding.disp_size;
		break;
	default:
		break;
	}
}

static int from_capstone(const uint8_t *bytes, size_t avail, struct x86_operands *out)
{
	csh cs = capstone();
	if (!cs)
		return -1;
	cs_insn *insn = cs_malloc(cs);
	const uint8_t *code = bytes;
	size_t size = avail;
	uint64_t addr = 0;
	if (!cs_disasm_iter(cs, &code, &size, &addr, insn)) {
		cs_free(insn, 1);
		return -1;
	}
	const cs_x86 *x = &insn->detail->x86;
	out->decoder = DECODER_CAPSTONE;
	out->length = (uint8_t)insn->size;
	out->encoding = encoding_of(bytes, insn->size);
	split_prefixes(insn->mnemonic, out);
	if (x->prefix[0] == X86_PREFIX_LOCK)
		out->lock = 1;
	int string = is_string_op(bytes, insn->size);
	if (string && !out->rep &&
	    (x->prefix[0] == X86_PREFIX_REP || x->prefix[0] == X86_PREFIX_REPNE))
		out->rep = x->prefix[0] == X86_PREFIX_REPNE ? 2 : 1;
	int agen = !strcmp(out->mnemonic, "lea");
	for (unsigned i = 0; i < x->op_count && !string && out->n < X86_MAX_OPERANDS; i++) {
		struct x86_operand *o = &out->op[out->n];
		cs_operand(cs, x, &x->operands[i], o, agen);
		/* the EVEX write mask, listed second: not an operand */
		if (o->type == X86_OPND_REG && o->reg == X86_REG_K && i == 1 &&
		    o->num == evex_mask(bytes, insn->size) && o->num) {
			out->mask_k = o->num;
			continue;
		}
		out->n++;
	}
	if (!string)
		out->rep = 0; /* "repz ret", "rep bsf": no repetition */
	for (size_t i = 0; i < ARRAY_SIZE(cs_memory_sizes); i++)
		for (unsigned j = 0; j < out->n; j++)
			if (out->op[j].type == X86_OPND_MEM &&
			    !strcmp(out->mnemonic, cs_memory_sizes[i].mnemonic))
				out->op[j].size = cs_memory_sizes[i].size;
	for (unsigned j = 0; j < out->n; j++)
		if (out->op[j].type == X86_OPND_MEM)
			out->op[j].bcast = evex_broadcast(bytes, insn->size, out->op[j].size);
	cs_x87_both(out);
	/* VEX and EVEX immediates are one byte (Capstone 4 says 4 for rorx) */
	for (unsigned j = 0; j < out->n && out->encoding != X86_ENC_LEGACY; j++)
		if (out->op[j].type == X86_OPND_IMM && out->op[j].imm_size)
			out->op[j].imm_size = 1;
	int imm_shown = 0;
	for (unsigned i = 0; i < out->n; i++)
		imm_shown |= out->op[i].type == X86_OPND_IMM;
	int imm_encoded = x->encoding.imm_size != 0; /* x is in insn: read before the free */
	cs_free(insn, 1);
	/* an immediate encoded but not shown: a pseudo-op ("vpcmpeqd k0, ymm1,
	 * ymm2" for vpcmpd ..., 0); Zydis names the instruction itself */
	return imm_encoded && !imm_shown && !string ? -2 : 0;
}

/* ---- Zydis ---- */

static void zy_operand(const ZydisDecodedInstruction *zi, const ZydisDecodedOperand *op,
		       struct x86_operand *o)
{
	memset(o, 0, sizeof(*o));
	o->implicit = op->visibility != ZYDIS_OPERAND_VISIBILITY_EXPLICIT;
	switch (op->type) {
	case ZYDIS_OPERAND_TYPE_REGISTER: {
		char name[16];
		const char *s = ZydisRegisterGetString(op->reg.value);
		size_t i = 0;
		for (; s && s[i] && i + 1 < sizeof(name); i++)
			name[i] = (char)tolower((unsigned char)s[i]);
		name[i] = '\0';
		set_register(o, name, op->size / 8);
		break;
	}
	case ZYDIS_OPERAND_TYPE_IMMEDIATE:
		o->type = X86_OPND_IMM;
		o->size = (uint16_t)(op->size / 8);
		o->imm = op->imm.value.s;
		o->imm_size = o->implicit ? 0 : (uint8_t)(zi->raw.imm[0].size / 8);
		break;
	case ZYDIS_OPERAND_TYPE_MEMORY: {
		int agen = op->mem.type == ZYDIS_MEMOP_TYPE_AGEN;
		char b[16] = "", x[16] = "";
		const char *s;
		o->type = agen ? X86_OPND_AGEN : X86_OPND_MEM;
		o->size = agen ? 0 : (uint16_t)(op->size / 8);
		for (size_t i = 0; (s = ZydisRegisterGetString(op->mem.base)) && s[i] && i < 15;
		     i++)
			b[i] = (char)tolower((unsigned char)s[i]);
		for (size_t i = 0; (s = ZydisRegisterGetString(op->mem.index)) && s[i] && i < 15;
		     i++)
			x[i] = (char)tolower((unsigned char)s[i]);
		o->base = op->mem.base == ZYDIS_REGISTER_NONE ? X86_NO_REG : address_register(b);
		o->index = op->mem.index == ZYDIS_REGISTER_NONE ? X86_NO_REG : address_register(x);
		o->scale = o->index == X86_NO_REG ? 1 : op->mem.scale;
		o->disp = op->mem.disp.has_displacement ? op->mem.disp.value : 0;
		o->disp_size = (uint8_t)(zi->raw.disp.size / 8);
		/* {1to2} ... {1to64} (the size is the element's, as Capstone's) */
		if (!agen && !zi->avx.broadcast.is_static &&
		    zi->avx.broadcast.mode >= ZYDIS_BROADCAST_MODE_1_TO_2 &&
		    zi->avx.broadcast.mode <= ZYDIS_BROADCAST_MODE_1_TO_64)
			o->bcast = (uint8_t)(1u << (zi->avx.broadcast.mode -
						    ZYDIS_BROADCAST_MODE_1_TO_2 + 1));
		break;
	}
	default:
		break;
	}
}

/* Zydis' names for the condition codes and for 64-bit immediates and
 * absolute addresses, changed to Capstone's (and the SDM's first names). */
static void zydis_names(struct x86_operands *out)
{
	static const char *const cc[][2] = {{"nb", "ae"}, {"nbe", "a"}, {"nl", "ge"},
					    {"nle", "g"}, {"nz", "ne"}, {"z", "e"}};
	static const char *const stems[] = {"j", "set", "cmov"};
	char *m = out->mnemonic;
	for (size_t s = 0; s < ARRAY_SIZE(stems); s++) {
		size_t l = strlen(stems[s]);
		if (strncmp(m, stems[s], l))
			continue;
		for (size_t i = 0; i < ARRAY_SIZE(cc); i++)
			if (!strcmp(m + l, cc[i][0])) {
				snprintf(m + l, sizeof(out->mnemonic) - l, "%s", cc[i][1]);
				return;
			}
	}
	if (!strcmp(m, "fwait"))
		snprintf(m, sizeof(out->mnemonic), "wait");
	if (!strcmp(m, "mov"))
		for (unsigned i = 0; i < out->n; i++)
			if ((out->op[i].type == X86_OPND_IMM && out->op[i].imm_size == 8) ||
			    (out->op[i].type == X86_OPND_MEM && out->op[i].disp_size == 8))
				snprintf(m, sizeof(out->mnemonic), "movabs");
}

static int from_zydis(const uint8_t *bytes, size_t avail, struct x86_operands *out)
{
	ZydisDecoder zd;
	ZydisDecodedInstruction zi;
	ZydisDecodedOperand ops[ZYDIS_MAX_OPERAND_COUNT];
	ZydisDecoderInit(&zd, ZYDIS_MACHINE_MODE_LONG_64, ZYDIS_STACK_WIDTH_64);
	if (!ZYAN_SUCCESS(ZydisDecoderDecodeFull(&zd, bytes, avail, &zi, ops)))
		return -1;
	const char *m = ZydisMnemonicGetString(zi.mnemonic);
	out->decoder = DECODER_ZYDIS;
	out->length = zi.length;
	out->encoding = encoding_of(bytes, zi.length);
	split_prefixes(m ? m : "?", out);
	out->rep = 0;
	out->lock = (zi.attributes & ZYDIS_ATTRIB_HAS_LOCK) != 0;
	if (is_string_op(bytes, zi.length)) {
		if (zi.attributes & ZYDIS_ATTRIB_HAS_REPNE)
			out->rep = 2;
		else if (zi.attributes & (ZYDIS_ATTRIB_HAS_REP | ZYDIS_ATTRIB_HAS_REPE))
			out->rep = 1;
		return 0;
	}
	for (unsigned i = 0; i < zi.operand_count_visible && out->n < X86_MAX_OPERANDS; i++) {
		const ZydisDecodedOperand *op = &ops[i];
		if (op->type == ZYDIS_OPERAND_TYPE_REGISTER &&
		    op->encoding == ZYDIS_OPERAND_ENCODING_MASK &&
		    ZydisRegisterGetClass(op->reg.value) == ZYDIS_REGCLASS_MASK && i > 0) {
			out->mask_k = (uint8_t)(op->reg.value - ZYDIS_REGISTER_K0);
			continue;
		}
		/* nop's ModRM register field: Capstone shows only the memory */
		if (op->type == ZYDIS_OPERAND_TYPE_REGISTER && !strcmp(out->mnemonic, "nop") &&
		    out->n > 0)
			continue;
		zy_operand(&zi, op, &out->op[out->n++]);
	}
	zydis_names(out);
	return 0;
}

int x86_operands_decode_with(int decoder, const uint8_t *bytes, size_t avail,
			     struct x86_operands *out)
{
	memset(out, 0, sizeof(*out));
	int rc = decoder == DECODER_CAPSTONE ? from_capstone(bytes, avail, out) : -2;
	if (rc == -2) {
		memset(out, 0, sizeof(*out));
		rc = from_zydis(bytes, avail, out);
	}
	if (rc < 0)
		return perpi_set_error("x86 operands: %s cannot decode %02x %02x %02x...",
				       decoder == DECODER_CAPSTONE ? "Capstone" : "Zydis", bytes[0],
				       avail > 1 ? bytes[1] : 0, avail > 2 ? bytes[2] : 0);
	return 0;
}

int x86_operands_decode(const uint8_t *bytes, size_t avail, struct x86_operands *out)
{
	if (!avail)
		return perpi_set_error("x86 operands: no bytes");
	/* the tracer's choice: Capstone unless it fails or is known to misdecode */
	csh cs = capstone();
	struct x86_ir ir;
	uint8_t len;
	char text[96];
	int decoder = DECODER_ZYDIS;
	if (cs && x86_ir_capstone(&cs, 0, bytes, avail, &ir, &len, text, sizeof(text)) == 0)
		decoder = DECODER_CAPSTONE;
	if (x86_operands_decode_with(decoder, bytes, avail, out) == 0)
		return 0;
	return perpi_set_error("x86 operands: neither Capstone nor Zydis decodes %02x %02x %02x...",
			       bytes[0], avail > 1 ? bytes[1] : 0, avail > 2 ? bytes[2] : 0);
}

int x86_operands_of_insn(const struct perpi_insn *insn, struct x86_operands *out)
{
	if (insn->decoder == DECODER_CAPSTONE || insn->decoder == DECODER_ZYDIS)
		if (x86_operands_decode_with(insn->decoder, insn->bytes, insn->len, out) == 0)
			return 0;
	return x86_operands_decode(insn->bytes, insn->len, out);
}

size_t x86_operands_mnemonics(char ***out)
{
	csh cs = capstone();
	size_t n = 0;
	*out = xcalloc(X86_INS_ENDING + ZYDIS_MNEMONIC_MAX_VALUE + 2, sizeof(char *));
	for (unsigned id = 1; cs && id < X86_INS_ENDING; id++) {
		const char *name = cs_insn_name(cs, id);
		if (name && *name)
			(*out)[n++] = xstrdup(name);
	}
	for (int id = 1; id <= ZYDIS_MNEMONIC_MAX_VALUE; id++) {
		const char *name = ZydisMnemonicGetString((ZydisMnemonic)id);
		if (name && *name)
			(*out)[n++] = xstrdup(name);
	}
	return n;
}
