/* ILP histogram: bounded storage with exact sums, binned views. */
#include <stdlib.h>
#include <string.h>

#include "common/util.h"
#include "ilp/hist.h"

struct hist {
	uint64_t (*count)[CLASS_COUNT];
	size_t cap;	/* allocated bins, at most HIST_MAX_BINS */
	uint64_t width; /* steps per stored bin, a power of two */
	unsigned shift; /* log2(width) */
	uint64_t max_step;
};

static const char *const class_names[CLASS_COUNT] = {"load", "store", "int",	"fp",
						     "vec",  "move",  "branch", "other"};
/* Colour-blind-safe (Okabe-Ito) plus grey. */
static const char *const class_colours[CLASS_COUNT] = {"#0072B2", "#56B4E9", "#E69F00", "#D55E00",
						       "#CC79A7", "#009E73", "#F0E442", "#999999"};

const char *hist_class_name(unsigned klass)
{
	return klass < CLASS_COUNT ? class_names[klass] : "?";
}

const char *hist_class_colour(unsigned klass)
{
	return klass < CLASS_COUNT ? class_colours[klass] : "#000000";
}

struct hist *hist_new(void)
{
	struct hist *h = xcalloc(1, sizeof(*h));
	h->width = 1;
	return h;
}

void hist_delete(struct hist *h)
{
	if (h)
		free(h->count);
	free(h);
}

/* Halves the resolution: bin i takes bins 2i and 2i+1. Sums stay exact. */
static void coarsen(struct hist *h)
{
	for (size_t i = 0; i < h->cap / 2; i++)
		for (unsigned k = 0; k < CLASS_COUNT; k++)
			h->count[i][k] = h->count[2 * i][k] + h->count[2 * i + 1][k];
	memset(h->count + h->cap / 2, 0, (h->cap - h->cap / 2) * sizeof(*h->count));
	h->width *= 2;
	h->shift++;
}

void hist_add(struct hist *h, uint64_t step, unsigned klass, uint64_t n)
{
	if (!step || klass >= CLASS_COUNT)
		return;
	size_t bin = (step - 1) >> h->shift;
	if (bin < h->cap) { /* the common case */
		h->count[bin][klass] += n;
		if (step > h->max_step)
			h->max_step = step;
		return;
	}
	while ((step - 1) >> h->shift >= HIST_MAX_BINS)
		coarsen(h);
	bin = (step - 1) >> h->shift;
	if (bin >= h->cap) {
		size_t cap = h->cap ? h->cap : 256;
		while (cap <= bin)
			cap *= 2;
		if (cap > HIST_MAX_BINS)
			cap = HIST_MAX_BINS;
		h->count = xrealloc(h->count, cap * sizeof(*h->count));
		memset(h->count + h->cap, 0, (cap - h->cap) * sizeof(*h->count));
		h->cap = cap;
	}
	h->count[bin][klass] += n;
	if (step > h->max_step)
		h->max_step = step;
}

void hist_observe(void *hist, const struct engine_step_info *info)
{
	if (info->step)
		hist_add(hist, info->step, info->ev->insn->klass, 1);
}

uint64_t hist_max_step(const struct hist *h)
{
	return h->max_step;
}

int hist_bin(const struct hist *h, uint64_t first, uint64_t last, unsigned max_bins,
	     struct hist_bins *out)
{
	memset(out, 0, sizeof(*out));
	if (last > h->max_step)
		last = h->max_step;
	/* Stored bins hold h->width steps each: widen the range to them. */
	if (last % h->width) {
		last += h->width - last % h->width;
		if (last > h->max_step)
			last = h->max_step;
	}
	if (!first)
		first = 1;
	if (!h->max_step)
		return perpi_set_error("no instruction to show: the analysed run is empty");
	if (first > last)
		return perpi_set_error("no step from %llu on: the run has %llu steps",
				       (unsigned long long)first, (unsigned long long)h->max_step);
	uint64_t lo = (first - 1) / h->width * h->width + 1;
	uint64_t span = last - lo + 1;
	uint64_t width = h->width;
	if (max_bins && (span + width - 1) / width > max_bins) {
		uint64_t want = (span + max_bins - 1) / max_bins;
		width = (want + h->width - 1) / h->width * h->width;
	}
	out->first = lo;
	out->last = last;
	out->width = width;
	out->n = (span + width - 1) / width;
	out->count = xcalloc(out->n, sizeof(*out->count));
	for (uint64_t b = (lo - 1) / h->width; b * h->width < last && b < h->cap; b++) {
		size_t row = (b * h->width + 1 - lo) / width;
		for (unsigned k = 0; k < CLASS_COUNT; k++) {
			out->count[row][k] += h->count[b][k];
			out->total += h->count[b][k];
		}
	}
	return 0;
}

void hist_bins_done(struct hist_bins *bins)
{
	free(bins->count);
	bins->count = NULL;
}

static uint64_t bin_first(const struct hist_bins *b, size_t i)
{
	return b->first + i * b->width;
}

static uint64_t bin_last(const struct hist_bins *b, size_t i)
{
	uint64_t last = b->first + (i + 1) * b->width - 1;
	return last < b->last ? last : b->last;
}

static uint64_t row_total(const struct hist_bins *b, size_t i)
{
	uint64_t t = 0;
	for (unsigned k = 0; k < CLASS_COUNT; k++)
		t += b->count[i][k];
	return t;
}

void hist_write_csv(FILE *out, const struct hist_bins *b)
{
	fprintf(out, "first_step,last_step,steps");
	for (unsigned k = 0; k < CLASS_COUNT; k++)
		fprintf(out, ",%s", class_names[k]);
	fprintf(out, ",total\n");
	for (size_t i = 0; i < b->n; i++) {
		uint64_t f = bin_first(b, i), l = bin_last(b, i);
		fprintf(out, "%llu,%llu,%llu", (unsigned long long)f, (unsigned long long)l,
			(unsigned long long)(l - f + 1));
		for (unsigned k = 0; k < CLASS_COUNT; k++)
			fprintf(out, ",%llu", (unsigned long long)b->count[i][k]);
		fprintf(out, ",%llu\n", (unsigned long long)row_total(b, i));
	}
}

static const char class_letters[CLASS_COUNT] = {'l', 's', 'i', 'f', 'v', 'm', 'b', 'o'};
static const int class_ansi[CLASS_COUNT] = {44, 46, 43, 41, 45, 42, 103, 47};

static double max_rate(const struct hist_bins *b)
{
	double m = 0;
	for (size_t i = 0; i < b->n; i++) {
		double r = (double)row_total(b, i) / (bin_last(b, i) - bin_first(b, i) + 1);
		if (r > m)
			m = r;
	}
	return m;
}

/* Splits a bar of len cells between the classes in proportion to their
 * counts (largest remainders), so the cells add up to len exactly. */
static void split_cells(const uint64_t *count, uint64_t total, unsigned len, unsigned *cells)
{
	double rem[CLASS_COUNT];
	unsigned used = 0;
	for (unsigned k = 0; k < CLASS_COUNT; k++) {
		double exact = total ? (double)count[k] * len / total : 0;
		cells[k] = (unsigned)exact;
		rem[k] = exact - cells[k];
		used += cells[k];
	}
	while (used < len) {
		unsigned best = 0;
		for (unsigned k = 1; k < CLASS_COUNT; k++)
			if (rem[k] > rem[best])
				best = k;
		cells[best]++, rem[best] = -1, used++;
	}
}

void hist_write_text(FILE *out, const struct hist_bins *b, unsigned bar_width, int colour)
{
	double top = max_rate(b);
	fprintf(out, "instructions per step, steps %llu-%llu, %zu bin%s of %llu step%s\n",
		(unsigned long long)b->first, (unsigned long long)b->last, b->n,
		b->n == 1 ? "" : "s", (unsigned long long)b->width, b->width == 1 ? "" : "s");
	for (size_t i = 0; i < b->n; i++) {
		uint64_t f = bin_first(b, i), l = bin_last(b, i), t = row_total(b, i);
		double rate = (double)t / (l - f + 1);
		unsigned len = top > 0 ? (unsigned)(rate / top * bar_width + 0.5) : 0,
			 cells[CLASS_COUNT];
		split_cells(b->count[i], t, len, cells);
		if (b->width == 1)
			fprintf(out, "%10llu       |", (unsigned long long)f);
		else
			fprintf(out, "%10llu-%-6llu|", (unsigned long long)f,
				(unsigned long long)l);
		for (unsigned k = 0; k < CLASS_COUNT; k++) {
			if (colour && cells[k])
				fprintf(out, "\033[%dm", class_ansi[k]);
			for (unsigned c = 0; c < cells[k]; c++)
				fputc(class_letters[k], out);
			if (colour && cells[k])
				fputs("\033[0m", out);
		}
		fprintf(out, "%*s %.2f\n", (int)(bar_width - len), "", rate);
	}
	fprintf(out, "legend:");
	for (unsigned k = 0; k < CLASS_COUNT; k++) {
		if (colour)
			fprintf(out, " \033[%dm%c\033[0m %s", class_ansi[k], class_letters[k],
				class_names[k]);
		else
			fprintf(out, " %c %s", class_letters[k], class_names[k]);
	}
	fprintf(out, "\n");
}
