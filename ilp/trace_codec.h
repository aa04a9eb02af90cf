/* perpi.data encoding shared by the writer and the reader (perpi.data(5)):
 * constants, CRC-32, LEB128 varints and zigzag deltas. Internal to ilp/. */
#ifndef PERPI_TRACE_CODEC_H
#define PERPI_TRACE_CODEC_H

#include <stddef.h>
#include <stdint.h>

#define TRACE_MAGIC "PERPIDAT"
#define TRACE_MAGIC_LEN 8
#define TRACE_CHUNK_EVENTS 0x53545645u	 /* "EVTS" little-endian */
#define TRACE_CHUNK_END 0x20444e45u	 /* "END " */
#define TRACE_CHUNK_MEASURED 0x5341454du /* "MEAS": native figures (version 2) */
#define TRACE_CHUNK_MAX (1u << 24)	 /* a reader refuses larger chunks */
#define TRACE_CHUNK_TARGET (1u << 16)	 /* the writer flushes past this */

/* Record tags inside an EVTS chunk. A byte below 0x80 is an event header. */
enum { TRACE_REC_STRING = 0x80, TRACE_REC_INSN = 0x81 };

/* Event header bits */
enum {
	TRACE_EV_ID_NEXT = 1 << 0,    /* insn id = previous id + 1 */
	TRACE_EV_SP = 1 << 1,	      /* zigzag sp delta follows */
	TRACE_EV_UNITS_SAME = 1 << 2, /* same units as this insn's last event */
	TRACE_EV_MEM_SAME = 1 << 3,   /* same access sizes/kinds as last time */
	TRACE_EV_FLAGS = 1 << 4,      /* varint flags follow */
	TRACE_EV_RESERVED = 0x60
};

uint32_t trace_crc32(uint32_t crc, const void *data, size_t len);

static inline uint64_t trace_zigzag(int64_t v)
{
	return ((uint64_t)v << 1) ^ (uint64_t)(v >> 63);
}

static inline int64_t trace_unzigzag(uint64_t v)
{
	return (int64_t)(v >> 1) ^ -(int64_t)(v & 1);
}

/* Appends v as LEB128 at p (at most 10 bytes); returns the new end. */
static inline uint8_t *trace_put_varint(uint8_t *p, uint64_t v)
{
	while (v >= 0x80) {
		*p++ = (uint8_t)v | 0x80;
		v >>= 7;
	}
	*p++ = (uint8_t)v;
	return p;
}

/* Reads a LEB128 value from [*p, end); -1 if it runs past end or overflows. */
static inline int trace_get_varint(const uint8_t **p, const uint8_t *end, uint64_t *out)
{
	uint64_t v = 0;
	for (unsigned shift = 0; shift < 64; shift += 7) {
		if (*p >= end)
			return -1;
		uint8_t b = *(*p)++;
		v |= (uint64_t)(b & 0x7f) << shift;
		if (!(b & 0x80)) {
			*out = v;
			return 0;
		}
	}
	return -1;
}

static inline void trace_put_u32(uint8_t *p, uint32_t v)
{
	p[0] = v, p[1] = v >> 8, p[2] = v >> 16, p[3] = v >> 24;
}

static inline uint32_t trace_get_u32(const uint8_t *p)
{
	return p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

#endif
