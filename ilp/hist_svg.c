/* The ILP histogram as an SVG chart: stacked bars of instructions per step
 * by class, with axes, ticks, labels, a legend and a title. */
#include <math.h>
#include <stdio.h>

#include "ilp/hist.h"

enum { SVG_W = 960, SVG_H = 540, LEFT = 80, RIGHT = 190, TOP = 56, BOTTOM = 64 };

/* 1, 2 or 5 times a power of ten, so that about n ticks cover max. */
static double nice_tick(double max, int n)
{
	double raw = max / n, mag = pow(10, floor(log10(raw)));
	double f = raw / mag;
	return (f <= 1 ? 1 : f <= 2 ? 2 : f <= 5 ? 5 : 10) * mag;
}

static void xml_text(FILE *out, const char *s)
{
	for (; *s; s++) {
		switch (*s) {
		case '<':
			fputs("&lt;", out);
			break;
		case '>':
			fputs("&gt;", out);
			break;
		case '&':
			fputs("&amp;", out);
			break;
		case '"':
			fputs("&quot;", out);
			break;
		default:
			fputc(*s, out);
		}
	}
}

static void write_axes(FILE *out, const struct hist_bins *b, double ymax, double ytick)
{
	const double pw = SVG_W - LEFT - RIGHT, ph = SVG_H - TOP - BOTTOM;
	fprintf(out, "<g font-size=\"12\" fill=\"#222\">\n");
	for (double y = 0; y <= ymax * 1.0001; y += ytick) {
		double py = TOP + ph - y / ymax * ph;
		fprintf(out,
			"<line x1=\"%d\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#ddd\"/>\n",
			LEFT, py, LEFT + pw, py);
		fprintf(out, "<text x=\"%d\" y=\"%.1f\" text-anchor=\"end\">%g</text>\n", LEFT - 6,
			py + 4, y);
	}
	double steps = (double)(b->last - b->first + 1);
	double xtick = nice_tick(steps, 8);
	if (xtick < 1)
		xtick = 1;
	for (double s = ceil((b->first - 1) / xtick) * xtick; s <= b->last; s += xtick) {
		double px = LEFT + (s - (b->first - 1)) / steps * pw;
		fprintf(out,
			"<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#222\"/>\n",
			px, TOP + ph, px, TOP + ph + 5);
		fprintf(out, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">%.0f</text>\n", px,
			TOP + ph + 19, s);
	}
	fprintf(out, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%.1f\" stroke=\"#222\"/>\n", LEFT,
		TOP, LEFT, TOP + ph);
	fprintf(out, "<line x1=\"%d\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#222\"/>\n",
		LEFT, TOP + ph, LEFT + pw, TOP + ph);
	fprintf(out,
		"<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\" font-size=\"14\">step</text>\n",
		LEFT + pw / 2, SVG_H - 18);
	fprintf(out,
		"<text transform=\"translate(24 %.1f) rotate(-90)\" text-anchor=\"middle\" "
		"font-size=\"14\">instructions per step</text>\n</g>\n",
		TOP + ph / 2);
}

static void write_legend(FILE *out, const struct hist_bins *b)
{
	uint64_t sums[CLASS_COUNT] = {0};
	for (size_t i = 0; i < b->n; i++)
		for (unsigned k = 0; k < CLASS_COUNT; k++)
			sums[k] += b->count[i][k];
	fprintf(out, "<g font-size=\"13\" fill=\"#222\">\n");
	int y = TOP;
	for (unsigned k = CLASS_COUNT; k-- > 0;) { /* top to bottom, as stacked */
		fprintf(out, "<rect x=\"%d\" y=\"%d\" width=\"14\" height=\"14\" fill=\"%s\"/>\n",
			SVG_W - RIGHT + 20, y, hist_class_colour(k));
		fprintf(out, "<text x=\"%d\" y=\"%d\">%s (%llu)</text>\n", SVG_W - RIGHT + 40,
			y + 12, hist_class_name(k), (unsigned long long)sums[k]);
		y += 22;
	}
	fprintf(out, "</g>\n");
}

void hist_write_svg(FILE *out, const struct hist_bins *b, const char *title)
{
	const double pw = SVG_W - LEFT - RIGHT, ph = SVG_H - TOP - BOTTOM;
	const double steps = (double)(b->last - b->first + 1);
	double top = 0;
	for (size_t i = 0; i < b->n; i++) {
		uint64_t f = b->first + i * b->width, l = f + b->width - 1, t = 0;
		if (l > b->last)
			l = b->last;
		for (unsigned k = 0; k < CLASS_COUNT; k++)
			t += b->count[i][k];
		if ((double)t / (l - f + 1) > top)
			top = (double)t / (l - f + 1);
	}
	if (top <= 0)
		top = 1;
	double ytick = nice_tick(top, 6), ymax = ceil(top / ytick) * ytick;
	fprintf(out,
		"<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
		"<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" "
		"viewBox=\"0 0 %d %d\" font-family=\"sans-serif\">\n"
		"<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>\n"
		"<text x=\"%d\" y=\"30\" font-size=\"17\" font-weight=\"bold\" fill=\"#222\">",
		SVG_W, SVG_H, SVG_W, SVG_H, LEFT);
	xml_text(out, title ? title : "ILP histogram");
	fprintf(out, "</text>\n");
	write_axes(out, b, ymax, ytick);
	for (size_t i = 0; i < b->n; i++) {
		uint64_t f = b->first + i * b->width, l = f + b->width - 1, t = 0;
		if (l > b->last)
			l = b->last;
		double x = LEFT + (f - b->first) / steps * pw, w = (l - f + 1) / steps * pw;
		double y = TOP + ph, n = (double)(l - f + 1);
		for (unsigned k = 0; k < CLASS_COUNT; k++)
			t += b->count[i][k];
		fprintf(out, "<g><title>steps %llu-%llu: %llu instructions</title>\n",
			(unsigned long long)f, (unsigned long long)l, (unsigned long long)t);
		for (unsigned k = 0; k < CLASS_COUNT; k++) {
			if (!b->count[i][k])
				continue;
			double hgt = b->count[i][k] / n / ymax * ph;
			y -= hgt;
			fprintf(out,
				"<rect x=\"%.2f\" y=\"%.2f\" width=\"%.2f\" height=\"%.2f\" "
				"fill=\"%s\"/>\n",
				x, y, w > 3 ? w - 0.5 : w, hgt, hist_class_colour(k));
		}
		fprintf(out, "</g>\n");
	}
	write_legend(out, b);
	fprintf(out, "</svg>\n");
}
