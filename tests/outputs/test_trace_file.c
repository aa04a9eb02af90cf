/* perpi.data round trip and refusal of bad files.
 * Events come from a seeded generator; the expected stream is regenerated
 * from the same seed (independent of the file code) and compared with the
 * replayed one byte for byte after normalising each event (unused array
 * tails zeroed, the insn pointer replaced by the insn's contents). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/util.h"
#include "ilp/trace_codec.h"
#include "ilp/trace_file.h"

#define N_INSNS 300
#define N_EVENTS 200000

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

static uint64_t rng_state;
static uint64_t rnd(void)
{
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 7;
	rng_state ^= rng_state << 17;
	return rng_state;
}

static struct perpi_insn insns[N_INSNS];

static void make_insns(void)
{
	rng_state = 0x1234567;
	for (unsigned i = 0; i < N_INSNS; i++) {
		struct perpi_insn *in = &insns[i];
		memset(in, 0, sizeof(*in));
		in->id = i;
		in->addr = 0x401000 + 7 * i + (i > 200 ? 0x7f0000000000ull : 0);
		in->len = 1 + rnd() % 15;
		for (unsigned b = 0; b < in->len; b++)
			in->bytes[b] = (uint8_t)rnd();
		in->klass = rnd() % CLASS_COUNT;
		in->control = rnd() % (CTRL_OTHER + 1);
		in->decoder = rnd() % 3;
		snprintf(in->text, sizeof(in->text), "insn%u r%u, [rsp + %u]", i,
			 (unsigned)(rnd() % 16), (unsigned)(rnd() % 4096));
	}
}

/* The i-th event of the synthetic run: mostly sequential code, repeated
 * unit sets, strided memory, with irregular ones mixed in. */
static void make_event(struct perpi_event *ev, uint32_t *pc, uint64_t *sp)
{
	memset(ev, 0, sizeof(*ev));
	uint64_t r = rnd();
	*pc = r % 10 == 0 ? rnd() % N_INSNS : (*pc + 1) % N_INSNS;
	const struct perpi_insn *in = &insns[*pc];
	ev->insn = in;
	if (r % 7 == 0)
		*sp += (rnd() % 3 - 1) * 8;
	if (r % 1000 == 3)
		*sp = rnd();
	ev->sp = *sp;
	ev->flags = r % 97 == 0 ? rnd() % 8 : 0;
	unsigned variant = r % 13 == 0 ? (unsigned)(rnd() % 4) : 0;
	ev->n_src = (in->id + variant) % 5;
	ev->n_dst = (in->id * 3 + variant) % 4;
	if (in->id == 5)
		ev->n_src = UNIT_COUNT; /* every unit once: the largest event */
	for (unsigned k = 0; k < ev->n_src; k++)
		ev->src[k] = in->id == 5 ? k : (in->id + 17 * k + variant) % UNIT_COUNT;
	for (unsigned k = 0; k < ev->n_dst; k++)
		ev->dst[k] = (in->id * 5 + 11 * k) % UNIT_COUNT;
	ev->n_mem = in->id % 11 == 0 ? (r >> 20) % (EVENT_MAX_MEM + 1) : in->id % 3;
	for (unsigned k = 0; k < ev->n_mem; k++) {
		ev->mem[k].addr =
		    (r >> 8) % 50 == 0 ? rnd() : 0x7ffc0000 + 8 * (uint64_t)k + (*sp & 0xfff0);
		ev->mem[k].size = (r >> 30) % 17 == 0 ? 512 + k : 1u << (k % 4);
		ev->mem[k].write = (k + in->id) & 1;
	}
}

/* The event's bytes with the pointer replaced by what it points to. */
struct flat {
	struct perpi_insn insn;
	struct perpi_event ev;
};

static void flatten(const struct perpi_event *ev, struct flat *f)
{
	memset(f, 0, sizeof(*f));
	memcpy(&f->insn, ev->insn, offsetof(struct perpi_insn, sem));
	f->ev.sp = ev->sp;
	f->ev.flags = ev->flags;
	f->ev.n_src = ev->n_src;
	f->ev.n_dst = ev->n_dst;
	f->ev.n_mem = ev->n_mem;
	memcpy(f->ev.src, ev->src, ev->n_src);
	memcpy(f->ev.dst, ev->dst, ev->n_dst);
	memcpy(f->ev.mem, ev->mem, ev->n_mem * sizeof(ev->mem[0]));
}

static const char *sym_function(void *ctx, uint64_t addr, uint64_t *offset)
{
	if (addr >= 0x7f0000000000ull)
		return NULL;
	*offset = (addr - 0x401000) % 70;
	return (addr - 0x401000) / 70 % 2 ? "sum2" : "main";
}

static int sym_line(void *ctx, uint64_t addr, const char **file, unsigned *line)
{
	if (addr >= 0x7f0000000000ull)
		return -1;
	*file = "examples/summation.c";
	*line = (unsigned)(addr - 0x401000) / 7 + 1;
	return 0;
}

struct replay_check {
	uint64_t n;
	uint32_t pc;
	uint64_t sp;
	uint64_t mismatches;
};

static int compare_event(void *ctx, const struct perpi_event *got)
{
	struct replay_check *c = ctx;
	struct perpi_event want;
	struct flat a, b;
	make_event(&want, &c->pc, &c->sp);
	flatten(&want, &a);
	flatten(got, &b);
	if (memcmp(&a, &b, sizeof(a)) && c->mismatches++ < 5)
		printf("FAIL: event %llu differs (insn %u)\n", (unsigned long long)c->n,
		       want.insn->id);
	c->n++;
	return 0;
}

static const char *path;
/* The event write_trace gives a 1 MiB write (no x86 instruction accesses
 * more than an XSAVE component's 1 KiB at once), or -1. */
static long oversize_event = -1;

static void write_trace(uint64_t n_events)
{
	const struct trace_meta_entry meta[] = {
	    {"program", "./summation"}, {"argv", "./summation 100"}, {"cpu", "Test CPU"}};
	const struct trace_symbolizer sym = {sym_function, sym_line, NULL};
	struct trace_writer *w = trace_writer_open(path, meta, 3, &sym);
	CHECK(w, "open for writing: %s", perpi_error());
	if (!w)
		exit(1);
	make_insns();
	uint32_t pc = 0;
	uint64_t sp = 0x7ffffff000;
	struct perpi_event ev;
	for (uint64_t i = 0; i < n_events; i++) {
		make_event(&ev, &pc, &sp);
		if ((long)i == oversize_event) {
			ev.n_mem = 1;
			ev.mem[0] = (struct perpi_mem_access){0x7ffc0000, 1u << 20, 1};
		}
		CHECK(trace_writer_event(w, &ev) == 0, "write event %llu", (unsigned long long)i);
	}
	struct trace_end end = {TRACE_END_SIGNALED, 11, 0};
	CHECK(trace_writer_close(w, &end) == 0, "close: %s", perpi_error());
}

static int count_event(void *ctx, const struct perpi_event *ev)
{
	(*(uint64_t *)ctx)++;
	return 0;
}

static void test_round_trip(void)
{
	write_trace(N_EVENTS);
	struct trace_reader *r = trace_reader_open(path);
	CHECK(r, "open for reading: %s", perpi_error());
	if (!r)
		return;
	CHECK(!strcmp(trace_reader_meta(r, "program"), "./summation"), "meta program");
	CHECK(!strcmp(trace_reader_meta(r, "cpu"), "Test CPU"), "meta cpu");
	CHECK(trace_reader_meta(r, "perpi_version") != NULL, "meta version");
	rng_state = 0x1234567;
	make_insns();
	struct replay_check c = {0, 0, 0x7ffffff000, 0};
	CHECK(trace_reader_replay(r, compare_event, &c) == 0, "replay: %s", perpi_error());
	CHECK(c.n == N_EVENTS, "replayed %llu events, want %d", (unsigned long long)c.n, N_EVENTS);
	CHECK(c.mismatches == 0, "%llu events differ", (unsigned long long)c.mismatches);
	const struct trace_end *end = trace_reader_end(r);
	CHECK(end && end->kind == TRACE_END_SIGNALED && end->status == 11 &&
		  end->events == N_EVENTS,
	      "end record");
	CHECK(end && !strcmp(trace_end_describe(end), "killed by signal 11 (SIGSEGV)"), "%s",
	      end ? trace_end_describe(end) : "no end");
	/* insn 150 at 0x401000 + 1050: 1050 / 70 = 15 (odd: sum2), offset 0 */
	const struct perpi_insn *in = trace_reader_insn_at(r, 0x401000 + 7 * 150);
	uint64_t off = 99;
	const char *file;
	unsigned line;
	CHECK(in && in->id == 150, "insn_at");
	CHECK(in && !strcmp(trace_reader_function(r, in, &off), "sum2") && off == 0, "function");
	CHECK(in && trace_reader_source_line(r, in, &file, &line) == 0 && line == 151 &&
		  !strcmp(file, "examples/summation.c"),
	      "source line");
	in = trace_reader_insn_at(r, 0x7f0000000000ull + 0x401000 + 7 * 250);
	CHECK(in && !trace_reader_function(r, in, NULL), "no function for unknown addr");
	CHECK(trace_reader_has_function(r, "sum2") && !trace_reader_has_function(r, "nosuch"),
	      "has_function");
	trace_reader_close(r);
}

static void *slurp(size_t *len)
{
	FILE *fp = fopen(path, "rb");
	fseek(fp, 0, SEEK_END);
	*len = ftell(fp);
	rewind(fp);
	void *buf = xmalloc(*len);
	if (fread(buf, 1, *len, fp) != *len)
		exit(1);
	fclose(fp);
	return buf;
}

static void spit(const void *buf, size_t len)
{
	FILE *fp = fopen(path, "wb");
	fwrite(buf, 1, len, fp);
	fclose(fp);
}

/* Opens and replays; returns 0 when accepted, else -1 with perpi_error(). */
static int try_read(void)
{
	uint64_t n = 0;
	struct trace_reader *r = trace_reader_open(path);
	if (!r)
		return -1;
	int rc = trace_reader_replay(r, count_event, &n);
	trace_reader_close(r);
	return rc;
}

static void expect_refused(const char *what, const char *needle)
{
	int rc = try_read();
	CHECK(rc < 0, "%s accepted", what);
	CHECK(rc >= 0 || strstr(perpi_error(), needle), "%s: message '%s' lacks '%s'", what,
	      perpi_error(), needle);
}

static void test_bad_files(void)
{
	size_t len;
	write_trace(3000);
	uint8_t *good = slurp(&len);
	CHECK(try_read() == 0, "the good file is refused: %s", perpi_error());
	/* Every truncation is refused, never accepted. */
	for (size_t cut = 0; cut < len; cut += cut < 200 ? 1 : 97) {
		spit(good, cut);
		if (try_read() == 0) {
			CHECK(0, "file cut at %zu of %zu bytes accepted", cut, len);
			break;
		}
	}
	spit(good, len - 5);
	expect_refused("truncated end record", "truncated");
	/* One flipped bit anywhere in the events: a checksum catches it. */
	uint8_t *bad = xmalloc(len + 1);
	for (size_t at = 200; at < len - 20; at += len / 10) {
		memcpy(bad, good, len);
		bad[at] ^= 0x10;
		spit(bad, len);
		expect_refused("flipped bit", "corrupt");
	}
	memcpy(bad, good, len);
	bad[20] ^= 1; /* inside the metadata */
	spit(bad, len);
	expect_refused("flipped header bit", "header checksum");
	memcpy(bad, good, len);
	bad[8] = 3; /* version 3 */
	spit(bad, len);
	expect_refused("future version", "version 3");
	memcpy(bad, good, len);
	bad[len] = 0;
	spit(bad, len + 1);
	expect_refused("trailing garbage", "after the end record");
	/* a shadow of the memory that size would cost 4 MiB an event: a
	 * crafted file took 1.3 GB (found by fuzz/fuzz_trace_file) */
	oversize_event = 100;
	write_trace(300);
	oversize_event = -1;
	expect_refused("a 1 MiB memory access", "memory access of 1048576 bytes");
	spit("hello, world\n", 13);
	expect_refused("text file", "not a perpi trace file");
	spit("", 0);
	expect_refused("empty file", "not a perpi trace file");
	spit("\177ELF\2\1\1\0\0\0\0\0\0\0\0\0", 16);
	expect_refused("ELF file", "not a perpi trace file");
	unlink(path);
	expect_refused("missing file", "No such file");
	free(bad);
	free(good);
}

/* Bytes changed inside the first events chunk, with its CRC made right
 * again (perpi.data(5): header = magic, version, length M, M bytes of
 * metadata, CRC; then type, length, CRC, payload): the decoder's own
 * checks must refuse or accept each file, never crash or hang. */
static void test_crafted_payloads(void)
{
	size_t len;
	write_trace(3000);
	uint8_t *good = slurp(&len), *bad = xmalloc(len);
	size_t chunk = 8 + 8 + trace_get_u32(good + 12) + 4;
	uint32_t payload = trace_get_u32(good + chunk + 4);
	int refused = 0;
	rng_state = 99;
	for (int k = 0; k < 3000; k++) {
		memcpy(bad, good, len);
		for (int n = 1 + rnd() % 3; n > 0; n--)
			bad[chunk + 12 + rnd() % payload] = (uint8_t)rnd();
		trace_put_u32(bad + chunk + 8, trace_crc32(0, bad + chunk + 12, payload));
		spit(bad, len);
		refused += try_read() < 0;
	}
	/* Most changes break some structure: refused with a reason. */
	CHECK(refused > 1500, "only %d of 3000 crafted files refused", refused);
	free(bad);
	free(good);
}

int main(void)
{
	char tmpl[] = "/tmp/perpi-test-trace-XXXXXX";
	int fd = mkstemp(tmpl);
	close(fd);
	path = tmpl;
	/* CRC-32 check value of the standard (e.g. zlib, PNG): "123456789". */
	CHECK(trace_crc32(0, "123456789", 9) == 0xcbf43926u, "crc32 check value");
	test_round_trip();
	test_bad_files();
	test_crafted_payloads();
	unlink(path);
	if (!failures)
		printf("PASS: trace file round trip and bad files\n");
	return failures ? 1 : 0;
}
