#define _GNU_SOURCE 1
#include "palmed/harness.h"

#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include <xmmintrin.h>

#include "common/util.h"
#include "palmed/gen.h"
#include "palmed/timing.h"
#include "tracer/elf.h"

char *harness_make_dir(void)
{
	const char *tmp = getenv("TMPDIR");
	char *dir = xasprintf("%s/perpi-bench-XXXXXX", tmp && *tmp ? tmp : "/tmp");
	if (!mkdtemp(dir)) {
		perpi_set_error("scratch directory %s: %s", dir, strerror(errno));
		free(dir);
		return NULL;
	}
	return dir;
}

void harness_remove_dir(const char *dir)
{
	if (getenv("PERPI_KEEP_TMP")) { /* for debugging the generated code */
		fprintf(stderr, "perpi: kept %s\n", dir);
		return;
	}
	DIR *d = opendir(dir);
	struct dirent *e;
	while (d && (e = readdir(d))) {
		if (e->d_name[0] == '.')
			continue;
		char *p = xasprintf("%s/%s", dir, e->d_name);
		unlink(p);
		free(p);
	}
	if (d)
		closedir(d);
	rmdir(dir);
}

/* Run a tool, its stderr into *diag (if not NULL). Returns its exit status
 * or -1 with perpi_error() set. */
static int run_tool(char *const argv[], const char *diag_path, char **diag)
{
	pid_t pid = fork();
	if (pid < 0)
		return perpi_set_error("%s: fork: %s", argv[0], strerror(errno));
	if (pid == 0) {
		int fd = open(diag_path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
		if (fd >= 0) {
			dup2(fd, 2);
			dup2(fd, 1);
		}
		execvp(argv[0], argv);
		fprintf(stderr, "%s: %s\n", argv[0], strerror(errno));
		_exit(127);
	}
	int st;
	while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
		;
	if (diag) {
		FILE *f = fopen(diag_path, "r");
		struct strbuf sb;
		strbuf_init(&sb);
		char buf[4096];
		size_t n;
		while (f && (n = fread(buf, 1, sizeof(buf), f)) > 0)
			strbuf_add(&sb, buf, n);
		if (f)
			fclose(f);
		*diag = sb.buf;
	}
	if (!WIFEXITED(st) || WEXITSTATUS(st) == 127)
		return perpi_set_error("%s could not run (GNU binutils installed?)", argv[0]);
	return WEXITSTATUS(st);
}

static int write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");
	if (!f)
		return perpi_set_error("%s: %s", path, strerror(errno));
	fputs(text, f);
	if (fclose(f) != 0)
		return perpi_set_error("%s: %s", path, strerror(errno));
	return 0;
}

int harness_assemble(const char *dir, const char *stem, const char *text, char **diag)
{
	char *src = xasprintf("%s/%s.s", dir, stem), *obj = xasprintf("%s/%s.o", dir, stem);
	char *log = xasprintf("%s/%s.log", dir, stem);
	int rc = write_file(src, text);
	if (rc == 0) {
		char *argv[] = {"as", "--64", "-o", obj, src, NULL};
		char *msg = NULL;
		rc = run_tool(argv, log, &msg);
		if (rc > 0) {
			const char *first = msg ? strstr(msg, "Error: ") : NULL;
			perpi_set_error("GNU as rejected the generated code: %.*s",
					first ? (int)strcspn(first + 7, "\n") : 0,
					first ? first + 7 : "");
			rc = -1;
		}
		if (diag)
			*diag = msg;
		else
			free(msg);
	}
	free(src);
	free(obj);
	free(log);
	return rc;
}

int harness_link(const char *dir, const char *stem)
{
	char *obj = xasprintf("%s/%s.o", dir, stem), *so = xasprintf("%s/%s.so", dir, stem);
	char *log = xasprintf("%s/%s.ldlog", dir, stem);
	char *argv[] = {"ld", "-shared", "-z", "noexecstack", "-o", so, obj, NULL};
	char *msg = NULL;
	int rc = run_tool(argv, log, &msg);
	if (rc > 0)
		rc = perpi_set_error("ld -shared failed: %.200s", msg ? msg : "");
	free(msg);
	free(obj);
	free(so);
	free(log);
	return rc;
}

int harness_text_bytes(const char *path, uint8_t **bytes, size_t *len)
{
	return elf_read_section(path, ".text", bytes, len, NULL);
}

void harness_output_done(struct harness_output *o)
{
	free(o->samples);
	free(o->clean);
	o->samples = NULL;
	o->clean = NULL;
}
