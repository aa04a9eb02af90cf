/* The decoder thread of the Valgrind backend: when Valgrind translates a
 * superblock, the tool sends its instructions' addresses and bytes; this
 * thread decodes each with perpi's x86 layer (once per address and bytes),
 * notes its mapping for the names (while it is surely mapped), and answers
 * its id and the registers x86_resolve will read (x86_inputs), which the
 * tool then copies into every record of it. It runs beside the consumer,
 * which only reads the table (ids are published with a release store). */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/util.h"
#include "tracer/symbols.h"
#include "tracer/trace_internal.h"
#include "tracer/valgrind_trace.h"
#include "tracer/x86.h"

struct reader {
	int fd;
	uint8_t buf[16384];
	size_t pos, end;
};

/* n bytes at *out; 1, 0 at a clean end of file, -1 on a short request. */
static int need(struct reader *rd, size_t n, const uint8_t **out)
{
	if (rd->end - rd->pos < n) {
		memmove(rd->buf, rd->buf + rd->pos, rd->end - rd->pos);
		rd->end -= rd->pos;
		rd->pos = 0;
		while (rd->end < n) {
			ssize_t got = read(rd->fd, rd->buf + rd->end, sizeof(rd->buf) - rd->end);
			if (got < 0 && errno == EINTR)
				continue;
			if (got <= 0)
				return rd->end ? -1 : 0;
			rd->end += (size_t)got;
		}
	}
	*out = rd->buf + rd->pos;
	rd->pos += n;
	return 1;
}

static size_t slot_of(uint64_t addr, size_t mask)
{
	uint64_t x = addr * 0x9E3779B97F4A7C15ULL;
	return (size_t)(x ^ (x >> 32)) & mask;
}

static void table_index(struct vg_table *tb, uint64_t addr, uint32_t id)
{
	if ((tb->used + 1) * 2 > tb->mask) {
		size_t mask = tb->mask ? tb->mask * 2 + 1 : 4095;
		uint64_t *a = xcalloc(mask + 1, sizeof(*a));
		uint32_t *ids = xcalloc(mask + 1, sizeof(*ids));
		for (size_t i = 0; tb->mask && i <= tb->mask; i++) {
			if (!tb->id[i])
				continue;
			size_t h = slot_of(tb->addr[i], mask);
			while (ids[h])
				h = (h + 1) & mask;
			a[h] = tb->addr[i], ids[h] = tb->id[i];
		}
		free(tb->addr);
		free(tb->id);
		tb->addr = a, tb->id = ids, tb->mask = mask;
	}
	size_t h = slot_of(addr, tb->mask);
	while (tb->id[h] && tb->addr[h] != addr)
		h = (h + 1) & tb->mask;
	tb->used += !tb->id[h];
	tb->addr[h] = addr, tb->id[h] = id;
}

static uint32_t table_find(const struct vg_table *tb, uint64_t addr)
{
	if (!tb->mask)
		return 0;
	for (size_t h = slot_of(addr, tb->mask); tb->id[h]; h = (h + 1) & tb->mask)
		if (tb->addr[h] == addr)
			return tb->id[h];
	return 0;
}

struct vg_insn *valgrind_table_get(struct vg_table *tb, uint32_t id)
{
	if (id >= atomic_load_explicit(&tb->count, memory_order_acquire) || !id)
		return NULL;
	return &tb->chunk[id / VG_TABLE_CHUNK][id % VG_TABLE_CHUNK];
}

void valgrind_table_done(struct vg_table *tb)
{
	for (size_t i = 0; i < VG_TABLE_CHUNKS && tb->chunk[i]; i++)
		free(tb->chunk[i]);
	free(tb->addr);
	free(tb->id);
	memset(tb, 0, sizeof(*tb));
}

/* The slots of an instruction, in the order the consumer reads them. */
static void fill_slots(struct vg_insn *vi)
{
	struct x86_inputs in;
	x86_inputs(&vi->insn, &in);
	vi->n_slots = 0;
	vi->record_size = 4;
	uint8_t *s = vi->slot;
	for (int i = 0; i < 16; i++)
		if (in.gpr >> i & 1)
			s[vi->n_slots++] = (uint8_t)(VGP_SLOT_GPR + i);
	if (in.fs_base)
		s[vi->n_slots++] = VGP_SLOT_FS_BASE;
	if (in.gs_base)
		s[vi->n_slots++] = VGP_SLOT_GS_BASE;
	if (in.fpu_top)
		s[vi->n_slots++] = VGP_SLOT_FPU_TOP;
	for (int i = 0; i < 16 && vi->n_slots < VGP_MAX_SLOTS; i++)
		if (in.vec >> i & 1)
			s[vi->n_slots++] = (uint8_t)(VGP_SLOT_YMM + i);
	for (int i = 0; i < vi->n_slots; i++)
		vi->record_size += VGP_SLOT_SIZE(s[i]);
	vi->rep_string = in.rep_string;
	vi->rcx_32 = in.rcx_32;
}

/* Decoded with Valgrind's length: a decoder that reads another length is
 * not describing the instruction Valgrind runs. */
static void decode(struct tracer *t, struct vg_insn *vi, uint64_t addr, const uint8_t *bytes,
		   size_t len)
{
	struct perpi_insn *in = &vi->insn;
	if (x86_decode(t->dec, addr, bytes, len, in) < 0 || in->len != len) {
		struct strbuf sb;
		strbuf_init(&sb);
		for (size_t i = 0; i < len; i++)
			strbuf_addf(&sb, "%s%02x", i ? " " : "", bytes[i]);
		perpi_warn("%#llx: undecodable instruction (bytes %s): treated as reading and "
			   "writing everything",
			   (unsigned long long)addr, sb.buf);
		strbuf_done(&sb);
		memset(in, 0, sizeof(*in));
		in->decoder = DECODER_UNKNOWN;
		in->klass = CLASS_OTHER;
		snprintf(in->text, sizeof(in->text), "(undecodable)");
	}
	in->addr = addr;
	in->len = (uint8_t)len;
	memcpy(in->bytes, bytes, len);
}

static uint32_t answer(struct tracer *t, uint64_t addr, const uint8_t *bytes, size_t len)
{
	struct vg_table *tb = &t->vg->table;
	uint32_t id = table_find(tb, addr);
	if (id) {
		struct vg_insn *old = &tb->chunk[id / VG_TABLE_CHUNK][id % VG_TABLE_CHUNK];
		if (old->insn.len == len && !memcmp(old->insn.bytes, bytes, len))
			return id;
	}
	id = atomic_load_explicit(&tb->count, memory_order_relaxed);
	if (id / VG_TABLE_CHUNK >= VG_TABLE_CHUNKS)
		return 0;
	if (!tb->chunk[id / VG_TABLE_CHUNK])
		tb->chunk[id / VG_TABLE_CHUNK] = xcalloc(VG_TABLE_CHUNK, sizeof(struct vg_insn));
	struct vg_insn *vi = &tb->chunk[id / VG_TABLE_CHUNK][id % VG_TABLE_CHUNK];
	decode(t, vi, addr, bytes, len);
	fill_slots(vi);
	pthread_mutex_lock(&t->vg->lock);
	symbolizer_note(t->syms, addr);
	pthread_mutex_unlock(&t->vg->lock);
	table_index(tb, addr, id);
	atomic_store_explicit(&tb->count, id + 1, memory_order_release);
	return id;
}

/* The process is now loaded: names come from its maps from here on. */
static void first_request(struct tracer *t)
{
	pthread_mutex_lock(&t->vg->lock);
	symbolizer_delete(t->syms);
	t->syms = symbolizer_new(t->vg->pid, t->path);
	pthread_mutex_unlock(&t->vg->lock);
}

static int serve(struct tracer *t, struct reader *rd, int *first)
{
	const uint8_t *p;
	struct vgp_reply rep[VGP_MAX_REQUEST];
	int r = need(rd, 8, &p);
	if (r <= 0)
		return r;
	uint32_t magic = (uint32_t)p[0] | p[1] << 8 | p[2] << 16 | (uint32_t)p[3] << 24;
	uint32_t n = (uint32_t)p[4] | p[5] << 8 | p[6] << 16 | (uint32_t)p[7] << 24;
	if (magic != VGP_REQUEST_MAGIC || n > VGP_MAX_REQUEST)
		return perpi_set_error("the Valgrind tool sent a bad request");
	if (*first)
		first_request(t);
	*first = 0;
	for (uint32_t i = 0; i < n; i++) {
		uint64_t addr;
		if (need(rd, 9, &p) <= 0)
			return perpi_set_error("the Valgrind tool sent a short request");
		memcpy(&addr, p, 8);
		size_t len = p[8];
		if (len == 0 || len > 15 || need(rd, len, &p) <= 0)
			return perpi_set_error("the Valgrind tool sent a bad instruction");
		memset(&rep[i], 0, sizeof(rep[i]));
		rep[i].id = answer(t, addr, p, len);
		const struct vg_insn *vi = valgrind_table_get(&t->vg->table, rep[i].id);
		if (!vi)
			return perpi_set_error("more than %d instructions",
					       VG_TABLE_CHUNK * VG_TABLE_CHUNKS);
		rep[i].n_slots = vi->n_slots;
		memcpy(rep[i].slot, vi->slot, vi->n_slots);
	}
	for (size_t done = 0, size = n * sizeof(*rep); done < size;) {
		ssize_t w = write(t->vg->replies_fd, (uint8_t *)rep + done, size - done);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return 0; /* the tool is gone */
		done += (size_t)w;
	}
	return 1;
}

static void *decoder_main(void *arg)
{
	struct tracer *t = arg;
	struct reader *rd = xcalloc(1, sizeof(*rd));
	int r, first = 1;
	rd->fd = t->vg->requests_fd;
	while ((r = serve(t, rd, &first)) > 0)
		;
	if (r < 0) {
		snprintf(t->vg->decoder_error, sizeof(t->vg->decoder_error), "%s", perpi_error());
		t->vg->decoder_failed = 1;
	}
	close(t->vg->replies_fd); /* the tool stops if it still asks */
	t->vg->replies_fd = -1;
	free(rd);
	return NULL;
}

int valgrind_decoder_start(struct tracer *t)
{
	atomic_store(&t->vg->table.count, 1); /* id 0: markers */
	/* Ctrl-C and --duration must interrupt the consumer's read, and a reply
	 * to a tool that is gone must fail with EPIPE: the thread blocks them */
	sigset_t block, old;
	sigemptyset(&block);
	sigaddset(&block, SIGINT);
	sigaddset(&block, SIGTERM);
	sigaddset(&block, SIGALRM);
	sigaddset(&block, SIGPIPE);
	pthread_sigmask(SIG_BLOCK, &block, &old);
	int rc = pthread_create(&t->vg->decoder, NULL, decoder_main, t);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (rc != 0)
		return perpi_set_error("cannot start the decoder thread");
	t->vg->decoder_started = 1;
	return 0;
}

void valgrind_decoder_join(struct tracer *t)
{
	if (t->vg->decoder_started)
		pthread_join(t->vg->decoder, NULL);
	t->vg->decoder_started = 0;
}
