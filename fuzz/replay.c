/* A fuzz target without libFuzzer (make check): runs it once on each file
 * named, as libFuzzer would, so that the seeds and every input that once
 * crashed (fuzz/regress/NAME) keep passing in the ordinary build and under
 * --enable-sanitizers. usage: replay_NAME FILE... */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/util.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerInitialize(int *argc, char ***argv);

int main(int argc, char **argv)
{
	LLVMFuzzerInitialize(&argc, &argv);
	for (int i = 1; i < argc; i++) {
		FILE *f = fopen(argv[i], "rb");
		if (!f) {
			fprintf(stderr, "replay: cannot open %s\n", argv[i]);
			return 1;
		}
		struct strbuf sb;
		char buf[4096];
		size_t n;
		strbuf_init(&sb);
		while ((n = fread(buf, 1, sizeof(buf), f)) > 0)
			strbuf_add(&sb, buf, n);
		fclose(f);
		/* libFuzzer hands over a buffer of exactly the input's size */
		uint8_t *data = xmalloc(sb.len + 1);
		if (sb.len)
			memcpy(data, sb.buf, sb.len);
		LLVMFuzzerTestOneInput(data, sb.len);
		free(data);
		strbuf_done(&sb);
	}
	return 0;
}
