#include "palmed/gen.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <Zydis/Zydis.h>

#include "palmed/harness.h"

/* GPR names by size (8, 16, 32, 64 bits) and number, encoding order. */
const char *const gen_gpr_names[4][16] = {
    {"al", "cl", "dl", "bl", "spl", "bpl", "sil", "dil", "r8b", "r9b", "r10b", "r11b", "r12b",
     "r13b", "r14b", "r15b"},
    {"ax", "cx", "dx", "bx", "sp", "bp", "si", "di", "r8w", "r9w", "r10w", "r11w", "r12w", "r13w",
     "r14w", "r15w"},
    {"eax", "ecx", "edx", "ebx", "esp", "ebp", "esi", "edi", "r8d", "r9d", "r10d", "r11d", "r12d",
     "r13d", "r14d", "r15d"},
    {"rax", "rcx", "rdx", "rbx", "rsp", "rbp", "rsi", "rdi", "r8", "r9", "r10", "r11", "r12", "r13",
     "r14", "r15"},
};

/* GPRs a kernel may use, in the order pools are filled: rsp and r13-r15
 * belong to the loop. */
static const int gpr_order[] = {3, 5, 8, 9, 10, 11, 12, 0, 1, 2, 6, 7};

enum reg_class { CLASS_GPR, CLASS_VEC, CLASS_K, CLASS_NONE };

static enum reg_class kind_class(enum form_kind k)
{
	switch (k) {
	case FORM_GPR8:
	case FORM_GPR16:
	case FORM_GPR32:
	case FORM_GPR64:
		return CLASS_GPR;
	case FORM_XMM:
	case FORM_YMM:
	case FORM_ZMM:
		return CLASS_VEC;
	case FORM_K:
		return CLASS_K;
	default:
		return CLASS_NONE;
	}
}

static const char *memory_keyword(enum form_kind k)
{
	switch (form_kind_unindexed(k)) {
	case FORM_M8:
		return "byte ptr ";
	case FORM_M16:
		return "word ptr ";
	case FORM_M32:
		return "dword ptr ";
	case FORM_M64:
		return "qword ptr ";
	case FORM_M80:
		return "tbyte ptr ";
	case FORM_M128:
		return "xmmword ptr ";
	case FORM_M256:
		return "ymmword ptr ";
	case FORM_M512:
		return "zmmword ptr ";
	default:
		return "";
	}
}

const char *gen_immediate_text(enum form_kind k, int alone)
{
	switch (k) {
	case FORM_IMM8:
		return "3";
	case FORM_IMM16: /* alone (push): as says push 0x1234 is push imm32 */
		return alone ? "word ptr 0x1234" : "0x1234";
	case FORM_IMM32:
		return "0x12345";
	case FORM_IMM64:
		return "0x123456789ab";
	case FORM_ONE:
		return "1";
	default:
		return "?";
	}
}

static void add_register(struct strbuf *out, enum form_kind k, int reg)
{
	switch (k) {
	case FORM_GPR8:
		strbuf_addf(out, "%s", gen_gpr_names[0][reg]);
		break;
	case FORM_GPR16:
		strbuf_addf(out, "%s", gen_gpr_names[1][reg]);
		break;
	case FORM_GPR32:
		strbuf_addf(out, "%s", gen_gpr_names[2][reg]);
		break;
	case FORM_GPR64:
		strbuf_addf(out, "%s", gen_gpr_names[3][reg]);
		break;
	case FORM_XMM:
		strbuf_addf(out, "xmm%d", reg);
		break;
	case FORM_YMM:
		strbuf_addf(out, "ymm%d", reg);
		break;
	case FORM_ZMM:
		strbuf_addf(out, "zmm%d", reg);
		break;
	case FORM_K:
		strbuf_addf(out, "k%d", reg);
		break;
	default:
		strbuf_addf(out, "?");
		break;
	}
}

static void add_mnemonic(struct strbuf *out, const struct form *f, int twin)
{
	strbuf_addf(out, "\t%s", twin ? "v" : "");
	for (const char *m = f->mnemonic; *m; m++) {
		char c = *m == '.' ? ' ' : (char)tolower((unsigned char)*m);
		strbuf_add(out, &c, 1);
	}
}

/* A memory operand in the shape of its kind (form.h): index register x,
 * displacement d where the shape has one. */
void gen_address(struct strbuf *out, enum form_kind k, const char *x, unsigned d)
{
	gen_address_base(out, k, "r14", x, d);
}

void gen_address_base(struct strbuf *out, enum form_kind k, const char *base, const char *x,
		      unsigned d)
{
	switch (k) {
	case FORM_MEMBI:
		strbuf_addf(out, "[%s + %s]", base, x);
		break;
	case FORM_MEMBIS:
		strbuf_addf(out, "[%s + %s*4]", base, x);
		break;
	case FORM_MEMBID:
		strbuf_addf(out, "[%s + %s*4 + %u]", base, x, d);
		break;
	case FORM_MEMIS:
		strbuf_addf(out, "[%s*4 + %u]", x, d);
		break;
	case FORM_MEMRIP:
		strbuf_addf(out, "[rip + %u]", d);
		break;
	default:
		strbuf_addf(out, "[%s + %u]", base, d);
		break;
	}
}

/* One instance, registers chosen the simple way; twin: the VEX twin of a
 * legacy-SSE form (access: its operands' access, to repeat a destination
 * that is also read). */
static void sample(const struct form *f, const unsigned char *access, int twin, struct strbuf *out)
{
	int next_gpr = 0, next_vec = 1, next_k = 1, last = -1;
	enum form_kind last_kind = FORM_REG;
	add_mnemonic(out, f, twin);
	for (unsigned i = 0; i < f->n; i++) {
		enum form_kind k = f->op[i];
		int reg = 0;
		switch (kind_class(k)) {
		case CLASS_GPR:
			reg = gpr_order[next_gpr++];
			break;
		case CLASS_VEC:
			reg = next_vec++;
			break;
		case CLASS_K:
			reg = next_k++;
			break;
		default:
			break;
		}
		strbuf_addf(out, "%s", i ? ", " : " ");
		if (k == FORM_SAME && last >= 0) {
			add_register(out, last_kind, last);
		} else if (form_kind_is_address(k)) {
			gen_address(out, k, gen_gpr_names[3][gpr_order[next_gpr++]], 64);
		} else if (form_kind_is_indexed(k)) { /* r14 + 64 with a register of 1 */
			strbuf_addf(out, "%s[r14 + %s*8 + 56]", memory_keyword(k),
				    gen_gpr_names[3][gpr_order[next_gpr++]]);
		} else if (form_kind_is_memory(k)) {
			strbuf_addf(out, "%s[r14 + 64]", memory_keyword(k));
		} else if (form_kind_is_immediate(k)) {
			strbuf_addf(out, "%s", gen_immediate_text(k, f->n == 1));
		} else if (k == FORM_CL) {
			strbuf_addf(out, "cl");
		} else {
			add_register(out, k, reg);
			if (twin && i == 0 && access &&
			    (access[0] == (GEN_READ | GEN_WRITE) || twin == GEN_TWIN_MERGE)) {
				strbuf_addf(out, ", ");
				add_register(out, k, reg);
			}
			last = reg;
			last_kind = k;
		}
	}
	strbuf_add(out, "\n", 1);
}

void gen_sample_instance(const struct form *f, struct strbuf *out)
{
	sample(f, NULL, 0, out);
}

/* A GPR the instruction reads or writes without naming it (rsp left out:
 * the stack forms keep it balanced themselves), or a vector register it
 * writes so: pcmpestrm writes xmm0, and a kernel that read xmm0 beside it
 * (its own first source, as the pools give it) would time a chain
 * through it, 7 cycles an instance on a Zen 4 where independent ones run
 * one every 3. */
static void add_implicit(struct gen_form_info *info, const ZydisDecodedOperand *op)
{
	if (op->type != ZYDIS_OPERAND_TYPE_REGISTER)
		return;
	ZydisRegisterClass cls = ZydisRegisterGetClass(op->reg.value);
	if (cls == ZYDIS_REGCLASS_XMM || cls == ZYDIS_REGCLASS_YMM || cls == ZYDIS_REGCLASS_ZMM) {
		int id = ZydisRegisterGetId(op->reg.value);
		if (id >= 0 && id < 32 && (op->actions & ZYDIS_OPERAND_ACTION_MASK_WRITE))
			info->implicit_vec_write |= 1u << id;
		return;
	}
	if (cls != ZYDIS_REGCLASS_GPR8 && cls != ZYDIS_REGCLASS_GPR16 &&
	    cls != ZYDIS_REGCLASS_GPR32 && cls != ZYDIS_REGCLASS_GPR64)
		return;
	ZydisRegister full =
	    ZydisRegisterGetLargestEnclosing(ZYDIS_MACHINE_MODE_LONG_64, op->reg.value);
	int id = ZydisRegisterGetId(full);
	if (id < 0 || id > 15 || id == 4)
		return;
	if (op->actions & ZYDIS_OPERAND_ACTION_MASK_READ)
		info->implicit_read |= 1u << id;
	if (op->actions & ZYDIS_OPERAND_ACTION_MASK_WRITE)
		info->implicit_write |= 1u << id;
}

/* EVEX only, VEX-like or legacy SSE (the kernels must not mix the last two). */
static void fill_encoding(struct gen_form_info *info, const ZydisDecodedInstruction *insn)
{
	const struct form *f = &info->form;
	int vector = 0, xmm = 0;
	for (unsigned i = 0; i < f->n; i++) {
		vector |= form_kind_is_vector(f->op[i]);
		xmm |= f->op[i] == FORM_XMM;
	}
	info->evex = insn->encoding == ZYDIS_INSTRUCTION_ENCODING_EVEX;
	info->vex = vector && insn->encoding != ZYDIS_INSTRUCTION_ENCODING_LEGACY;
	info->sse = xmm && insn->encoding == ZYDIS_INSTRUCTION_ENCODING_LEGACY;
}

/* A string instruction's registers, whatever the decoder lists: Zydis 4
 * gives cmps and scas their memory operands but not rsi and rdi, which
 * they read and advance, and a kernel then wrote rsi beside cmpsb and
 * faulted (every probe of CMPSB with a GPR writer in the mapping).
 * movs/lods/cmps use rsi, movs/stos/scas/cmps rdi, stos/scas read al,
 * lods writes it; REP adds rcx. */
static void string_registers(struct gen_form_info *info)
{
	const char *m = info->form.mnemonic, *dot = strchr(m, '.');
	int rep = dot != NULL;
	const char *b = dot ? dot + 1 : m;
	if (info->form.n || strlen(b) != 5 || !strchr("BWDQ", b[4]))
		return;
	int movs = !strncmp(b, "MOVS", 4), lods = !strncmp(b, "LODS", 4),
	    cmps = !strncmp(b, "CMPS", 4), stos = !strncmp(b, "STOS", 4),
	    scas = !strncmp(b, "SCAS", 4);
	uint32_t rsi = 1u << 6, rdi = 1u << 7, rax = 1u << 0, rcx = 1u << 1, both = 0;
	if (!(movs || lods || cmps || stos || scas))
		return;
	if (movs || lods || cmps)
		both |= rsi;
	if (movs || stos || scas || cmps)
		both |= rdi;
	if (rep)
		both |= rcx;
	info->implicit_read |= both | (stos || scas ? rax : 0);
	info->implicit_write |= both | (lods ? rax : 0);
}

/* Fill the access of each explicit operand and the implicit registers and
 * flags from Zydis' view of one assembled instance. */
static int fill_semantics(struct gen_form_info *info, const ZydisDecodedInstruction *insn,
			  const ZydisDecodedOperand *ops)
{
	const struct form *f = &info->form;
	const ZydisDecodedOperand *explicit_ops[ZYDIS_MAX_OPERAND_COUNT];
	unsigned n_explicit = 0;

	fill_encoding(info, insn);
	if (insn->cpu_flags) {
		info->flags_read = insn->cpu_flags->tested != 0;
		info->flags_written = (insn->cpu_flags->modified | insn->cpu_flags->set_0 |
				       insn->cpu_flags->set_1 | insn->cpu_flags->undefined) != 0;
	}
	for (unsigned i = 0; i < insn->operand_count; i++) {
		const ZydisDecodedOperand *op = &ops[i];
		if (op->visibility == ZYDIS_OPERAND_VISIBILITY_EXPLICIT) {
			/* an EVEX write mask is not part of the form */
			if (op->type == ZYDIS_OPERAND_TYPE_REGISTER &&
			    ZydisRegisterGetClass(op->reg.value) == ZYDIS_REGCLASS_MASK && i > 0 &&
			    n_explicit < f->n && f->op[n_explicit] != FORM_K)
				continue;
			explicit_ops[n_explicit++] = op;
			continue;
		}
		add_implicit(info, op);
	}
	unsigned j = 0;
	for (unsigned i = 0; i < f->n; i++) {
		if ((f->op[i] == FORM_ONE || f->op[i] == FORM_CL) && n_explicit < f->n) {
			info->access[i] = GEN_READ;
			continue;
		}
		if (j >= n_explicit)
			return perpi_set_error("form %s: the decoder sees %u explicit operands",
					       info->name, n_explicit);
		const ZydisDecodedOperand *op = explicit_ops[j++];
		unsigned char a = 0;
		if (op->actions & (ZYDIS_OPERAND_ACTION_MASK_READ | ZYDIS_OPERAND_ACTION_CONDWRITE))
			a |= GEN_READ;
		if (op->actions & ZYDIS_OPERAND_ACTION_MASK_WRITE)
			a |= GEN_WRITE;
		/* writing 8 or 16 bits of a GPR merges with its old value */
		if ((a & GEN_WRITE) && (f->op[i] == FORM_GPR8 || f->op[i] == FORM_GPR16))
			a |= GEN_READ;
		if (op->type == ZYDIS_OPERAND_TYPE_MEMORY && op->mem.type == ZYDIS_MEMOP_TYPE_AGEN)
			a = GEN_READ;
		if (op->type == ZYDIS_OPERAND_TYPE_IMMEDIATE || f->op[i] == FORM_CL)
			a = GEN_READ;
		info->access[i] = a;
	}
	for (unsigned i = 0; i < f->n; i++)
		if (f->op[i] == FORM_CL)
			info->implicit_read |= 1u << 1; /* rcx */
	string_registers(info);
	return 0;
}

static int line_of_error(const char *line, const char *stem)
{
	const char *p = strstr(line, stem);
	if (!p)
		return -1;
	p = strchr(p, ':');
	return p ? atoi(p + 1) : -1;
}

/* Mark forms whose instance failed to assemble, from as' messages. */
static void blame_lines(const char *diag, const size_t *line_form, size_t n_lines, int *status,
			char **errors, const char *const *names)
{
	const char *p = diag;
	while (p && *p) {
		const char *end = strchr(p, '\n');
		size_t len = end ? (size_t)(end - p) : strlen(p);
		char line[512];
		snprintf(line, sizeof(line), "%.*s", (int)len, p);
		int ln = line_of_error(line, "probe.s");
		const char *msg = strstr(line, "Error: ");
		if (ln >= 1 && (size_t)ln <= n_lines && msg) {
			size_t fi = line_form[ln - 1];
			if (fi != (size_t)-1 && status[fi] == 0) {
				status[fi] = -1;
				errors[fi] =
				    xasprintf("form %s does not assemble: %s", names[fi], msg + 7);
			}
		}
		p = end ? end + 1 : NULL;
	}
}

static int decode_all(const char *dir, const char *const *names, size_t n,
		      struct gen_form_info *infos, int *status, char **errors)
{
	char *obj = xasprintf("%s/probe.o", dir);
	uint8_t *bytes;
	size_t len, off = 0;
	int rc = harness_text_bytes(obj, &bytes, &len);
	free(obj);
	if (rc < 0)
		return -1;
	ZydisDecoder dec;
	ZydisDecoderInit(&dec, ZYDIS_MACHINE_MODE_LONG_64, ZYDIS_STACK_WIDTH_64);
	for (size_t i = 0; i < n; i++) {
		if (status[i])
			continue;
		ZydisDecodedInstruction insn;
		ZydisDecodedOperand ops[ZYDIS_MAX_OPERAND_COUNT];
		if (!ZYAN_SUCCESS(
			ZydisDecoderDecodeFull(&dec, bytes + off, len - off, &insn, ops))) {
			free(bytes);
			return perpi_set_error(
			    "probing forms: Zydis cannot decode what as produced");
		}
		off += insn.length;
		if (fill_semantics(&infos[i], &insn, ops) < 0) {
			status[i] = -1;
			errors[i] = xstrdup(perpi_error());
		}
	}
	free(bytes);
	return 0;
}

/* Whether the instruction at bytes is the VEX/EVEX twin of form f. */
static int decodes_as_twin(const ZydisDecoder *dec, const uint8_t *bytes, size_t len,
			   const struct form *f, size_t *insn_len)
{
	ZydisDecodedInstruction insn;
	ZydisDecodedOperand ops[ZYDIS_MAX_OPERAND_COUNT];
	if (!ZYAN_SUCCESS(ZydisDecoderDecodeFull(dec, bytes, len, &insn, ops)))
		return -1;
	*insn_len = insn.length;
	const char *m = ZydisMnemonicGetString(insn.mnemonic);
	if (!m || tolower((unsigned char)m[0]) != 'v' || strlen(m + 1) != strlen(f->mnemonic))
		return 0;
	for (size_t i = 0; m[i + 1]; i++)
		if (toupper((unsigned char)m[i + 1]) != f->mnemonic[i])
			return 0;
	return insn.encoding == ZYDIS_INSTRUCTION_ENCODING_VEX ||
	       insn.encoding == ZYDIS_INSTRUCTION_ENCODING_EVEX;
}

static void decode_twins(const char *dir, struct gen_form_info *infos, const size_t *line_form,
			 size_t lines, int mode)
{
	char *obj = xasprintf("%s/twin.o", dir);
	uint8_t *bytes;
	size_t len, off = 0, step;
	int rc = harness_text_bytes(obj, &bytes, &len);
	free(obj);
	if (rc < 0)
		return;
	ZydisDecoder dec;
	ZydisDecoderInit(&dec, ZYDIS_MACHINE_MODE_LONG_64, ZYDIS_STACK_WIDTH_64);
	for (size_t l = 1; l < lines && off < len; l++, off += step) {
		struct gen_form_info *info = &infos[line_form[l]];
		int twin = decodes_as_twin(&dec, bytes + off, len - off, &info->form, &step);
		if (twin < 0)
			break;
		info->twin = twin ? mode : 0;
	}
	free(bytes);
}

/* Whether a twin in this mode is worth trying for info: a legacy-SSE form
 * without one yet; GEN_TWIN_MERGE only for a vector destination the
 * decoder has written only. */
static int twin_candidate(const struct gen_form_info *info, int mode)
{
	if (!info->sse || info->twin)
		return 0;
	return mode != GEN_TWIN_MERGE || (info->form.n >= 2 && info->access[0] == GEN_WRITE &&
					  kind_class(info->form.op[0]) == CLASS_VEC);
}

/* The VEX twins of the legacy-SSE forms understood, all assembled at once
 * (a line GNU as rejects is left out and the rest tried again); a twin is
 * kept when it decodes as VEX or EVEX with the mnemonic "v" + the form's.
 * mode: 1, or GEN_TWIN_MERGE (the destination repeated, for the forms the
 * first try left without a twin). */
static void try_twins(const char *dir, struct gen_form_info *infos, const int *status, size_t n,
		      int mode)
{
	size_t *line_form = xcalloc(n + 2, sizeof(*line_form));
	int *bad = xcalloc(n + 1, sizeof(int));
	for (int pass = 0; pass < 3; pass++) {
		struct strbuf s;
		size_t lines = 1;
		strbuf_init(&s);
		strbuf_addf(&s, ".intel_syntax noprefix\n");
		for (size_t i = 0; i < n; i++)
			if (!status[i] && twin_candidate(&infos[i], mode) && !bad[i]) {
				sample(&infos[i].form, infos[i].access, mode, &s);
				line_form[lines++] = i;
			}
		char *diag = NULL;
		int rc = lines > 1 ? harness_assemble(dir, "twin", s.buf, &diag) : -1;
		strbuf_done(&s);
		if (rc == 0)
			decode_twins(dir, infos, line_form, lines, mode);
		for (const char *p = diag; rc < 0 && p && *p;
		     p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL) {
			int ln = line_of_error(p, "twin.s");
			if (ln >= 2 && (size_t)ln <= lines)
				bad[line_form[ln - 1]] = 1;
		}
		free(diag);
		if (rc == 0 || lines == 1)
			break;
	}
	free(line_form);
	free(bad);
}

static void probe_twins(const char *dir, struct gen_form_info *infos, const int *status, size_t n)
{
	try_twins(dir, infos, status, n, 1);
	try_twins(dir, infos, status, n, GEN_TWIN_MERGE);
}

size_t gen_probe_forms(const char *const *names, size_t n, const char *dir,
		       struct gen_form_info *infos, int *status, char **errors)
{
	size_t *line_form = xcalloc(n + 2, sizeof(*line_form));
	for (size_t i = 0; i < n; i++) {
		memset(&infos[i], 0, sizeof(infos[i]));
		status[i] = 0;
		errors[i] = NULL;
		snprintf(infos[i].name, sizeof(infos[i].name), "%s", names[i]);
		if (form_parse(names[i], &infos[i].form) < 0) {
			status[i] = -1;
			errors[i] = xstrdup(perpi_error());
			continue;
		}
		const char *why = form_unsupported_reason(&infos[i].form);
		if (why) {
			status[i] = -1;
			errors[i] = xasprintf("form %s is unsupported: %s", names[i], why);
		}
	}
	for (int pass = 0; pass < 2; pass++) {
		struct strbuf s;
		size_t lines = 1;
		strbuf_init(&s);
		strbuf_addf(&s, ".intel_syntax noprefix\n");
		line_form[0] = (size_t)-1;
		for (size_t i = 0; i < n; i++)
			if (!status[i]) {
				gen_sample_instance(&infos[i].form, &s);
				line_form[lines++] = i;
			}
		char *diag = NULL;
		int rc = harness_assemble(dir, "probe", s.buf, &diag);
		strbuf_done(&s);
		if (rc == 0) {
			free(diag);
			if (decode_all(dir, names, n, infos, status, errors) < 0)
				for (size_t i = 0; i < n; i++)
					if (!status[i]) {
						status[i] = -1;
						errors[i] = xstrdup(perpi_error());
					}
			break;
		}
		if (diag)
			blame_lines(diag, line_form, lines, status, errors, names);
		free(diag);
		if (pass == 1)
			for (size_t i = 0; i < n; i++)
				if (!status[i]) {
					status[i] = -1;
					errors[i] = xstrdup(perpi_error());
				}
	}
	free(line_form);
	probe_twins(dir, infos, status, n);
	size_t ok = 0;
	for (size_t i = 0; i < n; i++)
		ok += status[i] == 0;
	return ok;
}

/* v3: twins in GEN_TWIN_MERGE mode (v2 left sqrtsd, cvtss2sd... without);
 * v4: string instructions' rsi, rdi, rax and rcx (string_registers);
 * v5: vector registers written implicitly (ivwrite) */
#define SEMANTICS_FORMAT "v5"

char *gen_form_info_to_text(const struct gen_form_info *info)
{
	struct strbuf sb;
	strbuf_init(&sb);
	strbuf_addf(&sb, SEMANTICS_FORMAT " access=");
	for (unsigned i = 0; i < info->form.n; i++)
		strbuf_addf(&sb, "%s%u", i ? "," : "", info->access[i]);
	strbuf_addf(&sb,
		    " iread=%u iwrite=%u ivwrite=%u fread=%d fwrite=%d evex=%d vex=%d sse=%d "
		    "twin=%d",
		    info->implicit_read, info->implicit_write, info->implicit_vec_write,
		    info->flags_read, info->flags_written, info->evex, info->vex, info->sse,
		    info->twin);
	return sb.buf;
}

int gen_form_info_from_text(const char *name, const char *text, struct gen_form_info *out)
{
	memset(out, 0, sizeof(*out));
	snprintf(out->name, sizeof(out->name), "%s", name);
	if (form_parse(name, &out->form) < 0 || strncmp(text, SEMANTICS_FORMAT " access=", 10))
		return -1;
	const char *p = text + 10;
	for (unsigned i = 0; i < out->form.n; i++) {
		char *end;
		unsigned long a = strtoul(p, &end, 10);
		if (end == p || a > 3)
			return -1;
		out->access[i] = (unsigned char)a;
		p = *end == ',' ? end + 1 : end;
	}
	if (sscanf(p,
		   " iread=%u iwrite=%u ivwrite=%u fread=%d fwrite=%d evex=%d vex=%d sse=%d "
		   "twin=%d",
		   &out->implicit_read, &out->implicit_write, &out->implicit_vec_write,
		   &out->flags_read, &out->flags_written, &out->evex, &out->vex, &out->sse,
		   &out->twin) != 9)
		return -1;
	return 0;
}
