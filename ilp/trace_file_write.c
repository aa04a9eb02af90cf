/* perpi.data writer: a perpi_event_fn sink. Static instructions are defined
 * in the stream the first time they run; events are delta-encoded against
 * the previous event and against the same instruction's previous run. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "common/util.h"
#include "ilp/trace_codec.h"
#include "ilp/trace_measured.h"
#include "ilp/trace_file.h"

/* What the writer remembers of one static instruction's last run. */
struct insn_state {
	uint8_t defined;
	uint8_t n_src, n_dst;
	uint8_t *units; /* n_src + n_dst, owned */
	uint16_t n_mem, cap_mem;
	struct perpi_mem_access *mem; /* last accesses, owned */
};

struct trace_writer {
	FILE *fp;
	char *path;
	struct trace_symbolizer sym;
	uint8_t *buf; /* current chunk payload */
	size_t len, cap;
	struct insn_state *insns; /* by insn id */
	size_t n_insns;
	char **strings; /* interned names; index = string id */
	size_t n_strings, cap_strings;
	uint32_t prev_id;
	uint64_t prev_sp;
	uint64_t events;
	int failed; /* an I/O error happened: message kept */
	char error[512];
};

static void buf_reserve(struct trace_writer *w, size_t more)
{
	if (w->len + more <= w->cap)
		return;
	while (w->len + more > w->cap)
		w->cap = w->cap ? 2 * w->cap : TRACE_CHUNK_TARGET + 8192;
	w->buf = xrealloc(w->buf, w->cap);
}

static int write_fail(struct trace_writer *w)
{
	if (!w->failed)
		snprintf(w->error, sizeof(w->error), "writing %s: %s", w->path, strerror(errno));
	w->failed = 1;
	return -1;
}

static int write_chunk(struct trace_writer *w, uint32_t type, const uint8_t *data, size_t len)
{
	uint8_t head[12];
	trace_put_u32(head, type);
	trace_put_u32(head + 4, (uint32_t)len);
	trace_put_u32(head + 8, trace_crc32(0, data, len));
	if (fwrite(head, 1, 12, w->fp) != 12 || fwrite(data, 1, len, w->fp) != len)
		return write_fail(w);
	return 0;
}

static int flush_events(struct trace_writer *w)
{
	if (!w->len || w->failed)
		return w->failed ? -1 : 0;
	int rc = write_chunk(w, TRACE_CHUNK_EVENTS, w->buf, w->len);
	w->len = 0;
	return rc;
}

/* Interns s; returns its string id + 1 (0 for NULL). Defines it in the
 * stream the first time. Linear search is fine: called once per new
 * static instruction, and names repeat in runs. */
static uint64_t intern(struct trace_writer *w, const char *s)
{
	if (!s)
		return 0;
	for (size_t i = w->n_strings; i-- > 0;)
		if (!strcmp(w->strings[i], s))
			return i + 1;
	if (w->n_strings == w->cap_strings) {
		w->cap_strings = w->cap_strings ? 2 * w->cap_strings : 64;
		w->strings = xrealloc(w->strings, w->cap_strings * sizeof(*w->strings));
	}
	w->strings[w->n_strings++] = xstrdup(s);
	size_t n = strlen(s);
	buf_reserve(w, n + 12);
	uint8_t *p = w->buf + w->len;
	*p++ = TRACE_REC_STRING;
	p = trace_put_varint(p, n);
	memcpy(p, s, n);
	w->len = p + n - w->buf;
	return w->n_strings;
}

static struct insn_state *insn_state(struct trace_writer *w, uint32_t id)
{
	if (id >= w->n_insns) {
		size_t n = w->n_insns ? w->n_insns : 1024;
		while (n <= id)
			n *= 2;
		w->insns = xrealloc(w->insns, n * sizeof(*w->insns));
		memset(w->insns + w->n_insns, 0, (n - w->n_insns) * sizeof(*w->insns));
		w->n_insns = n;
	}
	return &w->insns[id];
}

static void define_insn(struct trace_writer *w, const struct perpi_insn *in)
{
	uint64_t offset = 0, fn = 0, file = 0;
	unsigned line = 0;
	if (w->sym.function) {
		const char *name = w->sym.function(w->sym.ctx, in->addr, &offset);
		fn = intern(w, name);
		if (!name)
			offset = 0;
	}
	const char *path = NULL;
	if (w->sym.source_line && w->sym.source_line(w->sym.ctx, in->addr, &path, &line) == 0)
		file = intern(w, path);
	else
		line = 0;
	size_t tlen = strnlen(in->text, sizeof(in->text));
	buf_reserve(w, 80 + sizeof(in->bytes) + tlen);
	uint8_t *p = w->buf + w->len;
	*p++ = TRACE_REC_INSN;
	p = trace_put_varint(p, in->id);
	p = trace_put_varint(p, in->addr);
	uint8_t len = in->len > sizeof(in->bytes) ? sizeof(in->bytes) : in->len;
	*p++ = len;
	memcpy(p, in->bytes, len);
	p += len;
	*p++ = in->klass;
	*p++ = in->control;
	*p++ = in->decoder;
	p = trace_put_varint(p, tlen);
	memcpy(p, in->text, tlen);
	p += tlen;
	p = trace_put_varint(p, fn);
	p = trace_put_varint(p, offset);
	p = trace_put_varint(p, file);
	p = trace_put_varint(p, line);
	w->len = p - w->buf;
}

static int units_same(const struct insn_state *st, const struct perpi_event *ev)
{
	return st->units && st->n_src == ev->n_src && st->n_dst == ev->n_dst &&
	       !memcmp(st->units, ev->src, ev->n_src) &&
	       !memcmp(st->units + ev->n_src, ev->dst, ev->n_dst);
}

static void remember_units(struct insn_state *st, const struct perpi_event *ev)
{
	free(st->units);
	st->units = xmalloc(ev->n_src + ev->n_dst + 1);
	memcpy(st->units, ev->src, ev->n_src);
	memcpy(st->units + ev->n_src, ev->dst, ev->n_dst);
	st->n_src = ev->n_src;
	st->n_dst = ev->n_dst;
}

static int mem_same_shape(const struct insn_state *st, const struct perpi_event *ev)
{
	if (st->n_mem != ev->n_mem)
		return 0;
	for (unsigned i = 0; i < ev->n_mem; i++)
		if (st->mem[i].size != ev->mem[i].size || st->mem[i].write != ev->mem[i].write)
			return 0;
	return 1;
}

static uint8_t *encode_event(struct trace_writer *w, uint8_t *p, struct insn_state *st,
			     const struct perpi_event *ev)
{
	uint32_t id = ev->insn->id;
	uint8_t *head = p++;
	uint8_t h = 0;
	if (id == w->prev_id + 1)
		h |= TRACE_EV_ID_NEXT;
	else
		p = trace_put_varint(p, trace_zigzag((int64_t)id - (int64_t)w->prev_id - 1));
	if (ev->sp != w->prev_sp) {
		h |= TRACE_EV_SP;
		p = trace_put_varint(p, trace_zigzag((int64_t)(ev->sp - w->prev_sp)));
	}
	if (ev->flags) {
		h |= TRACE_EV_FLAGS;
		p = trace_put_varint(p, ev->flags);
	}
	if (units_same(st, ev)) {
		h |= TRACE_EV_UNITS_SAME;
	} else {
		*p++ = ev->n_src;
		memcpy(p, ev->src, ev->n_src);
		p += ev->n_src;
		*p++ = ev->n_dst;
		memcpy(p, ev->dst, ev->n_dst);
		p += ev->n_dst;
		remember_units(st, ev);
	}
	if (mem_same_shape(st, ev)) {
		h |= TRACE_EV_MEM_SAME;
	} else {
		p = trace_put_varint(p, ev->n_mem);
		for (unsigned i = 0; i < ev->n_mem; i++) {
			p = trace_put_varint(p, ev->mem[i].size);
			*p++ = ev->mem[i].write;
		}
		if (ev->n_mem > st->cap_mem) {
			st->mem = xrealloc(st->mem, ev->n_mem * sizeof(*st->mem));
			memset(st->mem + st->cap_mem, 0,
			       (ev->n_mem - st->cap_mem) * sizeof(*st->mem));
			st->cap_mem = ev->n_mem;
		}
		st->n_mem = ev->n_mem;
	}
	for (unsigned i = 0; i < ev->n_mem; i++) {
		p = trace_put_varint(p, trace_zigzag((int64_t)(ev->mem[i].addr - st->mem[i].addr)));
		st->mem[i] = ev->mem[i];
	}
	*head = h;
	w->prev_id = id;
	w->prev_sp = ev->sp;
	return p;
}

int trace_writer_event(void *writer, const struct perpi_event *ev)
{
	struct trace_writer *w = writer;
	if (w->failed)
		return 1;
	if (ev->n_src > UNIT_COUNT || ev->n_dst > UNIT_COUNT || ev->n_mem > EVENT_MAX_MEM) {
		snprintf(w->error, sizeof(w->error), "writing %s: malformed event at 0x%llx",
			 w->path, (unsigned long long)ev->insn->addr);
		w->failed = 1;
		return 1;
	}
	struct insn_state *st = insn_state(w, ev->insn->id);
	if (!st->defined) {
		define_insn(w, ev->insn);
		st->defined = 1;
	}
	buf_reserve(w, 32 + 2 * UNIT_COUNT + 24 * (size_t)ev->n_mem);
	w->len = encode_event(w, w->buf + w->len, st, ev) - w->buf;
	w->events++;
	if (w->len >= TRACE_CHUNK_TARGET && flush_events(w) < 0)
		return 1;
	return 0;
}

static void put_string(struct strbuf *sb, const char *s)
{
	uint8_t tmp[10];
	size_t n = strlen(s);
	strbuf_add(sb, (char *)tmp, trace_put_varint(tmp, n) - tmp);
	strbuf_add(sb, s, n);
}

static int write_header(struct trace_writer *w, const struct trace_meta_entry *meta, size_t n_meta,
			uint32_t version)
{
	char units[16], classes[16];
	snprintf(units, sizeof(units), "%d", UNIT_COUNT);
	snprintf(classes, sizeof(classes), "%d", CLASS_COUNT);
	const struct trace_meta_entry fixed[] = {
	    {"perpi_version", PACKAGE_VERSION}, {"units", units}, {"classes", classes}};
	struct strbuf sb;
	uint8_t tmp[10];
	strbuf_init(&sb);
	trace_put_u32(tmp, version);
	strbuf_add(&sb, (char *)tmp, 4);
	strbuf_add(&sb, (char *)tmp, 4); /* meta length, patched below */
	size_t start = sb.len;
	strbuf_add(&sb, (char *)tmp, trace_put_varint(tmp, n_meta + ARRAY_SIZE(fixed)) - tmp);
	for (size_t i = 0; i < ARRAY_SIZE(fixed); i++) {
		put_string(&sb, fixed[i].key);
		put_string(&sb, fixed[i].value);
	}
	for (size_t i = 0; i < n_meta; i++) {
		put_string(&sb, meta[i].key);
		put_string(&sb, meta[i].value ? meta[i].value : "");
	}
	trace_put_u32((uint8_t *)sb.buf + 4, (uint32_t)(sb.len - start));
	trace_put_u32(tmp, trace_crc32(0, sb.buf, sb.len));
	strbuf_add(&sb, (char *)tmp, 4);
	int rc = 0;
	if (fwrite(TRACE_MAGIC, 1, TRACE_MAGIC_LEN, w->fp) != TRACE_MAGIC_LEN ||
	    fwrite(sb.buf, 1, sb.len, w->fp) != sb.len)
		rc = write_fail(w);
	strbuf_done(&sb);
	return rc;
}

struct trace_writer *trace_writer_open(const char *path, const struct trace_meta_entry *meta,
				       size_t n_meta, const struct trace_symbolizer *sym)
{
	return trace_writer_open_measured(path, meta, n_meta, sym, NULL);
}

/* The MEAS chunk, right after the header. */
static int write_measured(struct trace_writer *w, const struct measured *m)
{
	struct strbuf sb;
	strbuf_init(&sb);
	trace_measured_encode(&sb, m);
	int rc = sb.len > TRACE_CHUNK_MAX
		     ? (errno = EFBIG, write_fail(w))
		     : write_chunk(w, TRACE_CHUNK_MEASURED, (uint8_t *)sb.buf, sb.len);
	strbuf_done(&sb);
	return rc;
}

struct trace_writer *trace_writer_open_measured(const char *path,
						const struct trace_meta_entry *meta, size_t n_meta,
						const struct trace_symbolizer *sym,
						const struct measured *measured)
{
	FILE *fp = fopen(path, "wb");
	if (!fp) {
		perpi_set_error("cannot create %s: %s", path, strerror(errno));
		return NULL;
	}
	struct trace_writer *w = xcalloc(1, sizeof(*w));
	w->fp = fp;
	w->path = xstrdup(path);
	w->prev_id = UINT32_MAX; /* so that id 0 first is "next" */
	if (sym)
		w->sym = *sym;
	setvbuf(fp, NULL, _IOFBF, 1 << 20);
	if (write_header(w, meta, n_meta, measured ? 2 : 1) < 0 ||
	    (measured && write_measured(w, measured) < 0)) {
		perpi_set_error("%s", w->error);
		trace_writer_abort(w);
		return NULL;
	}
	return w;
}

void trace_writer_abort(struct trace_writer *w)
{
	if (!w)
		return;
	if (w->fp)
		fclose(w->fp);
	for (size_t i = 0; i < w->n_insns; i++) {
		free(w->insns[i].units);
		free(w->insns[i].mem);
	}
	for (size_t i = 0; i < w->n_strings; i++)
		free(w->strings[i]);
	free(w->strings);
	free(w->insns);
	free(w->buf);
	free(w->path);
	free(w);
}

int trace_writer_close(struct trace_writer *w, const struct trace_end *end)
{
	uint8_t rec[40], *p = rec;
	flush_events(w);
	p = trace_put_varint(p, end->kind);
	p = trace_put_varint(p, trace_zigzag(end->status));
	p = trace_put_varint(p, w->events);
	if (!w->failed)
		write_chunk(w, TRACE_CHUNK_END, rec, p - rec);
	if (fclose(w->fp) != 0 && !w->failed)
		write_fail(w);
	w->fp = NULL;
	int rc = w->failed ? perpi_set_error("%s", w->error) : 0;
	trace_writer_abort(w);
	return rc;
}
