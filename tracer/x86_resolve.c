/* One dynamic instruction: the static unit lists of its x86_sem, plus the
 * addresses and the run-time cases (DESIGN.md "The ideal machine"). Called
 * for every single step, so the common case is two memcpy and a few adds. */
#include <stddef.h>
#include <string.h>

#include "common/util.h"
#include "tracer/x86_sem.h"

/* Where GPR n (encoding order) lies in struct user_regs_struct. */
const uint16_t x86_gpr_offset[16] = {
    offsetof(struct user_regs_struct, rax), offsetof(struct user_regs_struct, rcx),
    offsetof(struct user_regs_struct, rdx), offsetof(struct user_regs_struct, rbx),
    offsetof(struct user_regs_struct, rsp), offsetof(struct user_regs_struct, rbp),
    offsetof(struct user_regs_struct, rsi), offsetof(struct user_regs_struct, rdi),
    offsetof(struct user_regs_struct, r8),  offsetof(struct user_regs_struct, r9),
    offsetof(struct user_regs_struct, r10), offsetof(struct user_regs_struct, r11),
    offsetof(struct user_regs_struct, r12), offsetof(struct user_regs_struct, r13),
    offsetof(struct user_regs_struct, r14), offsetof(struct user_regs_struct, r15),
};

static inline uint64_t gpr(const struct user_regs_struct *r, int n)
{
	uint64_t v;
	memcpy(&v, (const char *)r + x86_gpr_offset[n], sizeof(v));
	return v;
}

static inline uint64_t mem_address(const struct x86_memt *m, const struct perpi_insn *insn,
				   const struct user_regs_struct *r, uint64_t index_value)
{
	uint64_t a = (uint64_t)m->disp + index_value * m->scale;
	if (m->base >= 0)
		a += gpr(r, m->base);
	else if (m->base == -2)
		a += insn->addr + insn->len;
	if (m->index >= 0)
		a += (m->index_low8 ? gpr(r, m->index) & 0xff : gpr(r, m->index)) * m->scale;
	if (m->addr32)
		a = (uint32_t)a;
	if (m->seg == RC_FS)
		a += r->fs_base;
	else if (m->seg == RC_GS)
		a += r->gs_base;
	return a;
}

static inline void mem_add(struct perpi_event *ev, uint64_t addr, uint32_t size, int write)
{
	if (ev->n_mem >= EVENT_MAX_MEM || !size)
		return;
	struct perpi_mem_access *a = &ev->mem[ev->n_mem++];
	a->addr = addr;
	a->size = size;
	a->write = (uint8_t)write;
}

static void mem_add_access(struct perpi_event *ev, uint64_t addr, uint32_t size, int access)
{
	if (access & AC_R)
		mem_add(ev, addr, size, 0);
	if (access & AC_W)
		mem_add(ev, addr, size, 1);
}

/* Dynamic unit additions keep "each unit at most once". */
struct unit_set {
	uint64_t bits[3];
};

static void set_of(struct unit_set *s, const uint8_t *units, int n)
{
	memset(s, 0, sizeof(*s));
	for (int i = 0; i < n; i++)
		s->bits[units[i] / 64] |= 1ull << (units[i] % 64);
}

static void unit_push(struct unit_set *s, uint8_t *units, uint8_t *n, int u)
{
	if (s->bits[u / 64] >> (u % 64) & 1)
		return;
	s->bits[u / 64] |= 1ull << (u % 64);
	units[(*n)++] = (uint8_t)u;
}

static int fetch(const struct x86_state *st, struct x86_xstate *xs)
{
	if (!st->fetch_xstate)
		return perpi_set_error("x86 resolve: extended state needed but not available");
	return st->fetch_xstate(st->ctx, xs);
}

static void resolve_x87(const struct x86_sem *s, const struct x86_xstate *xs,
			struct perpi_event *ev)
{
	int top = xs->fsw >> 11 & 7;
	struct unit_set set;
	set_of(&set, ev->src, ev->n_src);
	for (int i = 0; i < s->n_st_src; i++)
		unit_push(&set, ev->src, &ev->n_src, UNIT_X87 + ((top + s->st_src[i]) & 7));
	set_of(&set, ev->dst, ev->n_dst);
	for (int i = 0; i < s->n_st_dst; i++)
		unit_push(&set, ev->dst, &ev->n_dst, UNIT_X87 + ((top + s->st_dst[i]) & 7));
}

/* Masked memory: contiguous runs of selected elements. */
static void resolve_masked(const struct x86_sem *s, const struct perpi_insn *insn,
			   const struct user_regs_struct *r, uint64_t k, struct perpi_event *ev)
{
	for (int i = 0; i < s->n_mem; i++) {
		const struct x86_memt *m = &s->mem[i];
		uint64_t base = mem_address(m, insn, r, 0);
		if (m->bcast_elems) {
			uint64_t sel = m->bcast_elems >= 64 ? ~0ull : (1ull << m->bcast_elems) - 1;
			if (k & sel)
				mem_add_access(ev, base, m->size, m->access);
			continue;
		}
		unsigned n = m->size / s->elem_size;
		if (s->compress) {
			uint64_t sel = n >= 64 ? k : k & ((1ull << n) - 1);
			mem_add_access(ev, base, (uint32_t)__builtin_popcountll(sel) * s->elem_size,
				       m->access);
			continue;
		}
		for (unsigned e = 0; e < n;) {
			if (!(k >> e & 1)) {
				e++;
				continue;
			}
			unsigned start = e;
			while (e < n && (k >> e & 1))
				e++;
			mem_add_access(ev, base + start * s->elem_size, (e - start) * s->elem_size,
				       m->access);
		}
	}
}

static void resolve_gather(const struct x86_sem *s, const struct perpi_insn *insn,
			   const struct user_regs_struct *r, const struct x86_xstate *xs,
			   struct perpi_event *ev)
{
	const struct x86_memt *m = NULL;
	for (int i = 0; i < s->n_mem; i++)
		if (s->mem[i].vsib_index)
			m = &s->mem[i];
		else
			mem_add_access(ev, mem_address(&s->mem[i], insn, r, 0), s->mem[i].size,
				       s->mem[i].access);
	if (!m)
		return;
	const uint8_t *idx = xs->zmm[m->vsib_index - 1];
	for (int e = 0; e < s->gather_count; e++) {
		int selected;
		if (s->gather_mask_vec) {
			const uint8_t *mv = xs->zmm[s->gather_mask_vec - 1];
			selected = mv[(e + 1) * s->elem_size - 1] >> 7;
		} else {
			selected = s->mask_k ? (int)(xs->k[s->mask_k] >> e & 1) : 1;
		}
		if (!selected)
			continue;
		int64_t iv;
		if (s->gather_index_q) {
			memcpy(&iv, idx + 8 * e, 8);
		} else {
			int32_t i32;
			memcpy(&i32, idx + 4 * e, 4);
			iv = i32;
		}
		mem_add_access(ev, mem_address(m, insn, r, (uint64_t)iv), s->elem_size, m->access);
	}
}

/* bt/bts/btr/btc m, r: the signed bit offset selects the operand-sized word
 * at EA + size * floor(offset / (8 * size)) (Intel SDM, BT). */
static void resolve_bit_offset(const struct x86_sem *s, const struct perpi_insn *insn,
			       const struct user_regs_struct *r, struct perpi_event *ev)
{
	int shift;
	int64_t off = (int64_t)gpr(r, s->bit_reg - 1);
	if (s->bit_size == 2)
		off = (int16_t)off, shift = 4;
	else if (s->bit_size == 4)
		off = (int32_t)off, shift = 5;
	else
		shift = 6;
	for (int i = 0; i < s->n_mem; i++) {
		uint64_t a = mem_address(&s->mem[i], insn, r, 0);
		a += (uint64_t)((off >> shift) * s->bit_size);
		mem_add_access(ev, a, s->mem[i].size, s->mem[i].access);
	}
}

int x86_resolve(const struct perpi_insn *insn, const struct x86_state *st, struct perpi_event *ev)
{
	const struct x86_sem *s = insn->sem;
	const struct user_regs_struct *r = st->regs;
	if (!s)
		return perpi_set_error("x86 resolve: instruction at 0x%llx has no semantics",
				       (unsigned long long)insn->addr);
	ev->insn = insn;
	ev->sp = r->rsp;
	ev->flags = s->event_flags;
	ev->n_src = s->n_src;
	ev->n_dst = s->n_dst;
	memcpy(ev->src, s->units, s->n_src);
	memcpy(ev->dst, s->units + s->n_src, s->n_dst);
	ev->n_mem = 0;
	if (s->special == SP_NONE || s->special == SP_SHIFT_CL || s->special == SP_X87) {
		for (int i = 0; i < s->n_mem; i++)
			mem_add_access(ev, mem_address(&s->mem[i], insn, r, 0), s->mem[i].size,
				       s->mem[i].access);
		if (s->special == SP_SHIFT_CL && !(r->rcx & s->shift_mask))
			ev->n_dst -= (uint8_t)__builtin_popcount(s->flags_dyn);
		if (s->special != SP_X87)
			return 0;
	}
	struct x86_xstate xs;
	switch (s->special) {
	case SP_X87:
		if (fetch(st, &xs) < 0)
			return -1;
		resolve_x87(s, &xs, ev);
		return 0;
	case SP_STRING:
		if ((s->mem[0].addr32 ? (uint32_t)r->rcx : r->rcx) == 0)
			return 0;
		for (int i = 0; i < s->n_mem; i++)
			mem_add_access(ev, mem_address(&s->mem[i], insn, r, 0), s->mem[i].size,
				       s->mem[i].access);
		return 0;
	case SP_MASKED:
		if (fetch(st, &xs) < 0)
			return -1;
		resolve_masked(s, insn, r, xs.k[s->mask_k], ev);
		return 0;
	case SP_GATHER:
		if (fetch(st, &xs) < 0)
			return -1;
		resolve_gather(s, insn, r, &xs, ev);
		return 0;
	case SP_BITOFFSET:
		resolve_bit_offset(s, insn, r, ev);
		return 0;
	case SP_XSAVE:
	case SP_XRSTOR:
		if (!s->n_mem)
			return 0;
		return x86_resolve_xsave(s, r, mem_address(&s->mem[0], insn, r, 0), st->xcr0, ev);
	default: /* SP_UNKNOWN: the static lists say everything */
		return 0;
	}
}
