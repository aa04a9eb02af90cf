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
#include "ilp/trace_measured.h"
#include "ilp/trace_file.h"
#include "ilp/trace_reader.h"

int trace_reader_corrupt(struct trace_reader *r, const char *what)
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

static int parse_meta(struct trace_reader *r, const uint8_t *p, const uint8_t *end)
{
	uint64_t n;
	if (trace_get_varint(&p, end, &n) < 0 || n > (uint64_t)(end - p))
		return trace_reader_corrupt(r, "bad metadata count");
	r->meta = xcalloc(n, sizeof(*r->meta));
	for (; r->n_meta < n; r->n_meta++) {
		char *k = trace_get_string(&p, end), *v = k ? trace_get_string(&p, end) : NULL;
		if (!v) {
			free(k);
			return trace_reader_corrupt(r, "bad metadata entry");
		}
		r->meta[r->n_meta].key = k;
		r->meta[r->n_meta].value = v;
	}
	return p == end ? 0 : trace_reader_corrupt(r, "trailing bytes in metadata");
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
	if (version < 1 || version > TRACE_FILE_VERSION)
		return perpi_set_error("%s: trace format version %u; this perpi reads versions 1 "
				       "to %d",
				       r->path, version, TRACE_FILE_VERSION);
	r->version = version;
	if (len > TRACE_CHUNK_MAX)
		return trace_reader_corrupt(r, "metadata too long");
	uint8_t *buf = xmalloc(len + 8);
	memcpy(buf, fixed, 8);
	int rc = read_exact(r, buf + 8, len, "the header");
	if (!rc)
		rc = read_exact(r, crc, 4, "the header");
	if (!rc && trace_crc32(0, buf, len + 8) != trace_get_u32(crc))
		rc = trace_reader_corrupt(r, "header checksum mismatch");
	if (!rc)
		rc = parse_meta(r, buf + 8, buf + 8 + len);
	free(buf);
	if (!rc)
		rc = check_meta_number(r, "units", UNIT_COUNT, "dependency units");
	if (!rc)
		rc = check_meta_number(r, "classes", CLASS_COUNT, "instruction classes");
	return rc;
}

/* The payload of the chunk whose header (read at offset at) is head, into
 * r->chunk, its length and CRC checked; what: its name for messages. */
static int read_payload(struct trace_reader *r, const uint8_t *head, uint64_t at, const char *what)
{
	uint32_t len = trace_get_u32(head + 4);
	char msg[64];
	snprintf(msg, sizeof(msg), len > TRACE_CHUNK_MAX ? "bad %s header" : "a %s", what);
	if (len > TRACE_CHUNK_MAX) {
		r->pos = at;
		return trace_reader_corrupt(r, msg);
	}
	if (len > r->cap_chunk || !r->chunk) { /* an empty chunk too: no NULL + 0 (fuzz/) */
		r->cap_chunk = len;
		r->chunk = xrealloc(r->chunk, len ? len : 1);
	}
	if (read_exact(r, r->chunk, len, msg) < 0)
		return -1;
	if (trace_crc32(0, r->chunk, len) != trace_get_u32(head + 8)) {
		snprintf(msg, sizeof(msg), "%s checksum mismatch", what);
		r->pos = at;
		return trace_reader_corrupt(r, msg);
	}
	return 0;
}

/* Version 2: a MEAS chunk may follow the header; any other chunk header
 * read here is kept for the replay. */
static int read_measured(struct trace_reader *r)
{
	uint64_t at = r->pos;
	uint8_t head[12];
	size_t got = fread(head, 1, sizeof(head), r->fp);
	if (got == 0 && !ferror(r->fp))
		return 0; /* the replay says the file was cut short */
	if (got != sizeof(head))
		return perpi_set_error(
		    "%s: truncated file: ends inside a chunk header at byte %llu", r->path,
		    (unsigned long long)(at + got));
	r->pos += got;
	if (trace_get_u32(head) != TRACE_CHUNK_MEASURED) {
		memcpy(r->pending, head, sizeof(head));
		r->pending_at = at;
		r->have_pending = 1;
		return 0;
	}
	const char *why;
	if (read_payload(r, head, at, "measurement chunk") < 0)
		return -1;
	r->measured = trace_measured_decode(r->chunk, r->chunk + trace_get_u32(head + 4), &why);
	if (r->measured)
		return 0;
	r->pos = at;
	return trace_reader_corrupt(r, why);
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
	if (read_header(r) < 0 || (r->version >= 2 && read_measured(r) < 0)) {
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
	measured_free(r->measured);
	for (size_t i = 0; i < r->n_meta; i++) {
		free((char *)r->meta[i].key);
		free((char *)r->meta[i].value);
	}
	for (size_t i = 0; i < r->n_defined; i++) {
		free(r->defined[i]->units);
		free(r->defined[i]->mem);
		free(r->defined[i]);
	}
	free(r->defined);
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

const struct measured *trace_reader_measured(const struct trace_reader *r)
{
	return r->measured;
}

size_t trace_reader_meta_all(const struct trace_reader *r, const struct trace_meta_entry **out)
{
	*out = r->meta;
	return r->n_meta;
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

static int read_end(struct trace_reader *r, const uint8_t *p, const uint8_t *end)
{
	uint64_t kind, status, events;
	if (trace_get_varint(&p, end, &kind) < 0 || kind >= TRACE_END_KIND_COUNT ||
	    trace_get_varint(&p, end, &status) < 0 || trace_get_varint(&p, end, &events) < 0 ||
	    p != end)
		return trace_reader_corrupt(r, "bad end record");
	if (events != r->events)
		return perpi_set_error("%s: corrupt trace file: end record counts %llu events, "
				       "the file holds %llu",
				       r->path, (unsigned long long)events,
				       (unsigned long long)r->events);
	r->end.kind = (unsigned)kind;
	r->end.status = (int)trace_unzigzag(status);
	r->end.events = events;
	if (fgetc(r->fp) != EOF)
		return trace_reader_corrupt(r, "data after the end record");
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
		if (r->have_pending) {
			memcpy(head, r->pending, sizeof(head));
			at = r->pending_at;
			r->have_pending = 0;
		} else if (read_exact(r, head, 12, "a chunk header") < 0) {
			if (feof(r->fp) && at == r->pos)
				perpi_set_error(
				    "%s: truncated file: no end record after %llu events "
				    "(the recording was cut short)",
				    r->path, (unsigned long long)r->events);
			return -1;
		}
		uint32_t type = trace_get_u32(head), len = trace_get_u32(head + 4);
		if (type != TRACE_CHUNK_EVENTS && type != TRACE_CHUNK_END) {
			r->pos = at;
			return trace_reader_corrupt(r,
						    type == TRACE_CHUNK_MEASURED
							? "a measurement chunk away from the header"
							: "bad chunk header");
		}
		if (read_payload(r, head, at, "chunk") < 0)
			return -1;
		if (type == TRACE_CHUNK_END)
			return read_end(r, r->chunk, r->chunk + len);
		int rc = trace_reader_decode_chunk(r, r->chunk, r->chunk + len, fn, ctx);
		if (rc)
			return rc;
	}
}
