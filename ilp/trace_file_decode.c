/* perpi.data reader, inside the chunks: strings, static instructions and
 * the delta-coded events of EVTS chunks (perpi.data(5)), and the lookups
 * of the static instructions read so far. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/util.h"
#include "ilp/trace_codec.h"
#include "ilp/trace_reader.h"

char *trace_get_string(const uint8_t **p, const uint8_t *end)
{
	uint64_t n;
	if (trace_get_varint(p, end, &n) < 0 || n > (uint64_t)(end - *p))
		return NULL;
	char *s = xmalloc(n + 1);
	memcpy(s, *p, n);
	s[n] = 0;
	*p += n;
	return s;
}

static size_t addr_hash(uint64_t a, size_t cap)
{
	return (size_t)((a * 0x9e3779b97f4a7c15ull) >> 20) & (cap - 1);
}

static void addr_insert(struct trace_reader *r, struct rinsn *ri)
{
	if (2 * (r->n_addr + 1) > r->cap_addr) {
		size_t old = r->cap_addr;
		struct rinsn **tab = r->by_addr;
		r->cap_addr = old ? 2 * old : 1024;
		r->by_addr = xcalloc(r->cap_addr, sizeof(*r->by_addr));
		r->n_addr = 0;
		for (size_t i = 0; i < old; i++)
			if (tab[i])
				addr_insert(r, tab[i]);
		free(tab);
	}
	size_t h = addr_hash(ri->insn.addr, r->cap_addr);
	while (r->by_addr[h]) {
		if (r->by_addr[h]->insn.addr == ri->insn.addr)
			return; /* code rewritten at the same address: keep the first */
		h = (h + 1) & (r->cap_addr - 1);
	}
	r->by_addr[h] = ri;
	r->n_addr++;
}

const struct perpi_insn *trace_reader_insn_at(const struct trace_reader *r, uint64_t addr)
{
	if (!r->cap_addr)
		return NULL;
	for (size_t h = addr_hash(addr, r->cap_addr); r->by_addr[h];
	     h = (h + 1) & (r->cap_addr - 1))
		if (r->by_addr[h]->insn.addr == addr)
			return &r->by_addr[h]->insn;
	return NULL;
}

/* insn points into a struct rinsn owned by this reader. */
static const struct rinsn *rinsn_of(const struct perpi_insn *insn)
{
	return (const struct rinsn *)insn;
}

const char *trace_reader_function(const struct trace_reader *r, const struct perpi_insn *insn,
				  uint64_t *offset)
{
	const struct rinsn *ri = rinsn_of(insn);
	if (offset)
		*offset = ri->fn_offset;
	return ri->fn ? r->strings[ri->fn - 1] : NULL;
}

int trace_reader_source_line(const struct trace_reader *r, const struct perpi_insn *insn,
			     const char **file, unsigned *line)
{
	const struct rinsn *ri = rinsn_of(insn);
	if (!ri->file)
		return -1;
	*file = r->strings[ri->file - 1];
	*line = ri->line;
	return 0;
}

int trace_reader_has_function(const struct trace_reader *r, const char *name)
{
	for (size_t i = 0; i < r->n_defined; i++)
		if (r->defined[i]->fn && !strcmp(r->strings[r->defined[i]->fn - 1], name))
			return 1;
	return 0;
}

static int add_string(struct trace_reader *r, const uint8_t **p, const uint8_t *end)
{
	char *s = trace_get_string(p, end);
	if (!s)
		return trace_reader_corrupt(r, "bad string record");
	if (r->n_strings == r->cap_strings) {
		r->cap_strings = r->cap_strings ? 2 * r->cap_strings : 64;
		r->strings = xrealloc(r->strings, r->cap_strings * sizeof(*r->strings));
	}
	r->strings[r->n_strings++] = s;
	return 0;
}

static int add_insn(struct trace_reader *r, const uint8_t **pp, const uint8_t *end)
{
	const uint8_t *p = *pp;
	uint64_t id, addr, tlen, fn, off, file, line;
	struct rinsn *ri = xcalloc(1, sizeof(*ri));
	struct perpi_insn *in = &ri->insn;
	if (trace_get_varint(&p, end, &id) < 0 || id >= (1u << 24) ||
	    trace_get_varint(&p, end, &addr) < 0 || p >= end || *p > sizeof(in->bytes) ||
	    end - p < 4 + *p)
		goto bad;
	in->id = (uint32_t)id;
	in->addr = addr;
	in->len = *p++;
	memcpy(in->bytes, p, in->len);
	p += in->len;
	in->klass = *p++;
	in->control = *p++;
	in->decoder = *p++;
	if (in->klass >= CLASS_COUNT || in->control > CTRL_OTHER || in->decoder > DECODER_UNKNOWN)
		goto bad;
	if (trace_get_varint(&p, end, &tlen) < 0 || tlen >= sizeof(in->text) ||
	    tlen > (uint64_t)(end - p))
		goto bad;
	memcpy(in->text, p, tlen);
	p += tlen;
	if (trace_get_varint(&p, end, &fn) < 0 || trace_get_varint(&p, end, &off) < 0 ||
	    trace_get_varint(&p, end, &file) < 0 || trace_get_varint(&p, end, &line) < 0 ||
	    fn > r->n_strings || file > r->n_strings || line > UINT32_MAX)
		goto bad;
	ri->fn = (uint32_t)fn;
	ri->fn_offset = off;
	ri->file = (uint32_t)file;
	ri->line = (unsigned)line;
	if (id >= r->n_insns) {
		size_t n = r->n_insns ? r->n_insns : 1024;
		while (n <= id)
			n *= 2;
		r->insns = xrealloc(r->insns, n * sizeof(*r->insns));
		memset(r->insns + r->n_insns, 0, (n - r->n_insns) * sizeof(*r->insns));
		r->n_insns = n;
	}
	if (r->insns[id]) {
		free(ri);
		return trace_reader_corrupt(r, "instruction defined twice");
	}
	r->insns[id] = ri;
	if (r->n_defined == r->cap_defined) {
		r->cap_defined = r->cap_defined ? 2 * r->cap_defined : 1024;
		r->defined = xrealloc(r->defined, r->cap_defined * sizeof(*r->defined));
	}
	r->defined[r->n_defined++] = ri;
	addr_insert(r, ri);
	*pp = p;
	return 0;
bad:
	free(ri);
	return trace_reader_corrupt(r, "bad instruction record");
}

static int decode_units(struct trace_reader *r, struct rinsn *ri, const uint8_t **pp,
			const uint8_t *end)
{
	const uint8_t *p = *pp;
	struct perpi_event *ev = &r->ev;
	if (p >= end || *p > UNIT_COUNT || end - p < 1 + *p)
		return trace_reader_corrupt(r, "bad source units");
	ev->n_src = *p++;
	memcpy(ev->src, p, ev->n_src);
	p += ev->n_src;
	if (p >= end || *p > UNIT_COUNT || end - p < 1 + *p)
		return trace_reader_corrupt(r, "bad destination units");
	ev->n_dst = *p++;
	memcpy(ev->dst, p, ev->n_dst);
	p += ev->n_dst;
	for (unsigned i = 0; i < ev->n_src + ev->n_dst; i++)
		if ((i < ev->n_src ? ev->src[i] : ev->dst[i - ev->n_src]) >= UNIT_COUNT)
			return trace_reader_corrupt(r, "unit out of range");
	free(ri->units);
	ri->units = xmalloc(ev->n_src + ev->n_dst + 1);
	memcpy(ri->units, ev->src, ev->n_src);
	memcpy(ri->units + ev->n_src, ev->dst, ev->n_dst);
	ri->n_src = ev->n_src;
	ri->n_dst = ev->n_dst;
	ri->has_units = 1;
	*pp = p;
	return 0;
}

static int decode_mem_shape(struct trace_reader *r, struct rinsn *ri, const uint8_t **p,
			    const uint8_t *end)
{
	uint64_t n, size;
	if (trace_get_varint(p, end, &n) < 0 || n > EVENT_MAX_MEM)
		return trace_reader_corrupt(r, "bad memory access count");
	if (n > ri->cap_mem) {
		ri->mem = xrealloc(ri->mem, n * sizeof(*ri->mem));
		memset(ri->mem + ri->cap_mem, 0, (n - ri->cap_mem) * sizeof(*ri->mem));
		ri->cap_mem = (uint16_t)n;
	}
	ri->n_mem = (uint16_t)n;
	for (unsigned i = 0; i < n; i++) {
		if (trace_get_varint(p, end, &size) < 0 || *p >= end || **p > 1)
			return trace_reader_corrupt(r, "bad memory access");
		if (size > EVENT_MAX_ACCESS) { /* fuzz/fuzz_trace_file: 1.3 GB of shadow */
			char what[80];
			snprintf(what, sizeof(what), "a memory access of %llu bytes (at most %d)",
				 (unsigned long long)size, EVENT_MAX_ACCESS);
			return trace_reader_corrupt(r, what);
		}
		ri->mem[i].size = (uint32_t)size;
		ri->mem[i].write = *(*p)++;
	}
	return 0;
}

static int decode_event(struct trace_reader *r, const uint8_t **pp, const uint8_t *end)
{
	const uint8_t *p = *pp;
	uint8_t h = *p++;
	uint64_t v;
	int64_t id = (int64_t)r->prev_id + 1;
	struct perpi_event *ev = &r->ev;
	if (h & TRACE_EV_RESERVED)
		return trace_reader_corrupt(r, "bad event header");
	if (!(h & TRACE_EV_ID_NEXT)) {
		if (trace_get_varint(&p, end, &v) < 0)
			return trace_reader_corrupt(r, "bad instruction id");
		id += trace_unzigzag(v);
	}
	id &= 0xffffffff;
	if (id >= (int64_t)r->n_insns || !r->insns[id])
		return trace_reader_corrupt(r, "event of an undefined instruction");
	struct rinsn *ri = r->insns[id];
	ev->insn = &ri->insn;
	if (h & TRACE_EV_SP) {
		if (trace_get_varint(&p, end, &v) < 0)
			return trace_reader_corrupt(r, "bad stack pointer");
		r->prev_sp += (uint64_t)trace_unzigzag(v);
	}
	ev->sp = r->prev_sp;
	ev->flags = 0;
	if (h & TRACE_EV_FLAGS) {
		if (trace_get_varint(&p, end, &v) < 0 || v > UINT16_MAX)
			return trace_reader_corrupt(r, "bad event flags");
		ev->flags = (uint16_t)v;
	}
	if (h & TRACE_EV_UNITS_SAME) {
		if (!ri->has_units)
			return trace_reader_corrupt(r, "units repeated before any were given");
		if (ev->insn != r->ev_units_of) {
			ev->n_src = ri->n_src;
			ev->n_dst = ri->n_dst;
			memcpy(ev->src, ri->units, ri->n_src);
			memcpy(ev->dst, ri->units + ri->n_src, ri->n_dst);
		}
	} else if (decode_units(r, ri, &p, end) < 0) {
		return -1;
	}
	r->ev_units_of = ev->insn;
	if (!(h & TRACE_EV_MEM_SAME) && decode_mem_shape(r, ri, &p, end) < 0)
		return -1;
	ev->n_mem = ri->n_mem;
	for (unsigned i = 0; i < ri->n_mem; i++) {
		if (trace_get_varint(&p, end, &v) < 0)
			return trace_reader_corrupt(r, "bad memory address");
		ri->mem[i].addr += (uint64_t)trace_unzigzag(v);
		ev->mem[i] = ri->mem[i];
	}
	r->prev_id = (uint32_t)id;
	*pp = p;
	return 0;
}

/* Decodes one EVTS chunk; 1 if fn asked to stop. */
int trace_reader_decode_chunk(struct trace_reader *r, const uint8_t *p, const uint8_t *end,
			      perpi_event_fn fn, void *ctx)
{
	while (p < end) {
		int rc;
		if (*p == TRACE_REC_STRING) {
			p++;
			rc = add_string(r, &p, end);
		} else if (*p == TRACE_REC_INSN) {
			p++;
			rc = add_insn(r, &p, end);
		} else if (*p < 0x80) {
			rc = decode_event(r, &p, end);
			if (!rc) {
				r->events++;
				if (fn(ctx, &r->ev))
					return 1;
			}
		} else {
			rc = trace_reader_corrupt(r, "unknown record type");
		}
		if (rc < 0)
			return -1;
	}
	return 0;
}
