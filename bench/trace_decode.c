/* Replay speed of perpi.data alone: decode every event into a sink that
 * only counts, no engine. usage: trace_decode FILE. Prints events,
 * seconds and millions of events per second. */
#include <stdio.h>

#include "common/util.h"
#include "ilp/trace_file.h"

static int count(void *ctx, const struct perpi_event *ev)
{
	uint64_t *n = ctx;
	*n += 1 + ev->n_mem; /* touch the event so the loop is not empty */
	return 0;
}

int main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: trace_decode FILE\n");
		return 2;
	}
	uint64_t n = 0;
	double t0 = perpi_now();
	struct trace_reader *r = trace_reader_open(argv[1]);
	if (!r || trace_reader_replay(r, count, &n) < 0) {
		fprintf(stderr, "trace_decode: %s\n", perpi_error());
		return 1;
	}
	double dt = perpi_now() - t0;
	uint64_t events = trace_reader_end(r)->events;
	printf("events %llu  seconds %.3f  Mevents/s %.1f\n", (unsigned long long)events, dt,
	       events / dt / 1e6);
	trace_reader_close(r);
	return 0;
}
