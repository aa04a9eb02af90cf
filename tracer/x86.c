/* The x86 decoder object: Capstone first (DESIGN.md), Zydis for what
 * Capstone 4 cannot decode, a conservative "unknown" for what neither can;
 * then the fix table and the static semantics (x86_sem.h). */
#include <capstone/capstone.h>
#include <Zydis/Zydis.h>
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/util.h"
#include "tracer/x86.h"
#include "tracer/x86_sem.h"

enum { SEM_CHUNK = 64 * 1024 };

/* The semantics of every decoded instruction, bump-allocated. */
struct sem_chunk {
	struct sem_chunk *next;
	size_t used;
	_Alignas(16) uint8_t bytes[SEM_CHUNK];
};

struct x86_decoder {
	csh cs;
	int cs_ok;
	ZydisDecoder zydis;
	ZydisFormatter formatter;
	struct sem_chunk *chunks; /* owns every insn->sem handed out */
};

struct x86_decoder *x86_decoder_new(void)
{
	struct x86_decoder *dec = xcalloc(1, sizeof(*dec));
	if (cs_open(CS_ARCH_X86, CS_MODE_64, &dec->cs) == CS_ERR_OK) {
		cs_option(dec->cs, CS_OPT_DETAIL, CS_OPT_ON);
		cs_option(dec->cs, CS_OPT_SYNTAX, CS_OPT_SYNTAX_INTEL);
		dec->cs_ok = 1;
	}
	ZydisDecoderInit(&dec->zydis, ZYDIS_MACHINE_MODE_LONG_64, ZYDIS_STACK_WIDTH_64);
	ZydisFormatterInit(&dec->formatter, ZYDIS_FORMATTER_STYLE_INTEL);
	/* "[rip+0x3266]" as Capstone writes it, not the absolute address:
	 * perpi measure finds the operands it must re-aim by it */
	ZydisFormatterSetProperty(&dec->formatter, ZYDIS_FORMATTER_PROP_FORCE_RELATIVE_RIPREL,
				  ZYAN_TRUE);
	return dec;
}

void x86_decoder_delete(struct x86_decoder *dec)
{
	if (!dec)
		return;
	while (dec->chunks) {
		struct sem_chunk *next = dec->chunks->next;
		free(dec->chunks);
		dec->chunks = next;
	}
	if (dec->cs_ok)
		cs_close(&dec->cs);
	free(dec);
}

static struct x86_sem *sem_store(struct x86_decoder *dec, const struct x86_sem *built)
{
	size_t size = (X86_SEM_SIZE(built) + 15) & ~(size_t)15;
	if (!dec->chunks || dec->chunks->used + size > SEM_CHUNK) {
		struct sem_chunk *c = xmalloc(sizeof(*c));
		c->next = dec->chunks;
		c->used = 0;
		dec->chunks = c;
	}
	struct x86_sem *s = (struct x86_sem *)(dec->chunks->bytes + dec->chunks->used);
	dec->chunks->used += size;
	memcpy(s, built, X86_SEM_SIZE(built));
	return s;
}

/* Lower case, and without the space Capstone 4 leaves before some commas
 * ("vaddps zmm0 , zmm1, zmm2"). */
static void tidy_text(char *s)
{
	char *d = s;
	for (; *s; s++)
		if (!(s[0] == ' ' && s[1] == ','))
			*d++ = (char)tolower((unsigned char)*s);
	*d = 0;
}

static void fill_unknown(struct x86_ir *ir, struct perpi_insn *out, const uint8_t *bytes)
{
	memset(ir, 0, sizeof(*ir));
	ir->decoder = DECODER_UNKNOWN;
	ir->special = SP_UNKNOWN;
	snprintf(ir->mnemonic, sizeof(ir->mnemonic), "(bad)");
	out->len = 1;
	snprintf(out->text, sizeof(out->text), "(bad) .byte 0x%02x", bytes[0]);
}

static int decode(struct x86_decoder *dec, uint64_t addr, const uint8_t *bytes, size_t avail,
		  struct perpi_insn *out, int zydis_only)
{
	struct x86_ir ir;
	uint8_t len = 0;
	if (!avail)
		return perpi_set_error("x86 decode at 0x%llx: no bytes", (unsigned long long)addr);
	memset(out, 0, sizeof(*out));
	out->addr = addr;
	int rc = -1;
	if (!zydis_only && dec->cs_ok)
		rc = x86_ir_capstone(&dec->cs, addr, bytes, avail, &ir, &len, out->text,
				     sizeof(out->text));
	if (rc < 0) {
		rc = x86_ir_zydis(&dec->zydis, &dec->formatter, addr, bytes, avail, &ir, &len,
				  out->text, sizeof(out->text));
		if (rc == -2 && avail < 15)
			return perpi_set_error(
			    "x86 decode at 0x%llx: %zu bytes are not a whole instruction",
			    (unsigned long long)addr, avail);
	}
	if (rc < 0)
		fill_unknown(&ir, out, bytes);
	else
		out->len = len;
	ir.no_fixes = (uint8_t)zydis_only;
	x86_fix_apply(&ir);
	memcpy(out->bytes, bytes, out->len);
	out->decoder = ir.decoder;
	tidy_text(out->text);
	x86_classify(&ir, &out->klass, &out->control);
	union {
		struct x86_sem sem;
		uint8_t room[X86_SEM_MAX_SIZE];
	} built;
	x86_sem_build(&ir, &built.sem);
	out->sem = sem_store(dec, &built.sem);
	return 0;
}

int x86_decode(struct x86_decoder *dec, uint64_t addr, const uint8_t *bytes, size_t avail,
	       struct perpi_insn *out)
{
	return decode(dec, addr, bytes, avail, out, 0);
}

int x86_decode_zydis_raw(struct x86_decoder *dec, uint64_t addr, const uint8_t *bytes, size_t avail,
			 struct perpi_insn *out)
{
	int rc = decode(dec, addr, bytes, avail, out, 1);
	return rc < 0 || out->decoder != DECODER_ZYDIS ? -1 : 0;
}

int x86_needs_xstate(const struct perpi_insn *insn)
{
	const struct x86_sem *s = insn->sem;
	return s && s->needs_xstate;
}
