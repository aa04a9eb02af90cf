/* perpi.data's native figures (the MEAS chunk of perpi record --measure,
 * perpi.data(5)): written and read back exactly; a file without them
 * reads as "none" (version 1, and version 2 without the chunk); a damaged
 * or misplaced chunk is refused with a message naming it. The figures
 * are made up here (exact binary fractions, so equality is exact). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/util.h"
#include "ilp/trace_codec.h"
#include "ilp/trace_file.h"

static int failures;
#define CHECK(cond, ...)                                                                           \
	do {                                                                                       \
		if (!(cond)) {                                                                     \
			printf("FAIL %s:%d: ", __FILE__, __LINE__);                                \
			printf(__VA_ARGS__);                                                       \
			printf("\n");                                                              \
			failures++;                                                                \
		}                                                                                  \
	} while (0)

static const char *path;
static struct perpi_insn insn = {.addr = 0x401000, .len = 1, .bytes = {0x90}, .text = "nop"};

static struct measured_figure figures[] = {
    {"Sum", 0, 3, 0, 2031.5, 2040.25, 6120.75},
    {"DDSum", 0, 1, 2, 14902.125, 14902.125, 14902.125},
    {"perpi_start..perpi_stop", 1, 1, 0, 21707.5, 21707.5, 21707.5}};
static const struct measured summary = {
    figures, 3, 21707.5, 4, 4, MEASURED_CLOCK_TSC, 0.5678, 39.25, 2.875, 166.5, MEASURED_JUMP};

static int count(void *ctx, const struct perpi_event *ev)
{
	(*(int *)ctx)++;
	return 0;
}

static void write_file(const struct measured *m)
{
	const struct trace_meta_entry meta[] = {{"program", "./summation"}};
	struct trace_writer *w = trace_writer_open_measured(path, meta, 1, NULL, m);
	CHECK(w, "open for writing: %s", perpi_error());
	if (!w)
		exit(1);
	struct perpi_event ev = {.insn = &insn, .sp = 0x7ffc0000};
	for (int i = 0; i < 10; i++)
		trace_writer_event(w, &ev);
	struct trace_end end = {TRACE_END_EXITED, 0, 0};
	CHECK(trace_writer_close(w, &end) == 0, "close: %s", perpi_error());
}

static uint8_t *slurp(size_t *len)
{
	FILE *fp = fopen(path, "rb");
	fseek(fp, 0, SEEK_END);
	*len = ftell(fp);
	rewind(fp);
	uint8_t *buf = xmalloc(*len + 64);
	if (fread(buf, 1, *len, fp) != *len)
		exit(1);
	fclose(fp);
	return buf;
}

static void spit(const uint8_t *buf, size_t len)
{
	FILE *fp = fopen(path, "wb");
	fwrite(buf, 1, len, fp);
	fclose(fp);
}

/* Opens, checks the figures against want (NULL: none), replays. */
static int read_back(const struct measured *want)
{
	struct trace_reader *r = trace_reader_open(path);
	if (!r)
		return -1;
	const struct measured *m = trace_reader_measured(r);
	if (!want)
		CHECK(!m, "figures read from a file without them");
	if (want && m) {
		CHECK(m->n_figures == want->n_figures && m->runs == want->runs &&
			  m->clock == want->clock && m->method == want->method &&
			  m->ticks_per_cycle == want->ticks_per_cycle &&
			  m->overhead == want->overhead &&
			  m->region_overhead == want->region_overhead &&
			  m->nested_overhead == want->nested_overhead && m->whole == want->whole,
		      "summary fields");
		for (size_t i = 0; i < m->n_figures && i < want->n_figures; i++) {
			const struct measured_figure *a = &m->figures[i], *b = &want->figures[i];
			CHECK(!strcmp(a->name, b->name) && a->is_region == b->is_region &&
				  a->calls == b->calls && a->unfinished == b->unfinished &&
				  a->min == b->min && a->median == b->median &&
				  a->total == b->total,
			      "figure %zu (%s)", i, b->name);
		}
		const struct measured_figure *f = measured_find(m, "DDSum");
		CHECK(f && f->calls == 1 && f->unfinished == 2, "find DDSum");
		CHECK(!measured_find(m, "Sum2"), "Sum2 was not timed");
		f = measured_region(m);
		CHECK(f && !strcmp(f->name, "perpi_start..perpi_stop"), "region");
	}
	CHECK(!want || m, "no figures read back");
	int n = 0, rc = trace_reader_replay(r, count, &n);
	CHECK(rc < 0 || n == 10, "replayed %d events, want 10", n);
	trace_reader_close(r);
	return rc;
}

static void expect_refused(const uint8_t *buf, size_t len, const char *what, const char *needle)
{
	spit(buf, len);
	int rc = read_back(NULL);
	CHECK(rc < 0, "%s accepted", what);
	CHECK(rc >= 0 || strstr(perpi_error(), needle), "%s: message '%s' lacks '%s'", what,
	      perpi_error(), needle);
}

/* The offset of the first chunk: after magic, version, length M, M bytes, CRC. */
static size_t first_chunk(const uint8_t *b)
{
	return 8 + 8 + trace_get_u32(b + 12) + 4;
}

static void test_damaged(void)
{
	size_t len;
	write_file(&summary);
	uint8_t *good = slurp(&len), *bad = xmalloc(len + 64);
	size_t c = first_chunk(good), plen = trace_get_u32(good + c + 4);
	CHECK(trace_get_u32(good + c) == TRACE_CHUNK_MEASURED, "MEAS right after the header");
	memcpy(bad, good, len);
	bad[c + 12 + 20] ^= 4;
	expect_refused(bad, len, "flipped bit in MEAS", "measurement chunk checksum");
	/* a negative cycle count, the CRC made right: the decoder refuses it */
	memcpy(bad, good, len);
	bad[c + 12 + plen - 1] |= 0x80; /* the last f64's sign bit: total < 0 */
	trace_put_u32(bad + c + 8, trace_crc32(0, bad + c + 12, plen));
	expect_refused(bad, len, "negative total", "bad measurement chunk");
	/* a payload layout this perpi does not know */
	memcpy(bad, good, len);
	bad[c + 12] = 9;
	trace_put_u32(bad + c + 8, trace_crc32(0, bad + c + 12, plen));
	expect_refused(bad, len, "unknown layout", "unknown layout");
	/* cut inside the chunk */
	expect_refused(good, c + 12 + plen / 2, "truncated MEAS", "truncated");
	/* the MEAS chunk moved after the events: refused */
	size_t mlen = 12 + plen, endc = len - (12 + 3); /* END: 3 one-byte varints */
	memcpy(bad, good, c);
	memcpy(bad + c, good + c + mlen, endc - c - mlen);
	memcpy(bad + endc - mlen, good + c, mlen);
	memcpy(bad + endc, good + endc, len - endc);
	expect_refused(bad, len, "MEAS after the events", "away from the header");
	free(bad);
	free(good);
}

/* Version 2 without the chunk (the header's version and CRC changed):
 * read as a file without figures. */
static void test_version2_without(void)
{
	size_t len;
	write_file(NULL);
	uint8_t *b = slurp(&len);
	CHECK(b[8] == 1, "a file without figures is version %u, want 1", b[8]);
	size_t mlen = trace_get_u32(b + 12);
	b[8] = 2;
	trace_put_u32(b + 16 + mlen, trace_crc32(0, b + 8, 8 + mlen));
	spit(b, len);
	CHECK(read_back(NULL) == 0, "version 2 without MEAS: %s", perpi_error());
	free(b);
}

int main(void)
{
	char tmpl[] = "/tmp/perpi-test-measured-XXXXXX";
	close(mkstemp(tmpl));
	path = tmpl;
	write_file(&summary);
	size_t len;
	uint8_t *b = slurp(&len);
	CHECK(b[8] == 2, "a file with figures is version %u, want 2", b[8]);
	free(b);
	CHECK(read_back(&summary) == 0, "round trip: %s", perpi_error());
	write_file(NULL);
	CHECK(read_back(NULL) == 0, "without figures: %s", perpi_error());
	test_version2_without();
	test_damaged();
	unlink(path);
	if (!failures)
		printf("PASS: native figures in perpi.data\n");
	return failures ? 1 : 0;
}
