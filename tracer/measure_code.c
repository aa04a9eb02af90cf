/* perpi measure's code in the measured program: the stubs, patched from
 * the templates of measure_stub.S, and each timed function's first
 * instructions, moved next to its stub. A moved instruction keeps its
 * meaning: RIP-relative operands and relative branches are re-aimed at
 * their original targets. */
#include "tracer/measure_code.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/util.h"
#include "tracer/event.h"
#include "tracer/measure_layout.h"
#include "tracer/x86.h"

extern const uint8_t measure_tpl_probe[], measure_tpl_probe_end[];
extern const uint8_t measure_tpl_exit[], measure_tpl_exit_end[];
extern const uint8_t measure_tpl_mark_start[], measure_tpl_mark_start_end[];
extern const uint8_t measure_tpl_mark_stop[], measure_tpl_mark_stop_end[];
extern const uint8_t measure_tpl_misc[], measure_tpl_misc_end[];
extern const uint32_t measure_tpl_offsets[];

/* A mark's patched fields, in the order of measure_tpl_offsets. */
struct mark_offsets {
	uint32_t data, probe, clock, full_rel, jmp_rel;
};

/* The order of measure_tpl_offsets in measure_stub.S. */
struct tpl_offsets {
	uint32_t p_data, p_probe, p_clock1, p_call_rel, p_return, p_clock2, p_tail_rel, p_pass_rel;
	uint32_t x_data, x_full_rel, x_broken;
	struct mark_offsets mark_start, mark_stop;
	uint32_t m_full, m_empty, m_chain, m_outer, m_outer_rel, m_plain, m_calibrate, m_cal_func,
	    m_cal_start, m_cal_stop, m_cal_outer, m_cal_plain, m_cal_done;
};
#define TPL ((const struct tpl_offsets *)measure_tpl_offsets)

#define JUMP_LEN 5 /* jmp rel32 */

/* What relocating one instruction needs to know of it. */
struct insn_info {
	uint8_t len;
	uint8_t control; /* enum perpi_control */
	int8_t rip_disp; /* offset of a RIP-relative disp32, or -1 */
	int8_t branch;	 /* 0 none; 'j' jmp, 'c' call, 'k' jcc (cc below), 'l' loop/jrcxz */
	uint8_t cc;	 /* condition of a jcc */
	uint64_t target; /* of a direct branch */
	char text[96];
};

static int is_legacy_prefix(uint8_t b)
{
	return b == 0x66 || b == 0x67 || b == 0xf0 || b == 0xf2 || b == 0xf3 || b == 0x2e ||
	       b == 0x36 || b == 0x3e || b == 0x26 || b == 0x64 || b == 0x65;
}

/* Where the opcode byte is and in which map (0: one byte, 1: 0F, 2: 0F38,
 * 3: 0F3A, else the VEX/EVEX/XOP map); -1 if the bytes end first. */
static int opcode_at(const uint8_t *b, size_t len, size_t *op, int *map)
{
	size_t i = 0;
	while (i < len && is_legacy_prefix(b[i]))
		i++;
	if (i < len && (b[i] & 0xf0) == 0x40)
		i++;
	if (i >= len)
		return -1;
	int two = i + 1 < len; /* a second byte to look at */
	if (b[i] == 0xc5 && two) {
		*map = 1, i += 2;
	} else if (two && (b[i] == 0xc4 || (b[i] == 0x8f && (b[i + 1] & 0x1f) >= 8))) {
		*map = b[i + 1] & 0x1f, i += 3;
	} else if (two && b[i] == 0x62) {
		*map = b[i + 1] & 0x07, i += 4;
	} else if (two && b[i] == 0x0f) {
		i++;
		*map = b[i] == 0x38 ? 2 : b[i] == 0x3a ? 3 : 1;
		if (*map > 1)
			i++;
	} else {
		*map = 0;
	}
	*op = i;
	return i < len ? 0 : -1;
}

static int64_t rel_value(const uint8_t *b, unsigned len, unsigned size)
{
	if (size == 1)
		return (int8_t)b[len - 1];
	int32_t v;
	memcpy(&v, b + len - 4, 4);
	return v;
}

/* Decode the instruction at addr and find what relocation must fix. */
static int insn_analyse(struct x86_decoder *dec, uint64_t addr, const uint8_t *b, size_t avail,
			struct insn_info *ii)
{
	struct perpi_insn in;
	memset(ii, 0, sizeof(*ii));
	ii->rip_disp = -1;
	if (x86_decode(dec, addr, b, avail, &in) < 0 || in.decoder == DECODER_UNKNOWN)
		return perpi_set_error("%#llx: an instruction perpi cannot decode",
				       (unsigned long long)addr);
	ii->len = in.len;
	ii->control = in.control;
	snprintf(ii->text, sizeof(ii->text), "%s", in.text);
	size_t op;
	int map;
	if (opcode_at(b, in.len, &op, &map) < 0)
		return perpi_set_error("%#llx: %s: cannot find its opcode",
				       (unsigned long long)addr, in.text);
	uint8_t o = b[op];
	int rel = 0;
	if (map == 0 && (o == 0xeb || (o >= 0x70 && o <= 0x7f) || (o >= 0xe0 && o <= 0xe3)))
		rel = 1;
	else if ((map == 0 && (o == 0xe9 || o == 0xe8)) || (map == 1 && (o & 0xf0) == 0x80))
		rel = 4;
	if (rel) {
		if (b[0] == 0x66)
			return perpi_set_error("%#llx: %s: a 16-bit branch",
					       (unsigned long long)addr, in.text);
		ii->target = addr + in.len + rel_value(b, in.len, rel);
		ii->branch = o == 0xe8			? 'c'
			     : (o == 0xeb || o == 0xe9) ? 'j'
			     : o >= 0xe0		? 'l'
							: 'k';
		ii->cc = o & 0x0f;
	} else if (strstr(in.text, "rip")) {
		if (op + 6 > in.len || (b[op + 1] & 0xc7) != 0x05)
			return perpi_set_error(
			    "%#llx: %s: cannot find its RIP-relative displacement",
			    (unsigned long long)addr, in.text);
		ii->rip_disp = (int8_t)(op + 2);
	}
	return 0;
}

static int fits32(int64_t v)
{
	return v >= INT32_MIN && v <= INT32_MAX;
}

static void put_rel32(uint8_t *p, int64_t v)
{
	int32_t r = (int32_t)v;
	memcpy(p, &r, 4);
}

/* The instruction ii (bytes b, at from) as it must read at to; returns
 * its new length, or -1 with perpi_error(). */
static int relocate_one(const struct insn_info *ii, const uint8_t *b, uint64_t from, uint64_t to,
			uint8_t *out)
{
	int n;
	int64_t rel;
	switch (ii->branch) {
	case 'j':
	case 'c':
		out[0] = ii->branch == 'j' ? 0xe9 : 0xe8;
		n = 5;
		rel = (int64_t)(ii->target - (to + 5));
		put_rel32(out + 1, rel);
		break;
	case 'k':
		out[0] = 0x0f, out[1] = 0x80 | ii->cc;
		n = 6;
		rel = (int64_t)(ii->target - (to + 6));
		put_rel32(out + 2, rel);
		break;
	case 'l':
		return perpi_set_error("%#llx: %s: loop and jrcxz are not moved",
				       (unsigned long long)from, ii->text);
	default:
		memcpy(out, b, ii->len);
		n = ii->len;
		rel = 0;
		if (ii->rip_disp >= 0) {
			int32_t d;
			memcpy(&d, b + ii->rip_disp, 4);
			rel = (int64_t)(from + ii->len + d - (to + ii->len));
			put_rel32(out + ii->rip_disp, rel);
		}
	}
	if (!fits32(rel))
		return perpi_set_error("%#llx: %s: its target is out of reach of the stubs",
				       (unsigned long long)from, ii->text);
	return n;
}

/* Direct branches of f landing in (entry, entry + n), or on entry itself
 * other than by a call: such an entry cannot be taken over. */
static int entry_targets(struct x86_decoder *dec, const struct code_function *f, size_t n,
			 int *on_entry, uint64_t *from)
{
	struct insn_info ii;
	*on_entry = 0;
	for (size_t off = 0; off < f->size;) {
		if (insn_analyse(dec, f->entry + off, f->bytes + off, f->avail - off, &ii) < 0) {
			off++; /* data, or padding perpi cannot decode: not code */
			continue;
		}
		if (ii.branch && ii.target >= f->entry && ii.target < f->entry + n &&
		    !(ii.branch == 'c' && ii.target == f->entry)) {
			*from = f->entry + off;
			if (ii.target == f->entry)
				*on_entry = 1;
			return 1;
		}
		off += ii.len;
	}
	return 0;
}

/* How many bytes the jump displaces: whole instructions covering
 * JUMP_LEN; those after a ret or jmp are never run (checked by the scan)
 * and, past the function's end, must be padding. */
static int plan_jump(struct x86_decoder *dec, const struct code_function *f, struct code_patch *p)
{
	struct insn_info ii;
	size_t moved = 0, live = 0;
	int ended = 0;
	while (moved < JUMP_LEN) {
		if (moved >= f->avail)
			return snprintf(p->why, sizeof(p->why), "its code ends at %zu bytes",
					moved),
			       -1;
		if (insn_analyse(dec, f->entry + moved, f->bytes + moved, f->avail - moved, &ii) <
		    0) {
			if (!ended || moved < f->size)
				return snprintf(p->why, sizeof(p->why), "%s", perpi_error()), -1;
			ii.len = 1; /* undecodable padding (zeros) */
		} else if (!ended && ii.branch == 'l') {
			return snprintf(p->why, sizeof(p->why),
					"it starts with a loop instruction"),
			       -1;
		}
		moved += ii.len;
		if (!ended)
			live = moved;
		ended |= ii.control == CTRL_RET || (ii.control == CTRL_JUMP);
	}
	if (moved > f->size &&
	    !f->padding_ok(f->ctx, f->entry + (f->size > live ? f->size : live), f->entry + moved))
		return snprintf(p->why, sizeof(p->why),
				"it is %zu bytes long and another function follows it", f->size),
		       -1;
	int on_entry;
	uint64_t from;
	if (entry_targets(dec, f, moved, &on_entry, &from))
		return snprintf(p->why, sizeof(p->why),
				"a jump at %#llx lands in its first %zu bytes",
				(unsigned long long)from, moved),
		       -1;
	p->kind = ENTRY_JUMP;
	p->len = moved;
	p->moved = live;
	return 0;
}

int code_plan_entry(struct x86_decoder *dec, const struct code_function *f, int want,
		    struct code_patch *p)
{
	memset(p, 0, sizeof(*p));
	memcpy(p->orig, f->bytes, f->avail < sizeof(p->orig) ? f->avail : sizeof(p->orig));
	int on_entry;
	uint64_t from;
	if (entry_targets(dec, f, 1, &on_entry, &from))
		return perpi_set_error("%s: the jump at %#llx goes back to its first instruction "
				       "(a loop head or a tail call): its calls cannot be told "
				       "from that loop's turns; time its caller instead",
				       f->name, (unsigned long long)from);
	if (want == ENTRY_JUMP && plan_jump(dec, f, p) == 0)
		return 0;
	struct insn_info ii;
	if (insn_analyse(dec, f->entry, f->bytes, f->avail, &ii) < 0)
		return perpi_set_error("%s: %s", f->name, perpi_error());
	if (ii.branch == 'l')
		return perpi_set_error("%s: it starts with a loop instruction", f->name);
	p->kind = ENTRY_BREAKPOINT;
	p->len = 1;
	p->moved = ii.len;
	return 0;
}

void code_plan_call_sites(const struct code_function *f, struct code_patch *p)
{
	memset(p, 0, sizeof(*p));
	p->kind = ENTRY_CALL_SITES;
}

size_t code_call_sites(struct x86_decoder *dec, uint64_t addr, const uint8_t *bytes, size_t size,
		       uint64_t target, uint64_t *out, size_t max)
{
	size_t n = 0;
	struct insn_info ii;
	for (size_t off = 0; off < size;) {
		if (insn_analyse(dec, addr + off, bytes + off, size - off, &ii) < 0) {
			off++;
			continue;
		}
		uint8_t op = bytes[off + ii.len - 5];
		if ((ii.branch == 'c' || ii.branch == 'j') && ii.target == target && ii.len >= 5 &&
		    (op == 0xe8 || op == 0xe9)) {
			if (n < max)
				out[n] = addr + off + ii.len;
			n++;
		}
		off += ii.len;
	}
	return n;
}

static void page_reserve(struct code_page *c, size_t more)
{
	if (c->len + more <= c->cap)
		return;
	while (c->len + more > c->cap)
		c->cap = c->cap ? 2 * c->cap : 4096;
	c->buf = xrealloc(c->buf, c->cap);
}

/* Appends n bytes at a 16-byte boundary; returns their offset. */
static size_t page_put(struct code_page *c, const uint8_t *bytes, size_t n)
{
	page_reserve(c, n + 16);
	while (c->len % 16)
		c->buf[c->len++] = 0xcc;
	size_t at = c->len;
	memcpy(c->buf + at, bytes, n);
	c->len += n;
	return at;
}

static void patch_rel32(struct code_page *c, size_t field, uint64_t target)
{
	put_rel32(c->buf + field, (int64_t)(target - (c->base + field + 4)));
}

static void patch_clock(const struct code_page *c, uint8_t *slot)
{
	if (!c->cycles_counter)
		return; /* the template's rdtsc */
	slot[0] = 0xb9;
	memcpy(slot + 1, &c->counter_index, 4);
	slot[5] = 0x0f, slot[6] = 0x33;
}

static size_t stub_size(int kind)
{
	if (kind == STUB_MARK_START)
		return measure_tpl_mark_start_end - measure_tpl_mark_start;
	if (kind == STUB_MARK_STOP)
		return measure_tpl_mark_stop_end - measure_tpl_mark_stop;
	return measure_tpl_probe_end - measure_tpl_probe;
}

size_t code_page_size(size_t n_probes)
{
	size_t stub = stub_size(STUB_CALL);
	if (stub_size(STUB_MARK_START) > stub)
		stub = stub_size(STUB_MARK_START);
	if (stub_size(STUB_MARK_STOP) > stub)
		stub = stub_size(STUB_MARK_STOP);
	size_t n =
	    (measure_tpl_exit_end - measure_tpl_exit) + (measure_tpl_misc_end - measure_tpl_misc) +
	    32 +
	    (n_probes + CAL_PROBES) * (stub + sizeof(((struct code_patch *)0)->displaced) + 16);
	return (n + 4095) & ~(size_t)4095;
}

void code_page_init(struct code_page *c, uint64_t base, uint64_t data, int cycles_counter,
		    uint32_t counter_index)
{
	memset(c, 0, sizeof(*c));
	c->base = base;
	c->data = data;
	c->cycles_counter = cycles_counter;
	c->counter_index = counter_index;
	size_t x = page_put(c, measure_tpl_exit, measure_tpl_exit_end - measure_tpl_exit);
	memcpy(c->buf + x + TPL->x_data, &data, 8);
	c->exit = base + x;
	size_t m = page_put(c, measure_tpl_misc, measure_tpl_misc_end - measure_tpl_misc);
	c->misc = base + m;
	patch_rel32(c, x + TPL->x_full_rel, c->misc + TPL->m_full);
}

void code_page_done(struct code_page *c)
{
	free(c->buf);
	memset(c, 0, sizeof(*c));
}

/* The displaced code right after the stub at s. */
static size_t put_displaced(struct code_page *c, const uint8_t *displaced, size_t n)
{
	page_reserve(c, n);
	size_t d = c->len;
	memcpy(c->buf + d, displaced, n);
	c->len += n;
	return d;
}

static size_t add_mark(struct code_page *c, int kind, uint32_t id, const uint8_t *displaced,
		       size_t n)
{
	const struct mark_offsets *o = kind == STUB_MARK_START ? &TPL->mark_start : &TPL->mark_stop;
	size_t s =
	    page_put(c, kind == STUB_MARK_START ? measure_tpl_mark_start : measure_tpl_mark_stop,
		     stub_size(kind));
	uint8_t *b = c->buf + s;
	memcpy(b + o->data, &c->data, 8);
	memcpy(b + o->probe, &id, 4);
	patch_clock(c, b + o->clock);
	size_t d = put_displaced(c, displaced, n);
	patch_rel32(c, s + o->full_rel, c->misc + TPL->m_full);
	patch_rel32(c, s + o->jmp_rel, c->base + d);
	return s;
}

/* A probe's stub, its displaced code (already relocated for right after
 * the stub) appended; returns the stub's offset. */
static size_t add_stub(struct code_page *c, int kind, uint32_t id, const uint8_t *displaced,
		       size_t n)
{
	if (kind != STUB_CALL)
		return add_mark(c, kind, id, displaced, n);
	size_t s = page_put(c, measure_tpl_probe, stub_size(kind));
	uint8_t *b = c->buf + s;
	memcpy(b + TPL->p_data, &c->data, 8);
	memcpy(b + TPL->p_probe, &id, 4);
	patch_clock(c, b + TPL->p_clock1);
	patch_clock(c, b + TPL->p_clock2);
	size_t d = put_displaced(c, displaced, n);
	patch_rel32(c, s + TPL->p_call_rel, c->base + d);
	patch_rel32(c, s + TPL->p_pass_rel, c->base + d);
	patch_rel32(c, s + TPL->p_tail_rel, c->exit);
	return s;
}

/* Where the displaced code of the next stub will start. */
static uint64_t next_displaced(const struct code_page *c, int kind)
{
	size_t at = (c->len + 15) / 16 * 16;
	return c->base + at + stub_size(kind);
}

int code_add_probe(struct code_page *c, struct x86_decoder *dec, int kind, uint32_t id,
		   const struct code_function *f, struct code_patch *p)
{
	uint64_t to = next_displaced(c, kind);
	size_t n = 0;
	for (size_t off = 0; off < p->moved;) {
		struct insn_info ii;
		if (insn_analyse(dec, f->entry + off, f->bytes + off, f->avail - off, &ii) < 0)
			return -1;
		if (n + 16 > sizeof(p->displaced) - JUMP_LEN)
			return perpi_set_error("%s: too many instructions to move", f->name);
		int k = relocate_one(&ii, f->bytes + off, f->entry + off, to + n, p->displaced + n);
		if (k < 0)
			return perpi_set_error("%s: %s", f->name, perpi_error());
		n += k;
		off += ii.len;
	}
	int64_t back = (int64_t)(f->entry + p->moved - (to + n + JUMP_LEN));
	if (!fits32(back))
		return perpi_set_error("%s: out of reach of the stubs", f->name);
	p->displaced[n] = 0xe9;
	put_rel32(p->displaced + n + 1, back);
	p->displaced_len = n + JUMP_LEN;
	size_t s = add_stub(c, kind, id, p->displaced, p->displaced_len);
	p->stub = c->base + s;
	if (p->kind == ENTRY_CALL_SITES)
		return 0;
	if (p->kind == ENTRY_BREAKPOINT) {
		p->bytes[0] = 0xcc;
		return 0;
	}
	int64_t jump = (int64_t)(p->stub - (f->entry + JUMP_LEN));
	if (!fits32(jump))
		return perpi_set_error("%s: out of reach of the stubs", f->name);
	memset(p->bytes, 0xcc, p->len); /* displaced bytes nothing jumps to */
	p->bytes[0] = 0xe9;
	put_rel32(p->bytes + 1, jump);
	return 0;
}

/* A calibration probe whose "function" is at target in the page. */
static uint64_t add_calibration_probe(struct code_page *c, int kind, uint32_t id, uint64_t target)
{
	uint8_t jmp[JUMP_LEN] = {0xe9};
	put_rel32(jmp + 1, (int64_t)(target - (next_displaced(c, kind) + JUMP_LEN)));
	return c->base + add_stub(c, kind, id, jmp, sizeof(jmp));
}

int code_add_calibration(struct code_page *c)
{
	uint64_t empty = c->misc + TPL->m_empty, chain = c->misc + TPL->m_chain;
	uint64_t func = add_calibration_probe(c, STUB_CALL, CAL_PROBE_FUNC, chain);
	uint64_t start = add_calibration_probe(c, STUB_MARK_START, CAL_PROBE_START, empty);
	uint64_t stop = add_calibration_probe(c, STUB_MARK_STOP, CAL_PROBE_STOP, empty);
	uint64_t outer =
	    add_calibration_probe(c, STUB_CALL, CAL_PROBE_OUTER, c->misc + TPL->m_outer);
	uint64_t plain =
	    add_calibration_probe(c, STUB_CALL, CAL_PROBE_PLAIN, c->misc + TPL->m_plain);
	size_t m = c->misc - c->base;
	patch_rel32(c, m + TPL->m_outer_rel, func);
	patch_rel32(c, m + TPL->m_cal_func, func);
	patch_rel32(c, m + TPL->m_cal_start, start);
	patch_rel32(c, m + TPL->m_cal_stop, stop);
	patch_rel32(c, m + TPL->m_cal_outer, outer);
	patch_rel32(c, m + TPL->m_cal_plain, plain);
	return 0;
}

uint64_t code_syscall_gadget(const struct code_page *c)
{
	return c->misc;
}

uint64_t code_calibrate_entry(const struct code_page *c)
{
	return c->misc + TPL->m_calibrate;
}

uint64_t code_calibrate_done(const struct code_page *c)
{
	return c->misc + TPL->m_cal_done + 1;
}

uint64_t code_buffer_full(const struct code_page *c)
{
	return c->misc + TPL->m_full + 1;
}

uint64_t code_lost_return(const struct code_page *c)
{
	return c->exit + TPL->x_broken;
}
