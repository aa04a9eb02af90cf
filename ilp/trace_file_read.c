/* perpi.data reader: checks the header, then streams chunk by chunk,
 * verifying each chunk's length and CRC before decoding it. Memory is one
 * chunk plus the static instructions, whatever the number of events. */
#define _GNU_SOURCE /* sigabbrev_np */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/util.h"
#include "ilp/trace_codec.h"
#include "ilp/trace_file.h"

struct rinsn {
	struct perpi_insn insn; /* first: the events point here */
	uint64_t fn_offset;
	uint32_t fn, file; /* string id + 1, 0 = unknown */
	unsigned line;
	uint8_t has_units, n_src, n_dst;
	uint8_t *units;
	uint16_t n_mem, cap_mem;
	struct perpi_mem_access *mem;
};

struct trace_reader {
	FILE *fp;
	char *path;
	uint64_t pos;		       /* file offset, for messages */
	struct trace_meta_entry *meta; /* strings owned */
	size_t n_meta;
	uint8_t *chunk;
	size_t cap_chunk;
	struct rinsn **insns; /* by id */
	size_t n_insns;
	struct rinsn **by_addr; /* open addressing, power of two */
	size_t cap_addr, n_addr;
	char **strings;
	size_t n_strings, cap_strings;
	uint32_t prev_id;
	uint64_t prev_sp, events;
	struct trace_end end;
	int replayed, ended;
	struct perpi_event ev;
	const struct perpi_insn *ev_units_of; /* whose units ev.src/dst hold */
};

static int corrupt(struct trace_reader *r, const char *what)
{
	return perpi_set_error("%s: corrupt trace file at byte %llu: %s", r->path,
			       (unsigned long long)r->pos, what);
}

/* Reads exactly n bytes; -1 with a "truncated" message at end of file. */
static int read_exact(struct trace_reader *r, void *buf, size_t n, const char *what)
{
	size_t got = fread(buf, 1, n, r->fp);
	if (got != n) {
		if (ferror(r->fp))
			return perpi_set_error("%s: read error: %s", r->path, strerror(errno));
		return perpi_set_error(
		    "%s: truncated file: ends inside %s at byte %llu "
		    "(the recording was cut short or the file was copied partly)",
		    r->path, what, (unsigned long long)(r->pos + got));
	}
	r->pos += n;
	return 0;
}

static char *get_string(const uint8_t **p, const uint8_t *end)
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

static int parse_meta(struct trace_reader *r, const uint8_t *p, const uint8_t *end)
{
	uint64_t n;
	if (trace_get_varint(&p, end, &n) < 0 || n > (uint64_t)(end - p))
		return corrupt(r, "bad metadata count");
	r->meta = xcalloc(n, sizeof(*r->meta));
	for (; r->n_meta < n; r->n_meta++) {
		char *k = get_string(&p, end), *v = k ? get_string(&p, end) : NULL;
		if (!v) {
			free(k);
			return corrupt(r, "bad metadata entry");
		}
		r->meta[r->n_meta].key = k;
		r->meta[r->n_meta].value = v;
	}
	return p == end ? 0 : corrupt(r, "trailing bytes in metadata");
}

static int check_meta_number(struct trace_reader *r, const char *key, long want, const char *what)
{
	const char *v = trace_reader_meta(r, key);
	if (!v)
		return perpi_set_error("%s: header has no '%s' entry: not a trace this perpi wrote",
				       r->path, key);
	if (strtol(v, NULL, 10) != want)
		return perpi_set_error("%s: recorded with %s %s, this perpi has %ld: "
				       "record it again with this perpi",
				       r->path, v, what, want);
	return 0;
}

static int read_header(struct trace_reader *r)
{
	uint8_t magic[TRACE_MAGIC_LEN], fixed[8], crc[4];
	size_t got = fread(magic, 1, sizeof(magic), r->fp);
	if (got != sizeof(magic) || memcmp(magic, TRACE_MAGIC, TRACE_MAGIC_LEN))
		return perpi_set_error("%s: not a perpi trace file (no PERPIDAT magic); "
				       "make one with 'perpi record'",
				       r->path);
	r->pos = got;
	if (read_exact(r, fixed, 8, "the header") < 0)
		return -1;
	uint32_t version = trace_get_u32(fixed), len = trace_get_u32(fixed + 4);
	if (version != TRACE_FILE_VERSION)
		return perpi_set_error("%s: trace format version %u; this perpi reads version %d",
				       r->path, version, TRACE_FILE_VERSION);
	if (len > TRACE_CHUNK_MAX)
		return corrupt(r, "metadata too long");
	uint8_t *buf = xmalloc(len + 8);
	memcpy(buf, fixed, 8);
	int rc = read_exact(r, buf + 8, len, "the header");
	if (!rc)
		rc = read_exact(r, crc, 4, "the header");
	if (!rc && trace_crc32(0, buf, len + 8) != trace_get_u32(crc))
		rc = corrupt(r, "header checksum mismatch");
	if (!rc)
		rc = parse_meta(r, buf + 8, buf + 8 + len);
	free(buf);
	if (!rc)
		rc = check_meta_number(r, "units", UNIT_COUNT, "dependency units");
	if (!rc)
		rc = check_meta_number(r, "classes", CLASS_COUNT, "instruction classes");
	return rc;
}

struct trace_reader *trace_reader_open(const char *path)
{
	FILE *fp = fopen(path, "rb");
	if (!fp) {
		perpi_set_error("cannot open %s: %s%s", path, strerror(errno),
				errno == ENOENT ? " (make it with 'perpi record')" : "");
		return NULL;
	}
	struct trace_reader *r = xcalloc(1, sizeof(*r));
	r->fp = fp;
	r->path = xstrdup(path);
	r->prev_id = UINT32_MAX;
	setvbuf(fp, NULL, _IOFBF, 1 << 20);
	if (read_header(r) < 0) {
		trace_reader_close(r);
		return NULL;
	}
	return r;
}

void trace_reader_close(struct trace_reader *r)
{
	if (!r)
		return;
	fclose(r->fp);
	for (size_t i = 0; i < r->n_meta; i++) {
		free((char *)r->meta[i].key);
		free((char *)r->meta[i].value);
	}
	for (size_t i = 0; i < r->n_insns; i++)
		if (r->insns[i]) {
			free(r->insns[i]->units);
			free(r->insns[i]->mem);
			free(r->insns[i]);
		}
	for (size_t i = 0; i < r->n_strings; i++)
		free(r->strings[i]);
	free(r->strings);
	free(r->insns);
	free(r->by_addr);
	free(r->meta);
	free(r->chunk);
	free(r->path);
	free(r);
}

const char *trace_reader_meta(const struct trace_reader *r, const char *key)
{
	for (size_t i = 0; i < r->n_meta; i++)
		if (!strcmp(r->meta[i].key, key))
			return r->meta[i].value;
	return NULL;
}

size_t trace_reader_meta_all(const struct trace_reader *r, const struct trace_meta_entry **out)
{
	*out = r->meta;
	return r->n_meta;
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
	for (size_t i = 0; i < r->n_insns; i++)
		if (r->insns[i] && r->insns[i]->fn &&
		    !strcmp(r->strings[r->insns[i]->fn - 1], name))
			return 1;
	return 0;
}

const struct trace_end *trace_reader_end(const struct trace_reader *r)
{
	return r->ended ? &r->end : NULL;
}

const char *trace_end_describe(const struct trace_end *end)
{
	static char buf[96];
	switch (end->kind) {
	case TRACE_END_EXITED:
		snprintf(buf, sizeof(buf), "exited with status %d", end->status);
		break;
	case TRACE_END_SIGNALED:
		snprintf(buf, sizeof(buf), "killed by signal %d (SIG%s)", end->status,
			 sigabbrev_np(end->status) ? sigabbrev_np(end->status) : "?");
		break;
	case TRACE_END_INTERRUPTED:
		snprintf(buf, sizeof(buf), "recording interrupted");
		break;
	default:
		snprintf(buf, sizeof(buf), "traced region ended; program continued untraced");
		break;
	}
	return buf;
}

static int add_string(struct trace_reader *r, const uint8_t **p, const uint8_t *end)
{
	char *s = get_string(p, end);
	if (!s)
		return corrupt(r, "bad string record");
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
		return corrupt(r, "instruction defined twice");
	}
	r->insns[id] = ri;
	addr_insert(r, ri);
	*pp = p;
	return 0;
bad:
	free(ri);
	return corrupt(r, "bad instruction record");
}

static int decode_units(struct trace_reader *r, struct rinsn *ri, const uint8_t **pp,
			const uint8_t *end)
{
	const uint8_t *p = *pp;
	struct perpi_event *ev = &r->ev;
	if (p >= end || *p > UNIT_COUNT || end - p < 1 + *p)
		return corrupt(r, "bad source units");
	ev->n_src = *p++;
	memcpy(ev->src, p, ev->n_src);
	p += ev->n_src;
	if (p >= end || *p > UNIT_COUNT || end - p < 1 + *p)
		return corrupt(r, "bad destination units");
	ev->n_dst = *p++;
	memcpy(ev->dst, p, ev->n_dst);
	p += ev->n_dst;
	for (unsigned i = 0; i < ev->n_src + ev->n_dst; i++)
		if ((i < ev->n_src ? ev->src[i] : ev->dst[i - ev->n_src]) >= UNIT_COUNT)
			return corrupt(r, "unit out of range");
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
		return corrupt(r, "bad memory access count");
	if (n > ri->cap_mem) {
		ri->mem = xrealloc(ri->mem, n * sizeof(*ri->mem));
		memset(ri->mem + ri->cap_mem, 0, (n - ri->cap_mem) * sizeof(*ri->mem));
		ri->cap_mem = (uint16_t)n;
	}
	ri->n_mem = (uint16_t)n;
	for (unsigned i = 0; i < n; i++) {
		if (trace_get_varint(p, end, &size) < 0 || size > UINT32_MAX || *p >= end ||
		    **p > 1)
			return corrupt(r, "bad memory access");
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
		return corrupt(r, "bad event header");
	if (!(h & TRACE_EV_ID_NEXT)) {
		if (trace_get_varint(&p, end, &v) < 0)
			return corrupt(r, "bad instruction id");
		id += trace_unzigzag(v);
	}
	id &= 0xffffffff;
	if (id >= (int64_t)r->n_insns || !r->insns[id])
		return corrupt(r, "event of an undefined instruction");
	struct rinsn *ri = r->insns[id];
	ev->insn = &ri->insn;
	if (h & TRACE_EV_SP) {
		if (trace_get_varint(&p, end, &v) < 0)
			return corrupt(r, "bad stack pointer");
		r->prev_sp += (uint64_t)trace_unzigzag(v);
	}
	ev->sp = r->prev_sp;
	ev->flags = 0;
	if (h & TRACE_EV_FLAGS) {
		if (trace_get_varint(&p, end, &v) < 0 || v > UINT16_MAX)
			return corrupt(r, "bad event flags");
		ev->flags = (uint16_t)v;
	}
	if (h & TRACE_EV_UNITS_SAME) {
		if (!ri->has_units)
			return corrupt(r, "units repeated before any were given");
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
			return corrupt(r, "bad memory address");
		ri->mem[i].addr += (uint64_t)trace_unzigzag(v);
		ev->mem[i] = ri->mem[i];
	}
	r->prev_id = (uint32_t)id;
	*pp = p;
	return 0;
}

/* Decodes one EVTS chunk; 1 if fn asked to stop. */
static int replay_chunk(struct trace_reader *r, const uint8_t *p, const uint8_t *end,
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
			rc = corrupt(r, "unknown record type");
		}
		if (rc < 0)
			return -1;
	}
	return 0;
}

static int read_end(struct trace_reader *r, const uint8_t *p, const uint8_t *end)
{
	uint64_t kind, status, events;
	if (trace_get_varint(&p, end, &kind) < 0 || kind >= TRACE_END_KIND_COUNT ||
	    trace_get_varint(&p, end, &status) < 0 || trace_get_varint(&p, end, &events) < 0 ||
	    p != end)
		return corrupt(r, "bad end record");
	if (events != r->events)
		return perpi_set_error("%s: corrupt trace file: end record counts %llu events, "
				       "the file holds %llu",
				       r->path, (unsigned long long)events,
				       (unsigned long long)r->events);
	r->end.kind = (unsigned)kind;
	r->end.status = (int)trace_unzigzag(status);
	r->end.events = events;
	if (fgetc(r->fp) != EOF)
		return corrupt(r, "data after the end record");
	r->ended = 1;
	return 0;
}

int trace_reader_replay(struct trace_reader *r, perpi_event_fn fn, void *ctx)
{
	uint8_t head[12];
	if (r->replayed)
		return perpi_set_error("%s: already replayed", r->path);
	r->replayed = 1;
	for (;;) {
		uint64_t at = r->pos;
		if (read_exact(r, head, 12, "a chunk header") < 0) {
			if (feof(r->fp) && at == r->pos)
				perpi_set_error(
				    "%s: truncated file: no end record after %llu events "
				    "(the recording was cut short)",
				    r->path, (unsigned long long)r->events);
			return -1;
		}
		uint32_t type = trace_get_u32(head), len = trace_get_u32(head + 4);
		if ((type != TRACE_CHUNK_EVENTS && type != TRACE_CHUNK_END) ||
		    len > TRACE_CHUNK_MAX) {
			r->pos = at;
			return corrupt(r, "bad chunk header");
		}
		if (len > r->cap_chunk || !r->chunk) { /* an empty chunk too: no NULL + 0 (fuzz/) */
			r->cap_chunk = len;
			r->chunk = xrealloc(r->chunk, len ? len : 1);
		}
		if (read_exact(r, r->chunk, len, "a chunk") < 0)
			return -1;
		if (trace_crc32(0, r->chunk, len) != trace_get_u32(head + 8)) {
			r->pos = at;
			return corrupt(r, "chunk checksum mismatch");
		}
		if (type == TRACE_CHUNK_END)
			return read_end(r, r->chunk, r->chunk + len);
		int rc = replay_chunk(r, r->chunk, r->chunk + len, fn, ctx);
		if (rc)
			return rc;
	}
}
