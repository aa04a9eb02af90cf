/* perpi.data (man perpi.data(5)): the reader, replayed into the engine as
 * perpi report does, with every instruction's names looked up. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "common/util.h"
#include "fuzz/fuzz_util.h"
#include "ilp/engine.h"
#include "ilp/trace_codec.h"
#include "ilp/trace_file.h"

struct sink {
	struct engine *engine;
	struct trace_reader *reader;
};

static int event(void *ctx, const struct perpi_event *ev)
{
	struct sink *s = ctx;
	uint64_t offset;
	const char *file;
	unsigned line;
	trace_reader_function(s->reader, ev->insn, &offset);
	trace_reader_source_line(s->reader, ev->insn, &file, &line);
	return engine_event(s->engine, ev);
}

/* Every part of perpi.data carries a CRC-32 (man perpi.data(5)): set them
 * right, so that the fuzzer's changes reach the decoding behind them. */
static void fix_crcs(uint8_t *d, size_t size)
{
	if (size < 16)
		return;
	size_t meta = trace_get_u32(d + 12), at = 16 + meta;
	if (meta > size || at + 4 > size)
		return;
	trace_put_u32(d + at, trace_crc32(0, d + 8, 8 + meta));
	for (at += 4; at + 12 <= size;) {
		size_t len = trace_get_u32(d + at + 4);
		if (len > size - at - 12)
			return;
		trace_put_u32(d + at + 8, trace_crc32(0, d + at + 12, len));
		at += 12 + len;
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint8_t *copy = xmalloc(size + 1);
	if (size)
		memcpy(copy, data, size);
	fix_crcs(copy, size);
	const char *path = fuzz_file(copy, size);
	free(copy);
	if (!path)
		return 0;
	struct trace_reader *r = trace_reader_open(path);
	if (r) {
		const struct trace_meta_entry *meta;
		trace_reader_meta_all(r, &meta);
		trace_reader_meta(r, "program");
		struct engine_options opt = {.window = 8, .width = 2};
		struct sink s = {engine_new(size & 1 ? &opt : NULL), r};
		if (trace_reader_replay(r, event, &s) == 0)
			trace_end_describe(trace_reader_end(r));
		engine_finish(s.engine);
		struct engine_totals t;
		engine_totals(s.engine, &t);
		engine_delete(s.engine);
		trace_reader_has_function(r, "main");
		trace_reader_close(r);
	}
	fuzz_file_done();
	return 0;
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	fuzz_quiet();
	return 0;
}
