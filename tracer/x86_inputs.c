/* The run-time inputs of x86_resolve for one static instruction: exactly
 * the registers and state its memory templates and special handler read
 * (x86_resolve.c, x86_xsave.c), for backends that hand perpi values rather
 * than a stopped thread (the Valgrind tool asks for these per instruction). */
#include <string.h>

#include "tracer/x86_sem.h"

static void add_memt(const struct x86_memt *m, struct x86_inputs *in)
{
	if (m->base >= 0)
		in->gpr |= (uint16_t)(1u << m->base);
	if (m->index >= 0)
		in->gpr |= (uint16_t)(1u << m->index);
	if (m->vsib_index)
		in->vec |= (uint16_t)(1u << ((m->vsib_index - 1) & 15));
	if (m->seg == RC_FS)
		in->fs_base = 1;
	else if (m->seg == RC_GS)
		in->gs_base = 1;
}

void x86_inputs(const struct perpi_insn *insn, struct x86_inputs *in)
{
	const struct x86_sem *s = insn->sem;
	memset(in, 0, sizeof(*in));
	in->gpr = 1u << 4; /* rsp: every event carries the stack pointer */
	if (!s)
		return;
	for (int i = 0; i < s->n_mem; i++)
		add_memt(&s->mem[i], in);
	switch (s->special) {
	case SP_SHIFT_CL:
		in->gpr |= 1u << 1;
		break;
	case SP_STRING:
		in->gpr |= 1u << 1;
		in->rep_string = 1;
		in->rcx_32 = s->n_mem && s->mem[0].addr32;
		break;
	case SP_X87:
		in->fpu_top = 1;
		break;
	case SP_MASKED:
		in->mask_k = (uint8_t)(1u << s->mask_k);
		break;
	case SP_GATHER:
		if (s->gather_mask_vec)
			in->vec |= (uint16_t)(1u << ((s->gather_mask_vec - 1) & 15));
		if (s->mask_k)
			in->mask_k = (uint8_t)(1u << s->mask_k);
		break;
	case SP_BITOFFSET:
		in->gpr |= (uint16_t)(1u << (s->bit_reg - 1));
		break;
	case SP_XSAVE:
	case SP_XRSTOR:
		if (s->xsave_kind != 2) /* EDX:EAX select the components */
			in->gpr |= 1u << 0 | 1u << 2;
		break;
	default:
		break;
	}
}
