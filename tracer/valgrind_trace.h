/* The Valgrind backend (DESIGN.md: "Two tracing backends produce the same
 * events"): perpi's Valgrind tool (tracer/valgrind/tool.c) runs the
 * program and streams its main thread's instructions; perpi decodes them
 * with its own x86 layer and turns each record into the event the ptrace
 * tracer would have produced, with the same regions, calls and signals.
 * Reached only through tracer/trace.h (tracer_start and tracer_run call
 * these when the options ask for --backend=valgrind). Internal to tracer/. */
#ifndef PERPI_TRACER_VALGRIND_TRACE_H
#define PERPI_TRACER_VALGRIND_TRACE_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <sys/types.h>
#include <sys/user.h>

#include "tracer/event.h"
#include "tracer/trace.h"
#include "tracer/valgrind/protocol.h"

struct tracer;

/* A static instruction as the tool reports it: decoded once by perpi, with
 * the slots the tool copies into each of its records. */
struct vg_insn {
	struct perpi_insn insn;
	uint8_t n_slots;
	uint8_t slot[VGP_MAX_SLOTS];
	uint16_t record_size; /* bytes: the id and the slots' values */
	uint8_t rep_string;   /* REP string: its extra record is dropped */
	uint8_t rcx_32;
	uint8_t seen; /* given an id and passed to the sink once */
	uint8_t warned;
};

/* Table ids (the records' ids) -> instructions, in chunks that never move:
 * the decoder appends while the consumer reads. */
#define VG_TABLE_CHUNK 4096
#define VG_TABLE_CHUNKS 4096

struct vg_table {
	struct vg_insn *chunk[VG_TABLE_CHUNKS];
	atomic_uint count; /* ids 1..count-1 are filled (0 is the markers') */
	/* decoder side: address -> latest id (open addressing) */
	uint64_t *addr;
	uint32_t *id;
	size_t mask, used;
};

/* The run: owned by the tracer (t->vg), made by valgrind_trace_start. */
struct valgrind_run {
	pid_t pid;
	int events_fd, requests_fd, replies_fd;
	pthread_t decoder;
	int decoder_started;
	int decoder_failed; /* set by the decoder: perpi_error() text in decoder_error */
	char decoder_error[256];
	pthread_mutex_t lock; /* the symbolizer: decoder notes, consumer names */
	struct vg_table table;
	uint64_t xcr0; /* as Valgrind's CPU reports it (HELLO) */
};

/* tracer/valgrind_spawn.c: start valgrind with perpi's tool on argv, its
 * three pipes in r. 0, or -1 with perpi_error(). */
int valgrind_spawn(struct tracer *t, struct valgrind_run *r, char *const argv[]);

/* tracer/valgrind_decode.c: the decoder thread (answers the tool's
 * requests) and the table it fills. */
int valgrind_decoder_start(struct tracer *t);
void valgrind_decoder_join(struct tracer *t);
void valgrind_table_done(struct vg_table *table);
/* The instruction of a record's id, NULL if the id is unknown. */
struct vg_insn *valgrind_table_get(struct vg_table *table, uint32_t id);

/* tracer/valgrind_queue.c: events from the consumer thread to a thread
 * that runs the sink. put packs a copy (first: the instruction's first
 * event, passed to the sink under names); 1 once the sink asked to stop.
 * finish hands over the rest and waits for the sink thread's end. */
struct vg_queue;
struct vg_queue *vg_queue_new(perpi_event_fn sink, void *ctx, pthread_mutex_t *names);
int vg_queue_put(struct vg_queue *q, const struct perpi_event *ev, int first);
void vg_queue_finish(struct vg_queue *q);
void vg_queue_delete(struct vg_queue *q);

/* tracer/valgrind_stream.c: read and apply the event stream to its end.
 * Returns a STEP_* result (trace_internal.h). */
int valgrind_stream_run(struct tracer *t);

/* tracer/valgrind_trace.c: the backend behind tracer_start/run/delete. */
int valgrind_trace_start(struct tracer *t, char *const argv[]);
int valgrind_trace_run(struct tracer *t, struct trace_result *res);
void valgrind_trace_delete(struct tracer *t);

#endif
