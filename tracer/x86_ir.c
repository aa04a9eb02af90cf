/* Capstone and Zydis into one neutral operand list (x86_sem.h). The
 * decoders' own access information goes in unchanged, apart from three
 * things DESIGN.md rules on for every decoder alike: the x87 status and
 * control words and MXCSR are not ordinary operands (TOP is resolved, and
 * arithmetic does not depend on the control registers), C1 is not a
 * condition code, and RFLAGS as a register says nothing per flag. */
#include <capstone/capstone.h>
#include <Zydis/Zydis.h>
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/util.h"
#include "tracer/x86_sem.h"

static const char *const gpr64[16] = {"rax", "rcx", "rdx", "rbx", "rsp", "rbp", "rsi", "rdi",
				      "r8",  "r9",  "r10", "r11", "r12", "r13", "r14", "r15"};
static const char *const gpr32[8] = {"eax", "ecx", "edx", "ebx", "esp", "ebp", "esi", "edi"};
static const char *const gpr16[8] = {"ax", "cx", "dx", "bx", "sp", "bp", "si", "di"};
static const char *const gpr8[8] = {"al", "cl", "dl", "bl", "spl", "bpl", "sil", "dil"};
static const char *const gpr8h[4] = {"ah", "ch", "dh", "bh"};

static struct x86_ireg mkreg(int cls, int num, int size, int high)
{
	struct x86_ireg r = {(uint8_t)cls, (uint8_t)num, (uint8_t)size, (uint8_t)high};
	return r;
}

static int find_name(const char *const *names, int n, const char *s)
{
	for (int i = 0; i < n; i++)
		if (strcmp(names[i], s) == 0)
			return i;
	return -1;
}

static struct x86_ireg parse_numbered(const char *s)
{
	char *end;
	if (s[0] == 'r' && isdigit((unsigned char)s[1])) {
		long n = strtol(s + 1, &end, 10);
		int size = !*end	       ? 8
			   : !strcmp(end, "d") ? 4
			   : !strcmp(end, "w") ? 2
			   : !strcmp(end, "b") ? 1
					       : 0;
		if (n >= 8 && n <= 15 && size)
			return mkreg(RC_GPR, (int)n, size, 0);
	}
	static const struct {
		const char *prefix;
		int cls, size;
	} vec[] = {
	    {"xmm", RC_VEC, 16}, {"ymm", RC_VEC, 32}, {"zmm", RC_VEC, 64}, {"k", RC_K, 8},
	    {"st(", RC_ST, 10},	 {"st", RC_ST, 10},   {"mm", RC_MM, 8},
	};
	for (size_t i = 0; i < ARRAY_SIZE(vec); i++) {
		size_t l = strlen(vec[i].prefix);
		if (strncmp(s, vec[i].prefix, l) || !isdigit((unsigned char)s[l]))
			continue;
		long n = strtol(s + l, &end, 10);
		if ((*end && strcmp(end, ")")) || n > 31)
			break;
		return mkreg(vec[i].cls, (int)n, vec[i].size, 0);
	}
	return mkreg(RC_OTHER, 0, 0, 0);
}

struct x86_ireg x86_reg_parse(const char *s)
{
	int i;
	if (!s || !*s)
		return mkreg(RC_NONE, 0, 0, 0);
	if ((i = find_name(gpr64, 8, s)) >= 0)
		return mkreg(RC_GPR, i, 8, 0);
	if ((i = find_name(gpr32, 8, s)) >= 0)
		return mkreg(RC_GPR, i, 4, 0);
	if ((i = find_name(gpr16, 8, s)) >= 0)
		return mkreg(RC_GPR, i, 2, 0);
	if ((i = find_name(gpr8, 8, s)) >= 0)
		return mkreg(RC_GPR, i, 1, 0);
	if ((i = find_name(gpr8h, 4, s)) >= 0)
		return mkreg(RC_GPR, i, 1, 1);
	if (!strcmp(s, "rip") || !strcmp(s, "eip"))
		return mkreg(RC_RIP, 0, 8, 0);
	if (!strcmp(s, "rflags") || !strcmp(s, "eflags") || !strcmp(s, "flags"))
		return mkreg(RC_FLAGS, 0, 8, 0);
	if (!strcmp(s, "mxcsr"))
		return mkreg(RC_MXCSR, 0, 4, 0);
	if (!strcmp(s, "fpsw") || !strcmp(s, "x87status"))
		return mkreg(RC_FPSW, 0, 2, 0);
	if (!strcmp(s, "x87control") || !strcmp(s, "fpcw"))
		return mkreg(RC_FPCW, 0, 2, 0);
	if (!strcmp(s, "fs"))
		return mkreg(RC_FS, 0, 2, 0);
	if (!strcmp(s, "gs"))
		return mkreg(RC_GS, 0, 2, 0);
	if (!strcmp(s, "cs") || !strcmp(s, "ds") || !strcmp(s, "es") || !strcmp(s, "ss"))
		return mkreg(RC_SEG, 0, 2, 0);
	return parse_numbered(s);
}

/* Registers that are not operands by DESIGN.md (see the file comment). */
static int reg_ignored(struct x86_ireg r)
{
	return r.cls == RC_NONE || r.cls == RC_OTHER || r.cls == RC_RIP || r.cls == RC_FLAGS ||
	       r.cls == RC_SEG || r.cls == RC_FS || r.cls == RC_GS || r.cls == RC_MXCSR ||
	       r.cls == RC_FPSW || r.cls == RC_FPCW;
}

void x86_ir_add_reg(struct x86_ir *ir, struct x86_ireg r, int access, int implicit)
{
	if (ir->nops >= IR_MAX_OPS)
		return;
	struct x86_irop *op = &ir->ops[ir->nops++];
	memset(op, 0, sizeof(*op));
	op->type = OP_REG;
	op->reg = r;
	op->access = (uint8_t)access;
	op->implicit = (uint8_t)implicit;
	op->size = r.size;
	op->st_offset = (int8_t)r.num;
}

void x86_ir_add_gpr(struct x86_ir *ir, int num, int size, int access)
{
	x86_ir_add_reg(ir, mkreg(RC_GPR, num, size, 0), access, 1);
}

int x86_ir_has_reg(const struct x86_ir *ir, struct x86_ireg r, int access)
{
	for (int i = 0; i < ir->nops; i++) {
		const struct x86_irop *op = &ir->ops[i];
		if (op->type == OP_REG && op->reg.cls == r.cls && op->reg.num == r.num &&
		    (op->access & access) == access)
			return 1;
	}
	return 0;
}

void x86_ir_drop_mem(struct x86_ir *ir)
{
	int n = 0;
	for (int i = 0; i < ir->nops; i++)
		if (ir->ops[i].type != OP_MEM)
			ir->ops[n++] = ir->ops[i];
	ir->nops = (uint8_t)n;
}

/* Encoding, EVEX mask/zeroing/broadcast, read from the bytes themselves. */
static void ir_scan_prefixes(struct x86_ir *ir, const uint8_t *b, size_t len)
{
	size_t i = 0;
	int rex_w = 0;
	while (i < len) {
		uint8_t c = b[i];
		if (c == 0x66)
			ir->opsize = 2;
		else if (c == 0x67)
			ir->addr32 = 1;
		else if (c == 0xf0)
			ir->lock = 1;
		else if (!(c == 0xf2 || c == 0xf3 || c == 0x2e || c == 0x36 || c == 0x3e ||
			   c == 0x26 || c == 0x64 || c == 0x65 || (c >= 0x40 && c <= 0x4f)))
			break;
		rex_w = c >= 0x48 && c <= 0x4f; /* REX.W (the last prefix) wins over 0x66 */
		i++;
	}
	if (rex_w)
		ir->opsize = 8;
	if (i >= len)
		return;
	if (b[i] == 0xc4 || b[i] == 0xc5)
		ir->enc = ENC_VEX;
	else if (b[i] == 0x8f && i + 1 < len && (b[i + 1] & 0x1f) >= 8)
		ir->enc = ENC_XOP;
	else if (b[i] == 0x62 && i + 3 < len) {
		ir->enc = ENC_EVEX;
		ir->mask_k = b[i + 3] & 7;
		ir->mask_zero = b[i + 3] >> 7;
	}
}

static void strip_prefix_words(const char *m, char *out, size_t size, struct x86_ir *ir)
{
	static const char *const words[] = {"rep",	"repe",	    "repne",   "repz",
					    "repnz",	"lock",	    "notrack", "bnd",
					    "xacquire", "xrelease", "data16"};
	for (;;) {
		const char *sp = strchr(m, ' ');
		if (!sp)
			break;
		size_t l = (size_t)(sp - m);
		int known = 0;
		for (size_t i = 0; i < ARRAY_SIZE(words); i++)
			if (strlen(words[i]) == l && !strncmp(m, words[i], l)) {
				known = 1;
				if (!strncmp(m, "rep", 3))
					ir->rep = 1;
			}
		if (!known)
			break;
		m = sp + 1;
	}
	snprintf(out, size, "%s", m);
}

/* ---- Capstone ---- */

static uint8_t cs_flags_read(uint64_t f)
{
	uint8_t r = 0;
	if (f & X86_EFLAGS_TEST_CF)
		r |= FL(UNIT_CF);
	if (f & X86_EFLAGS_TEST_PF)
		r |= FL(UNIT_PF);
	if (f & X86_EFLAGS_TEST_AF)
		r |= FL(UNIT_AF);
	if (f & X86_EFLAGS_TEST_ZF)
		r |= FL(UNIT_ZF);
	if (f & X86_EFLAGS_TEST_SF)
		r |= FL(UNIT_SF);
	if (f & X86_EFLAGS_TEST_OF)
		r |= FL(UNIT_OF);
	if (f & X86_EFLAGS_TEST_DF)
		r |= FL(UNIT_DF);
	return r;
}

static uint8_t cs_flags_written(uint64_t f)
{
	static const struct {
		uint64_t bits;
		int unit;
	} map[] = {
	    {X86_EFLAGS_MODIFY_CF | X86_EFLAGS_RESET_CF | X86_EFLAGS_SET_CF |
		 X86_EFLAGS_UNDEFINED_CF,
	     UNIT_CF},
	    {X86_EFLAGS_MODIFY_PF | X86_EFLAGS_RESET_PF | X86_EFLAGS_SET_PF |
		 X86_EFLAGS_UNDEFINED_PF,
	     UNIT_PF},
	    {X86_EFLAGS_MODIFY_AF | X86_EFLAGS_RESET_AF | X86_EFLAGS_SET_AF |
		 X86_EFLAGS_UNDEFINED_AF,
	     UNIT_AF},
	    {X86_EFLAGS_MODIFY_ZF | X86_EFLAGS_RESET_ZF | X86_EFLAGS_SET_ZF |
		 X86_EFLAGS_UNDEFINED_ZF,
	     UNIT_ZF},
	    {X86_EFLAGS_MODIFY_SF | X86_EFLAGS_RESET_SF | X86_EFLAGS_SET_SF |
		 X86_EFLAGS_UNDEFINED_SF,
	     UNIT_SF},
	    {X86_EFLAGS_MODIFY_OF | X86_EFLAGS_RESET_OF | X86_EFLAGS_SET_OF |
		 X86_EFLAGS_UNDEFINED_OF,
	     UNIT_OF},
	    {X86_EFLAGS_MODIFY_DF | X86_EFLAGS_RESET_DF | X86_EFLAGS_SET_DF, UNIT_DF},
	};
	uint8_t w = 0;
	for (size_t i = 0; i < ARRAY_SIZE(map); i++)
		if (f & map[i].bits)
			w |= (uint8_t)FL(map[i].unit);
	return w;
}

static struct x86_ireg cs_reg(csh h, unsigned reg)
{
	return reg ? x86_reg_parse(cs_reg_name(h, reg)) : mkreg(RC_NONE, 0, 0, 0);
}

static void cs_add_mem(struct x86_ir *ir, csh h, const cs_x86_op *o)
{
	if (ir->nops >= IR_MAX_OPS)
		return;
	struct x86_irop *op = &ir->ops[ir->nops++];
	memset(op, 0, sizeof(*op));
	op->type = OP_MEM;
	op->access = o->access & (AC_R | AC_W);
	op->size = o->size;
	op->base = cs_reg(h, o->mem.base);
	op->index = cs_reg(h, o->mem.index);
	op->scale = (uint8_t)o->mem.scale;
	op->disp = o->mem.disp;
	struct x86_ireg seg = cs_reg(h, o->mem.segment);
	op->seg = (seg.cls == RC_FS || seg.cls == RC_GS) ? seg.cls : 0;
	if (o->avx_bcast)
		ir->bcast = 1;
}

static void cs_fill_ops(struct x86_ir *ir, csh h, const cs_insn *in)
{
	const cs_x86 *x = &in->detail->x86;
	for (int i = 0; i < x->op_count; i++) {
		const cs_x86_op *o = &x->operands[i];
		if (o->type == X86_OP_REG) {
			struct x86_ireg r = cs_reg(h, o->reg);
			/* The EVEX write mask shows up as an operand; the rules add it. */
			if (r.cls == RC_K && ir->enc == ENC_EVEX && ir->mask_k &&
			    r.num == ir->mask_k && i == 1)
				continue;
			if (!reg_ignored(r))
				x86_ir_add_reg(ir, r, o->access & (AC_R | AC_W), 0);
		} else if (o->type == X86_OP_MEM) {
			cs_add_mem(ir, h, o);
		} else if (o->type == X86_OP_IMM && ir->nops < IR_MAX_OPS) {
			struct x86_irop *op = &ir->ops[ir->nops++];
			memset(op, 0, sizeof(*op));
			op->type = OP_IMM;
			op->imm = o->imm;
			op->size = o->size;
		}
	}
	for (int i = 0; i < in->detail->regs_read_count; i++) {
		struct x86_ireg r = cs_reg(h, in->detail->regs_read[i]);
		if (!reg_ignored(r))
			x86_ir_add_reg(ir, r, AC_R, 1);
	}
	for (int i = 0; i < in->detail->regs_write_count; i++) {
		struct x86_ireg r = cs_reg(h, in->detail->regs_write[i]);
		if (!reg_ignored(r))
			x86_ir_add_reg(ir, r, AC_W, 1);
	}
}

/* What Capstone decodes wrongly, in version 4 or 5, goes to Zydis, so that
 * the semantics do not depend on Capstone's version (docs/X86.md):
 * - EVEX instructions and those with mask-register operands: Capstone 4
 *   cannot decode many (kmovd, vpcmpb k0, ...) and misreads some memory
 *   operands ("[rsi + xmm0 - 0x20]", scatters' VSIB index as a GPR);
 *   Capstone 5 reports wrong operand access for many (vbroadcasti32x8 reads
 *   its destination, masked loads lose theirs, vptestm* reads the mask it
 *   writes, kaddd and ktest* have none);
 * - the fences with a mandatory prefix and their neighbours: Capstone 4
 *   reads tpause (66 0f ae /6), umonitor (f3 0f ae /6), umwait (f2 0f ae
 *   /6), incsspd/q (f3 0f ae /5) as lfence/mfence and rdpid (f3 0f c7 /7)
 *   as rdseed; Capstone 5 names them but misses their implicit operands
 *   (tpause's EDX:EAX, incsspq's register), as it does for rdpkru/wrpkru
 *   and rdssp*. */
static int cs_misdecoded(const struct x86_ir *ir, const uint8_t *b, size_t len)
{
	static const char *const unreliable[] = {"tpause",  "umonitor", "umwait", "incsspd",
						 "incsspq", "rdsspd",	"rdsspq", "rdpkru",
						 "wrpkru",  "rdpid"};
	int vsib = strstr(ir->mnemonic, "gather") || strstr(ir->mnemonic, "scatter");
	if (ir->enc == ENC_EVEX)
		return 1;
	for (int i = 0; i < ir->nops; i++)
		if ((ir->ops[i].type == OP_REG && ir->ops[i].reg.cls == RC_K) ||
		    (ir->ops[i].type == OP_MEM && (ir->ops[i].index.cls == RC_VEC) != vsib))
			return 1;
	for (size_t i = 0; i < ARRAY_SIZE(unreliable); i++)
		if (!strcmp(ir->mnemonic, unreliable[i]))
			return 1;
	int f3 = 0, any = 0; /* the legacy prefixes before the opcode (and REX) */
	for (size_t i = 0; i < len && (b[i] == 0x66 || b[i] == 0xf2 || b[i] == 0xf3 ||
				       (b[i] >= 0x40 && b[i] <= 0x4f));
	     i++) {
		f3 |= b[i] == 0xf3;
		any |= b[i] == 0x66 || b[i] == 0xf2 || b[i] == 0xf3;
	}
	if (any && (!strcmp(ir->mnemonic, "lfence") || !strcmp(ir->mnemonic, "mfence") ||
		    !strcmp(ir->mnemonic, "sfence")))
		return 1;
	return f3 && (!strcmp(ir->mnemonic, "rdseed") || !strcmp(ir->mnemonic, "rdrand"));
}

/* Capstone 5's spellings where Capstone 4's (and the fix table's) differ. */
static void cs_normalize_mnemonic(char *m, size_t size)
{
	static const char *const alias[][2] = {{"fcompi", "fcomip"}, {"fucompi", "fucomip"}};
	for (size_t i = 0; i < ARRAY_SIZE(alias); i++)
		if (!strcmp(m, alias[i][0]))
			snprintf(m, size, "%s", alias[i][1]);
}

int x86_ir_capstone(void *cs_handle, uint64_t addr, const uint8_t *bytes, size_t avail,
		    struct x86_ir *ir, uint8_t *len, char *text, size_t text_size)
{
	csh h = *(csh *)cs_handle;
	cs_insn *in = cs_malloc(h);
	const uint8_t *code = bytes;
	size_t size = avail;
	uint64_t a = addr;
	if (!cs_disasm_iter(h, &code, &size, &a, in)) {
		cs_free(in, 1);
		return -1;
	}
	memset(ir, 0, sizeof(*ir));
	ir->decoder = DECODER_CAPSTONE;
	ir_scan_prefixes(ir, bytes, in->size);
	strip_prefix_words(in->mnemonic, ir->mnemonic, sizeof(ir->mnemonic), ir);
	cs_normalize_mnemonic(ir->mnemonic, sizeof(ir->mnemonic));
	if (ir->rep == 0 && (in->detail->x86.prefix[0] == X86_PREFIX_REP ||
			     in->detail->x86.prefix[0] == X86_PREFIX_REPNE))
		ir->rep = 2; /* prefix present, meaning depends on the mnemonic */
	cs_fill_ops(ir, h, in);
	if (cs_misdecoded(ir, bytes, in->size)) {
		cs_free(in, 1);
		return -1;
	}
	/* eflags shares a union with fpu_flags: x87 instructions have none
	 * (fcomi's go through the fix table). */
	int fpu = cs_insn_group(h, in, X86_GRP_FPU) || ir->mnemonic[0] == 'f';
	uint64_t f = in->detail->x86.eflags;
	if (!fpu) {
		ir->flags_read = cs_flags_read(f);
		ir->flags_write = cs_flags_written(f);
	}
	*len = (uint8_t)in->size;
	if (in->op_str[0])
		snprintf(text, text_size, "%s %s", in->mnemonic, in->op_str);
	else
		snprintf(text, text_size, "%s", in->mnemonic);
	cs_free(in, 1);
	return 0;
}

/* ---- Zydis ---- */

static uint8_t zy_flags(ZydisAccessedFlagsMask m)
{
	uint8_t r = 0;
	if (m & ZYDIS_CPUFLAG_CF)
		r |= FL(UNIT_CF);
	if (m & ZYDIS_CPUFLAG_PF)
		r |= FL(UNIT_PF);
	if (m & ZYDIS_CPUFLAG_AF)
		r |= FL(UNIT_AF);
	if (m & ZYDIS_CPUFLAG_ZF)
		r |= FL(UNIT_ZF);
	if (m & ZYDIS_CPUFLAG_SF)
		r |= FL(UNIT_SF);
	if (m & ZYDIS_CPUFLAG_OF)
		r |= FL(UNIT_OF);
	if (m & ZYDIS_CPUFLAG_DF)
		r |= FL(UNIT_DF);
	return r;
}

static struct x86_ireg zy_reg(ZydisRegister r)
{
	return r == ZYDIS_REGISTER_NONE ? mkreg(RC_NONE, 0, 0, 0)
					: x86_reg_parse(ZydisRegisterGetString(r));
}

static int zy_access(ZydisOperandActions a)
{
	return ((a & (ZYDIS_OPERAND_ACTION_READ | ZYDIS_OPERAND_ACTION_CONDREAD)) ? AC_R : 0) |
	       ((a & (ZYDIS_OPERAND_ACTION_WRITE | ZYDIS_OPERAND_ACTION_CONDWRITE)) ? AC_W : 0);
}

static void zy_add_op(struct x86_ir *ir, const ZydisDecodedInstruction *zi,
		      const ZydisDecodedOperand *o)
{
	int implicit = o->visibility != ZYDIS_OPERAND_VISIBILITY_EXPLICIT;
	if (o->type == ZYDIS_OPERAND_TYPE_REGISTER) {
		struct x86_ireg r = zy_reg(o->reg.value);
		if (r.cls == RC_K && ir->enc == ENC_EVEX && zi->avx.mask.reg == o->reg.value &&
		    o->id == 1 && o->actions == ZYDIS_OPERAND_ACTION_READ)
			return; /* the write mask (k0: none): the rules add it */
		if (!reg_ignored(r))
			x86_ir_add_reg(ir, r, zy_access(o->actions), implicit);
		return;
	}
	if (ir->nops >= IR_MAX_OPS)
		return;
	struct x86_irop *op = &ir->ops[ir->nops];
	memset(op, 0, sizeof(*op));
	op->implicit = (uint8_t)implicit;
	op->size = (uint16_t)(o->size / 8);
	if (o->type == ZYDIS_OPERAND_TYPE_MEMORY) {
		op->type =
		    (o->mem.type == ZYDIS_MEMOP_TYPE_AGEN || o->mem.type == ZYDIS_MEMOP_TYPE_MIB)
			? OP_AGEN
			: OP_MEM;
		op->access = (uint8_t)zy_access(o->actions);
		op->base = zy_reg(o->mem.base);
		op->index = zy_reg(o->mem.index);
		op->scale = o->mem.scale ? o->mem.scale : 1;
		op->disp = o->mem.disp.value;
		struct x86_ireg seg = zy_reg(o->mem.segment);
		op->seg = (seg.cls == RC_FS || seg.cls == RC_GS) ? seg.cls : 0;
		/* Zydis gives push/call's slot at the old RSP; the bytes written
		 * are below it. */
		if (implicit && op->base.cls == RC_GPR && op->base.num == 4 && op->access == AC_W &&
		    op->disp == 0)
			op->disp = -(int64_t)op->size;
	} else if (o->type == ZYDIS_OPERAND_TYPE_IMMEDIATE) {
		op->type = OP_IMM;
		op->imm = (int64_t)o->imm.value.s;
	} else {
		return; /* far pointers */
	}
	ir->nops++;
}

int x86_ir_zydis(const void *zydis_decoder, const void *zydis_formatter, uint64_t addr,
		 const uint8_t *bytes, size_t avail, struct x86_ir *ir, uint8_t *len, char *text,
		 size_t text_size)
{
	ZydisDecodedInstruction zi;
	ZydisDecodedOperand zo[ZYDIS_MAX_OPERAND_COUNT];
	ZyanStatus st = ZydisDecoderDecodeFull(zydis_decoder, bytes, avail, &zi, zo);
	if (!ZYAN_SUCCESS(st))
		return st == ZYDIS_STATUS_NO_MORE_DATA ? -2 : -1;
	memset(ir, 0, sizeof(*ir));
	ir->decoder = DECODER_ZYDIS;
	ir_scan_prefixes(ir, bytes, zi.length);
	snprintf(ir->mnemonic, sizeof(ir->mnemonic), "%s", ZydisMnemonicGetString(zi.mnemonic));
	if (zi.attributes & (ZYDIS_ATTRIB_HAS_REP | ZYDIS_ATTRIB_HAS_REPE | ZYDIS_ATTRIB_HAS_REPNE))
		ir->rep = 1;
	if (zi.avx.mask.mode == ZYDIS_MASK_MODE_DISABLED)
		ir->mask_k = 0;
	if (zi.avx.broadcast.mode != ZYDIS_BROADCAST_MODE_INVALID && !zi.avx.broadcast.is_static)
		ir->bcast = 1;
	/* The element a mask bit selects: the memory operand's, when there is one
	 * (vcvtps2pd zmm{k}, [m]: 4-byte elements in memory), else the vector's. */
	for (int pass = 0; pass < 2 && !ir->elem_size; pass++)
		for (int i = 0; i < zi.operand_count && !ir->elem_size; i++)
			if (zo[i].element_size &&
			    zo[i].visibility == ZYDIS_OPERAND_VISIBILITY_EXPLICIT &&
			    (pass ? zo[i].type == ZYDIS_OPERAND_TYPE_REGISTER && zo[i].size >= 128
				  : zo[i].type == ZYDIS_OPERAND_TYPE_MEMORY))
				ir->elem_size = (uint8_t)(zo[i].element_size / 8);
	for (int i = 0; i < zi.operand_count; i++)
		zy_add_op(ir, &zi, &zo[i]);
	if (zi.cpu_flags) {
		ir->flags_read = zy_flags(zi.cpu_flags->tested);
		ir->flags_write = zy_flags(zi.cpu_flags->modified | zi.cpu_flags->set_0 |
					   zi.cpu_flags->set_1 | zi.cpu_flags->undefined);
	}
	*len = zi.length;
	if (!ZYAN_SUCCESS(ZydisFormatterFormatInstruction(
		zydis_formatter, &zi, zo, zi.operand_count_visible, text, text_size, addr, NULL)))
		snprintf(text, text_size, "%s", ir->mnemonic);
	return 0;
}
