#include "palmed/form.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>

#include "common/util.h"
#include "tracer/event.h"
#include "tracer/x86_operands.h"

static const char *const kind_names[FORM_KIND_COUNT] = {
    [FORM_GPR8] = "GPR8",     [FORM_GPR16] = "GPR16", [FORM_GPR32] = "GPR32",
    [FORM_GPR64] = "GPR64",   [FORM_IMM8] = "IMM8",   [FORM_IMM16] = "IMM16",
    [FORM_IMM32] = "IMM32",   [FORM_IMM64] = "IMM64", [FORM_ONE] = "ONE",
    [FORM_CL] = "CL",	      [FORM_M8] = "M8",	      [FORM_M16] = "M16",
    [FORM_M32] = "M32",	      [FORM_M64] = "M64",     [FORM_M80] = "M80",
    [FORM_M128] = "M128",     [FORM_M256] = "M256",   [FORM_M512] = "M512",
    [FORM_MEM] = "MEM",	      [FORM_XMM] = "XMM",     [FORM_YMM] = "YMM",
    [FORM_ZMM] = "ZMM",	      [FORM_K] = "K",	      [FORM_MM] = "MM",
    [FORM_ST] = "ST",	      [FORM_SEG] = "SEG",     [FORM_REG] = "REG",
    [FORM_SAME] = "SAME",     [FORM_MEMBI] = "MEMBI", [FORM_MEMBIS] = "MEMBIS",
    [FORM_MEMBID] = "MEMBID", [FORM_MEMIS] = "MEMIS", [FORM_MEMRIP] = "MEMRIP",
    [FORM_M8X] = "M8X",	      [FORM_M16X] = "M16X",   [FORM_M32X] = "M32X",
    [FORM_M64X] = "M64X",     [FORM_M80X] = "M80X",   [FORM_M128X] = "M128X",
    [FORM_M256X] = "M256X",   [FORM_M512X] = "M512X",
};

static const unsigned kind_bytes[FORM_KIND_COUNT] = {
    [FORM_GPR8] = 1,  [FORM_GPR16] = 2, [FORM_GPR32] = 4, [FORM_GPR64] = 8, [FORM_IMM8] = 1,
    [FORM_IMM16] = 2, [FORM_IMM32] = 4, [FORM_IMM64] = 8, [FORM_CL] = 1,    [FORM_M8] = 1,
    [FORM_M16] = 2,   [FORM_M32] = 4,	[FORM_M64] = 8,	  [FORM_M80] = 10,  [FORM_M128] = 16,
    [FORM_M256] = 32, [FORM_M512] = 64, [FORM_XMM] = 16,  [FORM_YMM] = 32,  [FORM_ZMM] = 64,
    [FORM_K] = 8,     [FORM_MM] = 8,	[FORM_ST] = 10,	  [FORM_M8X] = 1,   [FORM_M16X] = 2,
    [FORM_M32X] = 4,  [FORM_M64X] = 8,	[FORM_M80X] = 10, [FORM_M128X] = 16, [FORM_M256X] = 32,
    [FORM_M512X] = 64,
};

const char *form_kind_name(enum form_kind k)
{
	return k < FORM_KIND_COUNT ? kind_names[k] : "?";
}

unsigned form_kind_bytes(enum form_kind k)
{
	return k < FORM_KIND_COUNT ? kind_bytes[k] : 0;
}

int form_kind_is_memory(enum form_kind k)
{
	return form_kind_is_access(k) || form_kind_is_address(k);
}

int form_kind_is_access(enum form_kind k)
{
	return (k >= FORM_M8 && k <= FORM_M512) || form_kind_is_indexed(k);
}

int form_kind_is_vector(enum form_kind k)
{
	return k == FORM_XMM || k == FORM_YMM || k == FORM_ZMM;
}

int form_encoding(const char *name)
{
	static const char *const alone[] = {"EXTRQ", "INSERTQ", "MOVNTSD", "MOVNTSS"};
	struct form f;
	int xmm = 0, mm = 0;
	if (form_parse(name, &f) < 0)
		return 0;
	for (unsigned i = 0; i < f.n; i++) {
		xmm |= form_kind_is_vector(f.op[i]);
		mm |= f.op[i] == FORM_MM;
	}
	if (!xmm)
		return 0;
	if (f.mnemonic[0] == 'V')
		return FORM_ENC_VEX;
	int no_vex = mm || !strncmp(f.mnemonic, "SHA", 3);
	for (size_t i = 0; i < ARRAY_SIZE(alone); i++)
		no_vex |= !strcmp(f.mnemonic, alone[i]);
	return no_vex ? FORM_ENC_SSE_ALONE : 0;
}

int form_kind_is_indexed(enum form_kind k)
{
	return k >= FORM_M8X && k <= FORM_M512X;
}

enum form_kind form_kind_unindexed(enum form_kind k)
{
	return form_kind_is_indexed(k) ? (enum form_kind)(FORM_M8 + (k - FORM_M8X)) : k;
}

enum form_kind form_kind_indexed(enum form_kind k)
{
	return k >= FORM_M8 && k <= FORM_M512 ? (enum form_kind)(FORM_M8X + (k - FORM_M8)) : k;
}

int form_unindexed(const struct form *f, struct form *out)
{
	int any = 0;
	*out = *f;
	for (unsigned i = 0; i < f->n; i++) {
		any |= form_kind_is_indexed(f->op[i]);
		out->op[i] = form_kind_unindexed(f->op[i]);
	}
	return any;
}

int form_indexed(const struct form *f, struct form *out)
{
	int any = 0;
	*out = *f;
	for (unsigned i = 0; i < f->n; i++) {
		out->op[i] = form_kind_indexed(f->op[i]);
		any |= out->op[i] != f->op[i];
	}
	return any;
}

int form_name_indexed(const char *name, char *buf, size_t size)
{
	struct form f, x;
	if (form_parse(name, &f) < 0 || !form_indexed(&f, &x))
		return 0;
	form_print(&x, buf, size);
	return 1;
}

int form_name_unindexed(const char *name, char *buf, size_t size)
{
	struct form f, u;
	if (!strstr(name, "X") || form_parse(name, &f) < 0 || !form_unindexed(&f, &u))
		return 0;
	form_print(&u, buf, size);
	return 1;
}

int form_name_legacy(const char *name, char *buf, size_t size)
{
	struct form f;
	if (name[0] != 'V' || form_parse(name, &f) < 0 || f.n < 3 || f.op[0] != FORM_XMM ||
	    f.op[1] != FORM_XMM)
		return 0;
	memmove(f.mnemonic, f.mnemonic + 1, strlen(f.mnemonic));
	memmove(&f.op[1], &f.op[2], (f.n - 2) * sizeof(f.op[0]));
	f.n--;
	form_print(&f, buf, size);
	return 1;
}

size_t form_name_registers(const char *name, char out[2][FORM_NAME_MAX])
{
	struct form f;
	unsigned at = FORM_MAX_OPERANDS, accesses = 0;
	int vec = 0;
	if (form_parse(name, &f) < 0)
		return 0;
	for (unsigned i = 0; i < f.n; i++) {
		if (form_kind_is_access(f.op[i]))
			at = i, accesses++;
		vec |= form_kind_is_vector(f.op[i]);
	}
	if (accesses != 1)
		return 0;
	enum form_kind c[2] = {FORM_KIND_COUNT, FORM_KIND_COUNT};
	switch (f.op[at]) {
	case FORM_M8:
	case FORM_M8X:
		c[0] = FORM_GPR8, c[1] = FORM_GPR32;
		break;
	case FORM_M16:
	case FORM_M16X:
		c[0] = FORM_GPR16, c[1] = FORM_GPR32;
		break;
	case FORM_M32:
	case FORM_M32X:
		c[vec] = FORM_GPR32, c[!vec] = FORM_XMM;
		break;
	case FORM_M64:
	case FORM_M64X:
		c[vec] = FORM_GPR64, c[!vec] = FORM_XMM;
		break;
	case FORM_M128:
	case FORM_M128X:
		c[0] = FORM_XMM;
		break;
	case FORM_M256:
	case FORM_M256X:
		c[0] = FORM_YMM;
		break;
	case FORM_M512:
	case FORM_M512X:
		c[0] = FORM_ZMM;
		break;
	default:
		return 0;
	}
	size_t n = 0;
	for (; n < 2 && c[n] != FORM_KIND_COUNT; n++) {
		f.op[at] = c[n];
		form_print(&f, out[n], FORM_NAME_MAX);
	}
	return n;
}

int form_stores(const struct form *f)
{
	static const char *const reads[] = {"CMP",	   "TEST",	  "BT",	   "NOP",
					    "PREFETCHT0",  "PREFETCHT1",  "PREFETCHT2", "PREFETCHNTA",
					    "PREFETCHW",   "PREFETCHWT1", "CLFLUSH",	   "CLFLUSHOPT",
					    "CLWB",	   "CLDEMOTE"};
	if (strchr(f->mnemonic, '.'))
		return 0;
	if (!strcmp(f->mnemonic, "PUSH"))
		return 1;
	if (f->n == 0 || !form_kind_is_access(f->op[0]))
		return 0;
	for (size_t i = 0; i < sizeof(reads) / sizeof(reads[0]); i++)
		if (!strcmp(f->mnemonic, reads[i]))
			return 0;
	return 1;
}

int form_stores_nontemporal(const struct form *f)
{
	const char *m = f->mnemonic + (f->mnemonic[0] == 'V');
	return !strncmp(m, "MOVNT", 5) && form_stores(f);
}

/* Mnemonics (less a leading V) that store without reading what they
 * overwrite. */
static int plain_store_mnemonic(const char *m)
{
	static const char *const prefixes[] = {
	    "MOV",	 "SET",	    "PEXTR",   "EXTRACT",  "CVTPS2PH", "PMOV",	  "COMPRESS",
	    "PCOMPRESS", "STMXCSR", "MASKMOV", "PMASKMOV", "SCATTER",  "PSCATTER"};
	if (m[0] == 'V')
		m++;
	for (size_t i = 0; i < sizeof(prefixes) / sizeof(prefixes[0]); i++)
		if (!strncmp(m, prefixes[i], strlen(prefixes[i])))
			return 1;
	return 0;
}

enum form_store_kind form_store_kind(const struct form *f)
{
	if (!form_stores(f))
		return FORM_STORE_NONE;
	if (!strcmp(f->mnemonic, "PUSH"))
		return FORM_STORE_STACK;
	return plain_store_mnemonic(f->mnemonic) ? FORM_STORE_PLAIN : FORM_STORE_RMW;
}

int form_stores_in_turn(const char *const *names, size_t n)
{
	unsigned seen = 0;
	for (size_t i = 0; i < n; i++) {
		struct form f;
		if (form_parse(names[i], &f) == 0)
			seen |= 1u << form_store_kind(&f);
	}
	return form_store_kinds_in_turn(seen);
}

int form_store_kinds_in_turn(unsigned kinds)
{
	int rmw = kinds & 1u << FORM_STORE_RMW, plain = kinds & 1u << FORM_STORE_PLAIN,
	    stack = kinds & 1u << FORM_STORE_STACK;
	return (rmw && (plain || stack)) || (stack && plain);
}

int form_kind_is_address(enum form_kind k)
{
	return k >= FORM_MEM && k <= FORM_MEMRIP;
}

int form_kind_is_immediate(enum form_kind k)
{
	return (k >= FORM_IMM8 && k <= FORM_IMM64) || k == FORM_ONE;
}

static int kind_from_name(const char *s, size_t len)
{
	for (int k = 0; k < FORM_KIND_COUNT; k++)
		if (strlen(kind_names[k]) == len && !memcmp(kind_names[k], s, len))
			return k;
	return -1;
}

int form_parse(const char *name, struct form *out)
{
	const char *p = strchr(name, '_');
	size_t mlen = p ? (size_t)(p - name) : strlen(name);

	memset(out, 0, sizeof(*out));
	if (mlen == 0 || mlen >= sizeof(out->mnemonic))
		return perpi_set_error("bad form '%s': expected MNEMONIC_KIND_KIND...", name);
	for (size_t i = 0; i < mlen; i++) {
		int c = (unsigned char)name[i];
		if (!(isupper(c) || isdigit(c) || c == '.'))
			return perpi_set_error("bad form '%s': the mnemonic must be upper case",
					       name);
		out->mnemonic[i] = (char)c;
	}
	while (p) {
		const char *start = p + 1;
		p = strchr(start, '_');
		size_t len = p ? (size_t)(p - start) : strlen(start);
		int k = kind_from_name(start, len);
		if (k < 0)
			return perpi_set_error(
			    "bad form '%s': unknown operand kind '%.*s' (GPR8..GPR64, "
			    "IMM8..IMM64, M8..M512, M8X..M512X, XMM, YMM, ZMM, K, CL, ONE, SAME, MEM, "
			    "MEMBI, MEMBIS, MEMBID, MEMIS, MEMRIP)",
			    name, (int)len, start);
		if (out->n == FORM_MAX_OPERANDS)
			return perpi_set_error("bad form '%s': more than %d operands", name,
					       FORM_MAX_OPERANDS);
		out->op[out->n++] = (enum form_kind)k;
	}
	return 0;
}

void form_print(const struct form *f, char *buf, size_t size)
{
	size_t len = (size_t)snprintf(buf, size, "%s", f->mnemonic);
	for (unsigned i = 0; i < f->n && len < size; i++)
		len += (size_t)snprintf(buf + len, size - len, "_%s", form_kind_name(f->op[i]));
}

static enum form_kind register_kind(const struct x86_operand *o, int is_shift)
{
	switch (o->reg) {
	case X86_REG_XMM:
		return FORM_XMM;
	case X86_REG_YMM:
		return FORM_YMM;
	case X86_REG_ZMM:
		return FORM_ZMM;
	case X86_REG_K:
		return FORM_K;
	case X86_REG_MM:
		return FORM_MM;
	case X86_REG_ST:
		return FORM_ST;
	case X86_REG_SEG:
		return FORM_SEG;
	case X86_REG_GPR:
		if (is_shift && o->num == 1 && o->size == 1 && !o->high)
			return FORM_CL;
		switch (o->size) {
		case 1:
			return FORM_GPR8;
		case 2:
			return FORM_GPR16;
		case 4:
			return FORM_GPR32;
		case 8:
			return FORM_GPR64;
		}
		return FORM_REG;
	default:
		return FORM_REG;
	}
}

static enum form_kind memory_kind(unsigned size)
{
	switch (size) {
	case 1:
		return FORM_M8;
	case 2:
		return FORM_M16;
	case 4:
		return FORM_M32;
	case 8:
		return FORM_M64;
	case 10:
		return FORM_M80;
	case 16:
		return FORM_M128;
	case 32:
		return FORM_M256;
	case 64:
		return FORM_M512;
	}
	return FORM_MEM;
}

static enum form_kind immediate_kind(const struct x86_operand *o)
{
	switch (o->imm_size) {
	case 1:
		return FORM_IMM8;
	case 2:
		return FORM_IMM16;
	case 4:
		return FORM_IMM32;
	case 8:
		return FORM_IMM64;
	default:
		return o->imm == 1 ? FORM_ONE : FORM_IMM8;
	}
}

static int mnemonic_is_shift(const char *m)
{
	static const char *const shifts[] = {"SHL", "SHR", "SAR", "SAL",  "ROL",
					     "ROR", "RCL", "RCR", "SHLD", "SHRD"};
	for (size_t i = 0; i < ARRAY_SIZE(shifts); i++)
		if (!strcmp(m, shifts[i]))
			return 1;
	return 0;
}

/* The address shape of LEA's operand (forms split by it: form.h). */
static enum form_kind address_kind(const struct x86_operand *o)
{
	if (o->base == X86_BASE_RIP)
		return FORM_MEMRIP;
	if (o->index == X86_NO_REG)
		return FORM_MEM; /* base (+ displacement), or an absolute address */
	if (o->base == X86_NO_REG)
		return FORM_MEMIS; /* index * scale + displacement */
	if (o->disp_size)
		return FORM_MEMBID;
	return o->scale > 1 ? FORM_MEMBIS : FORM_MEMBI;
}

/* Instructions whose last register operand equal to the one before is a
 * form of its own (..._SAME): the zero idioms, which this Zen 5 runs at
 * 6 per cycle where the same instruction on two registers runs at 4 (vector)
 * or 5.2 (GPR) per cycle, measured with bench/form_splits.sh
 * (docs/BENCHMARKS.md). Only 32- and 64-bit GPRs and vector registers: xor
 * al, al merges into rax and runs like xor al, bl. Instructions measured
 * alike on equal and distinct registers are not split (cmp, and, or,
 * test, mov, add, sbb, pcmpeq*, pand, por, movaps, movdqa, movss, movsd). */
static const char *const same_register_forms[] = {
    "XOR",     "SUB",	   "PXOR",     "XORPS",	   "XORPD",    "VPXOR",	  "VPXORD",
    "VPXORQ",  "VXORPS",   "VXORPD",   "PSUBB",	   "PSUBW",    "PSUBD",	  "PSUBQ",
    "VPSUBB",  "VPSUBW",   "VPSUBD",   "VPSUBQ",   "PCMPGTB",  "PCMPGTW", "PCMPGTD",
    "PCMPGTQ", "VPCMPGTB", "VPCMPGTW", "VPCMPGTD", "VPCMPGTQ", "PANDN",	  "VPANDN",
    "VPANDND", "VPANDNQ",  "ANDNPS",   "ANDNPD",   "VANDNPS",  "VANDNPD",
};

static int same_register_form(const char *mnemonic)
{
	for (size_t i = 0; i < ARRAY_SIZE(same_register_forms); i++)
		if (!strcmp(mnemonic, same_register_forms[i]))
			return 1;
	return 0;
}

static int same_register(const struct x86_operand *a, const struct x86_operand *b)
{
	return a->type == X86_OPND_REG && b->type == X86_OPND_REG && a->reg == b->reg &&
	       a->num == b->num && a->size == b->size && a->high == b->high &&
	       (a->reg != X86_REG_GPR || a->size >= 4);
}

/* LOCK.ADD, REP.STOSB, REPE.CMPSB, REPNE.SCASB */
static void set_mnemonic(struct form *out, const struct x86_operands *d)
{
	const char *prefix = d->lock ? "LOCK." : "";
	const char *rep = d->rep == 2 ? "REPNE." : "";
	if (d->rep == 1)
		rep = !strncmp(d->mnemonic, "cmps", 4) || !strncmp(d->mnemonic, "scas", 4) ? "REPE."
											   : "REP.";
	size_t len = (size_t)snprintf(out->mnemonic, sizeof(out->mnemonic), "%s%s", prefix, rep);
	for (size_t i = 0; d->mnemonic[i] && len + 1 < sizeof(out->mnemonic); i++)
		out->mnemonic[len++] = (char)toupper((unsigned char)d->mnemonic[i]);
	out->mnemonic[len] = '\0';
}

int form_from_operands(const struct x86_operands *d, struct form *out)
{
	memset(out, 0, sizeof(*out));
	set_mnemonic(out, d);
	const char *base =
	    strrchr(out->mnemonic, '.') ? strrchr(out->mnemonic, '.') + 1 : out->mnemonic;
	int is_shift = mnemonic_is_shift(base), same = same_register_form(out->mnemonic);
	for (unsigned i = 0; i < d->n && out->n < FORM_MAX_OPERANDS; i++) {
		const struct x86_operand *o = &d->op[i];
		enum form_kind k = FORM_REG;
		switch (o->type) {
		case X86_OPND_REG:
			k = same && i > 0 && i + 1 == d->n && same_register(o, &d->op[i - 1])
				? FORM_SAME
				: register_kind(o, is_shift && i > 0); /* the count follows */
			break;
		case X86_OPND_IMM:
			k = immediate_kind(o);
			break;
		case X86_OPND_AGEN:
			k = address_kind(o);
			break;
		case X86_OPND_MEM:
			/* an embedded broadcast {1toN} reads one element: the form
			 * of the full-width operand stands for it (the same µops
			 * on the CPUs perpi knows; the generator writes no {1toN}) */
			k = memory_kind(o->bcast ? o->size * o->bcast : o->size);
			/* a GPR index (not a gather's vector one) */
			if (o->index != X86_NO_REG && o->index >= 0 && o->index < 32)
				k = form_kind_indexed(k);
			break;
		}
		out->op[out->n++] = k;
	}
	return 0;
}

int form_from_bytes(const uint8_t *bytes, size_t len, struct form *out, unsigned *insn_len)
{
	struct x86_operands d;
	if (x86_operands_decode(bytes, len, &d) < 0)
		return -1;
	if (insn_len)
		*insn_len = d.length;
	return form_from_operands(&d, out);
}

int form_of_insn(const struct perpi_insn *insn, struct form *out)
{
	struct x86_operands d;
	if (x86_operands_of_insn(insn, &d) < 0)
		return perpi_set_error(
		    "instruction at 0x%llx: neither Capstone nor Zydis decodes it",
		    (unsigned long long)insn->addr);
	return form_from_operands(&d, out);
}

/* Why a form cannot be a Pipedream kernel, by mnemonic. */
struct unsupported {
	const char *mnemonic;
	const char *reason;
};

#define CONTROL "control flow: a kernel must be one straight-line loop body"
#define SYSTEM "system instruction: privileged, or traps to the hypervisor"
#define SERIAL "serialising: it drains the pipeline, so there is no throughput to measure"
#define FRAME "builds or drops a frame through RBP: the loop cannot keep a stack"
#define POPF "may set the trap flag from the data it pops"

static const struct unsupported unsupported_table[] = {
    {"CALL", CONTROL},
    {"RET", CONTROL},
    {"RETF", CONTROL},
    {"IRET", CONTROL},
    {"IRETD", CONTROL},
    {"IRETQ", CONTROL},
    {"LOOP", CONTROL},
    {"LOOPE", CONTROL},
    {"LOOPNE", CONTROL},
    {"INT", CONTROL},
    {"INT1", CONTROL},
    {"INT3", CONTROL},
    {"INTO", CONTROL},
    {"SYSCALL", CONTROL},
    {"SYSRET", CONTROL},
    {"SYSENTER", CONTROL},
    {"SYSEXIT", CONTROL},
    {"LJMP", CONTROL},
    {"LCALL", CONTROL},
    {"XBEGIN", CONTROL},
    {"XEND", CONTROL},
    {"XABORT", CONTROL},
    {"CPUID", SERIAL},
    {"LFENCE", SERIAL},
    {"MFENCE", SERIAL},
    {"SFENCE", SERIAL},
    {"SERIALIZE", SERIAL},
    {"LDMXCSR", SERIAL},
    {"VLDMXCSR", SERIAL},
    {"WRPKRU", SERIAL},
    {"RDTSC", SERIAL},
    {"RDTSCP", SERIAL},
    {"RDPMC", SYSTEM},
    {"RDMSR", SYSTEM},
    {"WRMSR", SYSTEM},
    {"HLT", SYSTEM},
    {"IN", SYSTEM},
    {"OUT", SYSTEM},
    {"INSB", SYSTEM},
    {"INSW", SYSTEM},
    {"INSD", SYSTEM},
    {"OUTSB", SYSTEM},
    {"OUTSW", SYSTEM},
    {"OUTSD", SYSTEM},
    {"CLI", SYSTEM},
    {"STI", SYSTEM},
    {"LGDT", SYSTEM},
    {"SGDT", SYSTEM},
    {"LIDT", SYSTEM},
    {"SIDT", SYSTEM},
    {"LLDT", SYSTEM},
    {"SLDT", SYSTEM},
    {"LTR", SYSTEM},
    {"STR", SYSTEM},
    {"LMSW", SYSTEM},
    {"SMSW", SYSTEM},
    {"INVLPG", SYSTEM},
    {"INVD", SYSTEM},
    {"WBINVD", SYSTEM},
    {"CLTS", SYSTEM},
    {"SWAPGS", SYSTEM},
    {"XGETBV", SYSTEM},
    {"XSETBV", SYSTEM},
    {"MONITOR", SYSTEM},
    {"MWAIT", SYSTEM},
    {"UMONITOR", SYSTEM},
    {"UMWAIT", SYSTEM},
    {"TPAUSE", SYSTEM},
    {"VMCALL", SYSTEM},
    {"VMMCALL", SYSTEM},
    {"UD0", "undefined instruction: always faults"},
    {"UD1", "undefined instruction: always faults"},
    {"UD2", "undefined instruction: always faults"},
    {"RDRAND", "hardware random numbers: time depends on the entropy source"},
    {"RDSEED", "hardware random numbers: time depends on the entropy source"},
    {"RETFQ", CONTROL},
    {"SYSRETQ", CONTROL},
    {"SYSEXITQ", CONTROL},
    {"CLGI", SYSTEM},
    {"STGI", SYSTEM},
    {"VMRUN", SYSTEM},
    {"VMLOAD", SYSTEM},
    {"VMSAVE", SYSTEM},
    {"SKINIT", SYSTEM},
    {"INVLPGA", SYSTEM},
    {"WRFSBASE", "system: changes the thread's segment base"},
    {"WRGSBASE", "system: changes the thread's segment base"},
    {"MONITORX", SYSTEM},
    {"MWAITX", SYSTEM},
    {"XSAVE", SYSTEM},
    {"XRSTOR", SYSTEM},
    {"XSAVEOPT", SYSTEM},
    {"XSAVEC", SYSTEM},
    {"FXSAVE", SYSTEM},
    {"FXRSTOR", SYSTEM},
    {"FXSAVE64", SYSTEM},
    {"FXRSTOR64", SYSTEM},
    {"POPF", POPF},
    {"POPFQ", POPF},
    {"ENTER", FRAME},
    {"LEAVE", FRAME},
    {"MASKMOVDQU", "implicit memory through RDI"},
    {"VMASKMOVDQU", "implicit memory through RDI"},
    {"MASKMOVQ", "implicit memory through RDI"},
    {"XLATB", "implicit memory through RBX"},
    {"EMMS", "MMX/x87 state switch"},
    {"FEMMS", "MMX/x87 state switch"},
    {"WAIT", "x87: stack registers cannot be given independent pools"},
};

int form_is_string(const struct form *f)
{
	static const char *const ops[] = {"MOVS", "STOS", "LODS", "SCAS", "CMPS"};
	const char *dot = strrchr(f->mnemonic, '.');
	const char *m = dot ? dot + 1 : f->mnemonic;
	for (size_t i = 0; i < ARRAY_SIZE(ops); i++)
		if (!strncmp(m, ops[i], 4) && m[4] && strchr("BWDQ", m[4]) && !m[5] && f->n == 0)
			return 1;
	return 0;
}

unsigned form_string_bytes(const struct form *f)
{
	if (!form_is_string(f))
		return 0;
	const char *dot = strrchr(f->mnemonic, '.');
	switch ((dot ? dot + 1 : f->mnemonic)[4]) {
	case 'W':
		return 2;
	case 'D':
		return 4;
	case 'Q':
		return 8;
	default:
		return 1;
	}
}

const char *form_unsupported_reason(const struct form *f)
{
	const char *m = f->mnemonic;
	/* the instruction itself, without prefixes (REPZ.RET, NOTRACK.JMP) */
	const char *base = strrchr(m, '.') ? strrchr(m, '.') + 1 : m;
	for (size_t i = 0; i < ARRAY_SIZE(unsupported_table); i++)
		if (!strcmp(base, unsupported_table[i].mnemonic))
			return unsupported_table[i].reason;
	if (base[0] == 'J')
		return CONTROL;
	if (f->n == 0 && (!strncmp(m, "REPE.SCAS", 9) || !strncmp(m, "REPNE.CMPS", 10)))
		return "the repetition ends at the first byte that differs from AL or the "
		       "other string: its count depends on the data";
	if (strstr(m, "GATHER") || strstr(m, "SCATTER"))
		return "gather/scatter: vector-indexed memory is not generated";
	if (m[0] == 'F' && strncmp(m, "FXSAVE", 6))
		return "x87: stack registers cannot be given independent pools";
	for (unsigned i = 0; i < f->n; i++) {
		switch (f->op[i]) {
		case FORM_ST:
			return "x87: stack registers cannot be given independent pools";
		case FORM_MM:
			return "MMX: shares the x87 state and needs EMMS";
		case FORM_SEG:
		case FORM_REG:
			return SYSTEM;
		default:
			break;
		}
	}
	return NULL;
}
