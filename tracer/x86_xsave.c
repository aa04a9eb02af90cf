/* The XSAVE area: its layout (CPUID leaf 0xD, asked in perpi's own
 * process, which runs on the same CPU as the tracee), the units and bytes
 * of the xsave/xrstor family, and the parser of the NT_X86_XSTATE regset
 * that the kernel writes in the standard (non-compacted) format. */
#include <cpuid.h>
#include <string.h>

#include "common/util.h"
#include "tracer/x86_sem.h"

enum { XSAVE_HEADER = 512, XSAVE_LEGACY = 512, XSAVE_EXT = 576 };

static uint64_t read_xcr0(void)
{
	unsigned a, b, c, d;
	if (!__get_cpuid(1, &a, &b, &c, &d) || !(c & (1u << 27)))
		return 3; /* no OSXSAVE: x87 and SSE only */
	uint32_t lo, hi;
	__asm__ volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
	return (uint64_t)hi << 32 | lo;
}

const struct x86_xsave_layout *x86_xsave_layout(void)
{
	static struct x86_xsave_layout l;
	static int done;
	if (done)
		return &l;
	l.xcr0 = read_xcr0();
	l.offset[0] = 0, l.size[0] = 160;
	l.offset[1] = 160, l.size[1] = 256;
	for (int i = 2; i < 32; i++) {
		unsigned a = 0, b = 0, c = 0, d = 0;
		if (!(l.xcr0 >> i & 1))
			continue;
		__cpuid_count(0xd, i, a, b, c, d);
		l.size[i] = a;
		l.offset[i] = b;
		l.align64[i] = c >> 1 & 1;
	}
	done = 1;
	return &l;
}

struct unit_span {
	int unit, count, stride;
};

/* Registers of each state component (DESIGN.md units). */
static const struct unit_span component_units[8][3] = {
    [0] = {{UNIT_X87, 8, 1}, {UNIT_FPSW, 1, 1}, {UNIT_FPCW, 1, 1}},
    [1] = {{UNIT_VEC, 16, 3}, {UNIT_MXCSR, 1, 1}},
    [2] = {{UNIT_VEC + 1, 16, 3}},
    [5] = {{UNIT_K, 8, 1}},
    [6] = {{UNIT_VEC + 2, 16, 3}},
    [7] = {{UNIT_VEC + 48, 48, 1}},
};

static void add_units(uint8_t *units, uint8_t *n, uint64_t *seen, int comp)
{
	for (int s = 0; s < 3; s++) {
		const struct unit_span *sp = &component_units[comp][s];
		for (int i = 0; i < sp->count; i++) {
			int u = sp->unit + i * sp->stride;
			if (!sp->count || (seen[u / 64] >> (u % 64) & 1))
				continue;
			seen[u / 64] |= 1ull << (u % 64);
			units[(*n)++] = (uint8_t)u;
		}
	}
}

static void mem_push(struct perpi_event *ev, uint64_t addr, uint32_t size, int write)
{
	if (ev->n_mem >= EVENT_MAX_MEM)
		return;
	ev->mem[ev->n_mem].addr = addr;
	ev->mem[ev->n_mem].size = size;
	ev->mem[ev->n_mem].write = (uint8_t)write;
	ev->n_mem++;
}

int x86_resolve_xsave(const struct x86_sem *s, const struct user_regs_struct *r, uint64_t base,
		      uint64_t xcr0, struct perpi_event *ev)
{
	const struct x86_xsave_layout *l = x86_xsave_layout();
	int save = s->special == SP_XSAVE;
	uint64_t rfbm = s->xsave_kind == 2
			    ? 3
			    : ((r->rdx & 0xffffffffu) << 32 | (r->rax & 0xffffffffu)) &
				  (xcr0 ? xcr0 & l->xcr0 : l->xcr0);
	uint64_t seen[3] = {0};
	uint8_t *units = save ? ev->src : ev->dst, *n = save ? &ev->n_src : &ev->n_dst;
	for (int i = 0; i < *n; i++)
		seen[units[i] / 64] |= 1ull << (units[i] % 64);
	uint32_t next = XSAVE_EXT; /* compacted format: components packed in order */
	for (int c = 0; c < 8; c++) {
		if (!(rfbm >> c & 1))
			continue;
		add_units(units, n, seen, c);
		if (c == 0) {
			mem_push(ev, base, 24, save);
			mem_push(ev, base + 32, 128, save);
		} else if (c == 1) {
			mem_push(ev, base + 24, 8, save);
			mem_push(ev, base + 160, 256, save);
		} else {
			uint32_t off = l->offset[c];
			if (s->xsave_kind == 1) {
				if (l->align64[c])
					next = (next + 63) & ~63u;
				off = next;
				next += l->size[c];
			}
			mem_push(ev, base + off, l->size[c], save);
		}
	}
	if (s->xsave_kind != 2)
		mem_push(ev, base + XSAVE_HEADER, save ? (s->xsave_kind == 1 ? 16 : 8) : 64, save);
	return 0;
}

static uint64_t le64(const uint8_t *p)
{
	uint64_t v;
	memcpy(&v, p, 8);
	return v;
}

int x86_xstate_parse(const uint8_t *xsave, size_t len, struct x86_xstate *out)
{
	memset(out, 0, sizeof(*out));
	if (len < XSAVE_LEGACY)
		return perpi_set_error("x86 xstate: %zu bytes is shorter than the legacy area",
				       len);
	memcpy(&out->fsw, xsave + 2, 2);
	out->ftw = xsave[4];
	for (int i = 0; i < 16; i++)
		memcpy(out->zmm[i], xsave + 160 + 16 * i, 16);
	if (len < XSAVE_EXT)
		return 0;
	const struct x86_xsave_layout *l = x86_xsave_layout();
	uint64_t bv = le64(xsave + XSAVE_HEADER);
	for (int c = 2; c < 8; c++) {
		uint32_t off = l->offset[c];
		if (!(bv >> c & 1) || !off || off + l->size[c] > len)
			continue; /* initial state: zeros */
		const uint8_t *p = xsave + off;
		for (int i = 0; i < 16 && c == 2; i++)
			memcpy(out->zmm[i] + 16, p + 16 * i, 16);
		for (int i = 0; i < 8 && c == 5; i++)
			out->k[i] = le64(p + 8 * i);
		for (int i = 0; i < 16 && c == 6; i++)
			memcpy(out->zmm[i] + 32, p + 32 * i, 32);
		for (int i = 0; i < 16 && c == 7; i++)
			memcpy(out->zmm[16 + i], p + 64 * i, 64);
	}
	return 0;
}
