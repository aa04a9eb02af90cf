#define _GNU_SOURCE 1
#include "fuzz/fuzz_util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "common/util.h"

static int fd = -1;
static char path[64];

const char *fuzz_file(const uint8_t *data, size_t size)
{
	fuzz_file_done();
	fd = memfd_create("perpi-fuzz", 0);
	if (fd < 0)
		return NULL;
	size_t off = 0;
	while (off < size) {
		ssize_t n = write(fd, data + off, size - off);
		if (n <= 0) {
			fuzz_file_done();
			return NULL;
		}
		off += (size_t)n;
	}
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	return path;
}

void fuzz_file_done(void)
{
	if (fd >= 0)
		close(fd);
	fd = -1;
}

char *fuzz_string(const uint8_t *data, size_t size)
{
	char *s = xmalloc(size + 1);
	memcpy(s, data, size);
	s[size] = 0;
	return s;
}

void fuzz_quiet(void)
{
	perpi_quiet = 1;
}
