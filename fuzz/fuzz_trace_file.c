/* perpi.data (man perpi.data(5)): the reader, replayed into the engine as
 * perpi report does, with every instruction's names looked up. */
#include <stdint.h>

#include "common/util.h"
#include "fuzz/fuzz_util.h"
#include "ilp/engine.h"
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

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *path = fuzz_file(data, size);
	if (!path)
		return 0;
	struct trace_reader *r = trace_reader_open(path);
	if (r) {
		const struct trace_meta_entry *meta;
		trace_reader_meta_all(r, &meta);
		trace_reader_meta(r, "program");
		struct engine_options opt = {.window = 8, .width = 2};
		struct sink s = {engine_new(data[0] & 1 ? &opt : NULL), r};
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
