/* The Valgrind backend's two halves of perpi: the consumer thread reads
 * and resolves the tool's records, the sink thread runs the sink (the
 * engine, the trace writer), so that each has a CPU (the program runs on
 * a third, or beside them). Events cross in batches, packed to what they
 * use, through a ring of BATCHES buffers; a mutex and two conditions per
 * batch, never per event. */
#include <signal.h>
#include <stdlib.h>
#include <string.h>

#include "common/util.h"
#include "tracer/valgrind_trace.h"

#define BATCHES 8
#define BATCH_BYTES (256 << 10)

struct packed {
	const struct perpi_insn *insn;
	uint64_t sp;
	uint16_t flags, n_mem;
	uint8_t n_src, n_dst, first, pad;
}; /* then the units, then (8-aligned) the accesses */

struct batch {
	size_t used;
	uint8_t *data;
};

struct vg_queue {
	perpi_event_fn sink;
	void *ctx;
	pthread_mutex_t *names; /* held while a new instruction is passed */
	pthread_t thread;
	pthread_mutex_t lock;
	pthread_cond_t filled, emptied;
	struct batch b[BATCHES];
	unsigned head, tail; /* batches filled: tail..head-1 (mod BATCHES) */
	int closing, stopped;
	struct batch *cur; /* the producer's */
	struct perpi_event ev;
};

static size_t packed_size(uint8_t n_src, uint8_t n_dst, uint16_t n_mem)
{
	size_t units = (sizeof(struct packed) + n_src + n_dst + 7) & ~(size_t)7;
	return units + n_mem * sizeof(struct perpi_mem_access);
}

static size_t unpack(struct vg_queue *q, const uint8_t *p, int *first)
{
	const struct packed *h = (const struct packed *)p;
	struct perpi_event *ev = &q->ev;
	ev->insn = h->insn;
	ev->sp = h->sp;
	ev->flags = h->flags;
	ev->n_src = h->n_src, ev->n_dst = h->n_dst, ev->n_mem = h->n_mem;
	memcpy(ev->src, p + sizeof(*h), h->n_src);
	memcpy(ev->dst, p + sizeof(*h) + h->n_src, h->n_dst);
	size_t size = packed_size(h->n_src, h->n_dst, h->n_mem);
	memcpy(ev->mem, p + size - h->n_mem * sizeof(*ev->mem), h->n_mem * sizeof(*ev->mem));
	*first = h->first;
	return size;
}

/* The sink's side of one batch; 1 once the sink asked to stop. */
static int drain_batch(struct vg_queue *q, const struct batch *b)
{
	for (size_t off = 0; off < b->used;) {
		int first, stop;
		off += unpack(q, b->data + off, &first);
		if (first) {
			pthread_mutex_lock(q->names);
			stop = q->sink(q->ctx, &q->ev);
			pthread_mutex_unlock(q->names);
		} else {
			stop = q->sink(q->ctx, &q->ev);
		}
		if (stop)
			return 1;
	}
	return 0;
}

static void *sink_main(void *arg)
{
	struct vg_queue *q = arg;
	pthread_mutex_lock(&q->lock);
	for (;;) {
		while (q->tail == q->head && !q->closing)
			pthread_cond_wait(&q->filled, &q->lock);
		if (q->tail == q->head)
			break;
		struct batch *b = &q->b[q->tail % BATCHES];
		pthread_mutex_unlock(&q->lock);
		int stop = !q->stopped && drain_batch(q, b);
		pthread_mutex_lock(&q->lock);
		q->stopped |= stop;
		q->tail++;
		pthread_cond_signal(&q->emptied);
	}
	pthread_mutex_unlock(&q->lock);
	return NULL;
}

struct vg_queue *vg_queue_new(perpi_event_fn sink, void *ctx, pthread_mutex_t *names)
{
	struct vg_queue *q = xcalloc(1, sizeof(*q));
	q->sink = sink, q->ctx = ctx, q->names = names;
	pthread_mutex_init(&q->lock, NULL);
	pthread_cond_init(&q->filled, NULL);
	pthread_cond_init(&q->emptied, NULL);
	for (int i = 0; i < BATCHES; i++)
		q->b[i].data = xmalloc(BATCH_BYTES);
	q->cur = &q->b[0];
	sigset_t block, old; /* signals go to the consumer, whose reads they interrupt */
	sigfillset(&block);
	pthread_sigmask(SIG_BLOCK, &block, &old);
	int rc = pthread_create(&q->thread, NULL, sink_main, q);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (rc != 0) {
		vg_queue_delete(q);
		perpi_set_error("cannot start the sink thread");
		return NULL;
	}
	return q;
}

/* Hand the current batch over; wait for a free one. 1 if the sink has
 * asked to stop. */
static int publish(struct vg_queue *q)
{
	pthread_mutex_lock(&q->lock);
	q->head++;
	pthread_cond_signal(&q->filled);
	while (q->head - q->tail == BATCHES)
		pthread_cond_wait(&q->emptied, &q->lock);
	q->cur = &q->b[q->head % BATCHES];
	q->cur->used = 0;
	int stopped = q->stopped;
	pthread_mutex_unlock(&q->lock);
	return stopped;
}

int vg_queue_put(struct vg_queue *q, const struct perpi_event *ev, int first)
{
	size_t size = packed_size(ev->n_src, ev->n_dst, ev->n_mem);
	if (q->cur->used + size > BATCH_BYTES && publish(q))
		return 1;
	uint8_t *p = q->cur->data + q->cur->used;
	struct packed *h = (struct packed *)p;
	*h = (struct packed){ev->insn,	ev->sp,	   ev->flags,	   ev->n_mem,
			     ev->n_src, ev->n_dst, (uint8_t)first, 0};
	memcpy(p + sizeof(*h), ev->src, ev->n_src);
	memcpy(p + sizeof(*h) + ev->n_src, ev->dst, ev->n_dst);
	memcpy(p + size - ev->n_mem * sizeof(*ev->mem), ev->mem, ev->n_mem * sizeof(*ev->mem));
	q->cur->used += size;
	return 0;
}

void vg_queue_finish(struct vg_queue *q)
{
	if (q->cur->used)
		publish(q);
	pthread_mutex_lock(&q->lock);
	q->closing = 1;
	pthread_cond_signal(&q->filled);
	pthread_mutex_unlock(&q->lock);
	pthread_join(q->thread, NULL);
}

void vg_queue_delete(struct vg_queue *q)
{
	if (!q)
		return;
	for (int i = 0; i < BATCHES; i++)
		free(q->b[i].data);
	pthread_cond_destroy(&q->filled);
	pthread_cond_destroy(&q->emptied);
	pthread_mutex_destroy(&q->lock);
	free(q);
}
