/* The perpi.data reader's state, shared by ilp/trace_file_read.c (the
 * file: header, chunks, checksums) and ilp/trace_file_decode.c (the
 * records inside an EVTS chunk, the static instructions). Internal to the
 * trace file: everyone else uses ilp/trace_file.h. */
#ifndef PERPI_TRACE_READER_H
#define PERPI_TRACE_READER_H

#include <stdint.h>
#include <stdio.h>

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
	/* the instructions defined, in file order: ids may be sparse (up to
	 * 2^24), and a loop over them all cost a crafted file's reader 10^7
	 * steps (found by fuzz/fuzz_trace_file: a hang under load) */
	struct rinsn **defined;
	size_t n_defined, cap_defined;
	struct rinsn **by_addr; /* open addressing, power of two */
	size_t cap_addr, n_addr;
	char **strings;
	size_t n_strings, cap_strings;
	uint32_t prev_id;
	uint64_t prev_sp, events;
	struct trace_end end;
	int replayed, ended;
	uint32_t version;
	struct measured *measured; /* the MEAS chunk, or NULL */
	uint8_t pending[12];	   /* a chunk header read ahead at open */
	uint64_t pending_at;
	int have_pending;
	struct perpi_event ev;
	const struct perpi_insn *ev_units_of; /* whose units ev.src/dst hold */
};

/* "PATH: corrupt trace file at byte N: what"; returns -1. */
int trace_reader_corrupt(struct trace_reader *r, const char *what);
/* A varint length and that many bytes, as a malloc'd string; NULL if it
 * runs past end. */
char *trace_get_string(const uint8_t **p, const uint8_t *end);
/* Decodes one EVTS chunk's records, events into fn; 0, 1 if fn asked to
 * stop, -1 on a corrupt record (perpi_error()). */
int trace_reader_decode_chunk(struct trace_reader *r, const uint8_t *p, const uint8_t *end,
			      perpi_event_fn fn, void *ctx);

#endif
