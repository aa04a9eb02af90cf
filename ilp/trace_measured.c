/* The MEAS chunk of perpi.data (perpi.data(5)): perpi record --measure's
 * native figures, as perpi measure summarized them. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common/util.h"
#include "ilp/trace_codec.h"
#include "ilp/trace_measured.h"
#include "ilp/measured.h"

#define MEASURED_LAYOUT 1 /* the payload's own version */
#define MEASURED_MAX_FIGURES 4096
#define MEASURED_MAX_NAME 4096

static void put_varint(struct strbuf *sb, uint64_t v)
{
	uint8_t tmp[10];
	strbuf_add(sb, (char *)tmp, trace_put_varint(tmp, v) - tmp);
}

static void put_f64(struct strbuf *sb, double v)
{
	uint64_t bits;
	uint8_t b[8];
	memcpy(&bits, &v, 8);
	for (int i = 0; i < 8; i++)
		b[i] = (uint8_t)(bits >> (8 * i));
	strbuf_add(sb, (char *)b, 8);
}

static void put_string(struct strbuf *sb, const char *s)
{
	size_t n = strlen(s);
	put_varint(sb, n);
	strbuf_add(sb, s, n);
}

void trace_measured_encode(struct strbuf *sb, const struct measured *m)
{
	put_varint(sb, MEASURED_LAYOUT);
	put_varint(sb, m->runs);
	put_varint(sb, m->runs_asked);
	put_varint(sb, (uint64_t)m->clock);
	put_varint(sb, (uint64_t)m->method);
	put_f64(sb, m->ticks_per_cycle);
	put_f64(sb, m->overhead);
	put_f64(sb, m->region_overhead);
	put_f64(sb, m->nested_overhead);
	put_f64(sb, m->whole);
	put_varint(sb, m->n_figures);
	for (size_t i = 0; i < m->n_figures; i++) {
		const struct measured_figure *f = &m->figures[i];
		put_string(sb, f->name);
		strbuf_add(sb, f->is_region ? "\1" : "\0", 1);
		put_varint(sb, f->calls);
		put_varint(sb, f->unfinished);
		put_f64(sb, f->min);
		put_f64(sb, f->median);
		put_f64(sb, f->total);
	}
}

struct cursor {
	const uint8_t *p, *end;
	int bad;
};

static uint64_t get_varint(struct cursor *c, uint64_t max)
{
	uint64_t v = 0;
	if (!c->bad && (trace_get_varint(&c->p, c->end, &v) < 0 || v > max))
		c->bad = 1;
	return c->bad ? 0 : v;
}

/* A cycle count or ratio: finite and not negative. */
static double get_f64(struct cursor *c)
{
	if (c->bad || c->end - c->p < 8) {
		c->bad = 1;
		return 0;
	}
	uint64_t bits = 0;
	for (int i = 0; i < 8; i++)
		bits |= (uint64_t)c->p[i] << (8 * i);
	c->p += 8;
	double v;
	memcpy(&v, &bits, 8);
	if (!isfinite(v) || v < 0)
		c->bad = 1;
	return c->bad ? 0 : v;
}

static char *get_string(struct cursor *c)
{
	uint64_t n = get_varint(c, MEASURED_MAX_NAME);
	if (c->bad || n == 0 || n > (uint64_t)(c->end - c->p)) {
		c->bad = 1;
		return NULL;
	}
	char *s = xmalloc(n + 1);
	memcpy(s, c->p, n);
	s[n] = 0;
	c->p += n;
	if (strlen(s) != n) /* a NUL inside */
		c->bad = 1;
	return s;
}

static int get_figure(struct cursor *c, struct measured_figure *f)
{
	f->name = get_string(c);
	if (c->bad || c->p >= c->end || *c->p > 1)
		return c->bad = 1, -1;
	f->is_region = *c->p++;
	f->calls = get_varint(c, UINT64_MAX);
	f->unfinished = get_varint(c, UINT64_MAX);
	f->min = get_f64(c);
	f->median = get_f64(c);
	f->total = get_f64(c);
	return c->bad ? -1 : 0;
}

struct measured *trace_measured_decode(const uint8_t *p, const uint8_t *end, const char **why)
{
	struct cursor c = {p, end, 0};
	struct measured *m = xcalloc(1, sizeof(*m));
	*why = "bad measurement chunk";
	if (get_varint(&c, UINT64_MAX) != MEASURED_LAYOUT) {
		*why = c.bad ? *why : "measurement chunk of an unknown layout";
		c.bad = 1;
	}
	m->runs = (unsigned)get_varint(&c, UINT32_MAX);
	m->runs_asked = (unsigned)get_varint(&c, UINT32_MAX);
	m->clock = (int)get_varint(&c, MEASURED_CLOCK_CYCLES);
	m->method = (int)get_varint(&c, MEASURED_BREAKPOINT);
	m->ticks_per_cycle = get_f64(&c);
	m->overhead = get_f64(&c);
	m->region_overhead = get_f64(&c);
	m->nested_overhead = get_f64(&c);
	m->whole = get_f64(&c);
	size_t n = get_varint(&c, MEASURED_MAX_FIGURES);
	if (!c.bad && !(m->ticks_per_cycle > 0))
		c.bad = 1;
	m->figures = xcalloc(n + 1, sizeof(*m->figures));
	for (; !c.bad && m->n_figures < n; m->n_figures++)
		get_figure(&c, &m->figures[m->n_figures]); /* freed with m when bad */
	if (!c.bad && c.p != end) {
		*why = "trailing bytes in the measurement chunk";
		c.bad = 1;
	}
	if (c.bad) {
		measured_free(m);
		return NULL;
	}
	return m;
}
