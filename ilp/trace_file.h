/* perpi.data: a recorded run (man perpi.data(5)). The writer is a
 * perpi_event_fn sink; the reader replays the same events, in constant
 * memory, into any perpi_event_fn, so a recorded run is analysed by exactly
 * the code that analyses a live one. */
#ifndef PERPI_TRACE_FILE_H
#define PERPI_TRACE_FILE_H

#include <stddef.h>
#include <stdint.h>

#include "tracer/event.h"
#include "ilp/measured.h"

#define TRACE_FILE_VERSION 2 /* the newest this perpi reads and writes */
#define TRACE_FILE_DEFAULT "perpi.data"

/* How the recorded run ended. */
enum trace_end_kind {
	TRACE_END_EXITED,      /* status = exit code */
	TRACE_END_SIGNALED,    /* status = signal number */
	TRACE_END_INTERRUPTED, /* recording stopped by the user (SIGINT) */
	TRACE_END_DETACHED,    /* region of interest ended; program went on untraced */
	TRACE_END_KIND_COUNT
};

struct trace_end {
	unsigned kind; /* enum trace_end_kind */
	int status;
	uint64_t events; /* filled by the writer / checked by the reader */
};

/* Metadata: ordered key/value strings (program, argv, cpu, date,
 * perpi_version, units, classes...). Keys and values are copied. */
struct trace_meta_entry {
	const char *key, *value;
};

/* Where the writer gets names for a newly seen static instruction: the
 * function containing addr (and addr's offset in it), and its source line.
 * Either callback may be NULL; return NULL / -1 when unknown. */
struct trace_symbolizer {
	const char *(*function)(void *ctx, uint64_t addr, uint64_t *offset);
	int (*source_line)(void *ctx, uint64_t addr, const char **file, unsigned *line);
	void *ctx;
};

struct trace_writer;

/* Opens path for writing and writes the header. NULL with perpi_error() set. */
struct trace_writer *trace_writer_open(const char *path, const struct trace_meta_entry *meta,
				       size_t n_meta, const struct trace_symbolizer *sym);
/* The same, with the native figures of perpi record --measure (measured
 * may be NULL): a version 2 file whose MEAS chunk follows the header. A
 * file without them stays version 1, readable by older perpis. */
struct trace_writer *trace_writer_open_measured(const char *path,
						const struct trace_meta_entry *meta, size_t n_meta,
						const struct trace_symbolizer *sym,
						const struct measured *measured);
/* A perpi_event_fn: returns 0, or 1 after an I/O error (stops tracing); the
 * error is reported again by trace_writer_close. */
int trace_writer_event(void *writer, const struct perpi_event *ev);
/* Writes the end record, closes and frees. 0, or -1 with perpi_error(). */
int trace_writer_close(struct trace_writer *writer, const struct trace_end *end);
/* Frees without finishing the file (error paths). */
void trace_writer_abort(struct trace_writer *writer);

struct trace_reader;

/* Opens path and checks its header. NULL with perpi_error() set. */
struct trace_reader *trace_reader_open(const char *path);
void trace_reader_close(struct trace_reader *reader);

/* The native figures perpi record --measure kept (perpi.data(5), the
 * MEAS chunk), or NULL when the file has none: recorded without
 * --measure, or a version 1 file. Available right after trace_reader_open
 * (before any replay), owned by the reader, valid until
 * trace_reader_close. A corrupt MEAS chunk makes trace_reader_open fail.
 *
 * For a report beside the trace's own figures (the fields: ilp/measured.h):
 * all cycles are core cycles, the timing overhead already
 * subtracted, each the smallest over m->runs native runs of the same
 * program and arguments.
 *   - a function F of the trace: measured_find(m, "F") is non-NULL
 *     exactly when F was timed (recorded with --measure --function F;
 *     the name is the program's symbol, as the trace names its functions);
 *     then f->total compares with F's figures summed over its calls (the
 *     trace's calls of F are f->calls when the runs are deterministic),
 *     f->min and f->median with one call;
 *   - the whole traced run: m->whole (the region's total when the region
 *     was timed, else the outermost timed calls' total);
 *   - the region (markers, main, --start..--stop): measured_region(m),
 *     NULL when functions were timed.
 * A figure with calls == 0 was never reached (show it as not measured). */
const struct measured *trace_reader_measured(const struct trace_reader *reader);

/* Metadata value for key, or NULL. */
const char *trace_reader_meta(const struct trace_reader *reader, const char *key);
size_t trace_reader_meta_all(const struct trace_reader *reader,
			     const struct trace_meta_entry **out);

/* Replays every event into fn. Returns 0 when the whole file was read, 1
 * if fn asked to stop, -1 on a corrupt or truncated file (perpi_error()).
 * Once per reader. */
int trace_reader_replay(struct trace_reader *reader, perpi_event_fn fn, void *ctx);

/* After a complete replay: how the run ended. */
const struct trace_end *trace_reader_end(const struct trace_reader *reader);

/* Static instructions seen so far (all of them after the replay). */
const struct perpi_insn *trace_reader_insn_at(const struct trace_reader *reader, uint64_t addr);
const char *trace_reader_function(const struct trace_reader *reader, const struct perpi_insn *insn,
				  uint64_t *offset);
int trace_reader_source_line(const struct trace_reader *reader, const struct perpi_insn *insn,
			     const char **file, unsigned *line);
/* Whether any static instruction belongs to the function named name. */
int trace_reader_has_function(const struct trace_reader *reader, const char *name);

/* "exited with status 0", "killed by signal 11 (SIGSEGV)"...: static storage. */
const char *trace_end_describe(const struct trace_end *end);

#endif
