#include "cmd/bench_cli.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/util.h"
#include "palmed/db.h"

int bench_cli_count(const char *text, long *out, long min, long max)
{
	char *end;
	errno = 0;
	long v = strtol(text, &end, 10);
	if (errno || end == text || *end || v < min || v > max)
		return perpi_set_error("bad number '%s': expected an integer in [%ld, %ld]", text,
				       min, max);
	*out = v;
	return 0;
}

static int add_kernel(const char *spec, int single_form, struct kernel **ks, size_t *n)
{
	struct kernel k;
	if (kernel_parse(spec, &k) < 0)
		return -1;
	if (single_form && (k.n != 1 || k.terms[0].count != 1)) {
		kernel_done(&k);
		return perpi_set_error("latency: give one form, not '%s'", spec);
	}
	*ks = xrealloc(*ks, (*n + 1) * sizeof(**ks));
	(*ks)[(*n)++] = k;
	return 0;
}

int bench_cli_read_kernels(char **args, int n_args, const char *file, int single_form,
			   struct kernel **out, size_t *n)
{
	*out = NULL;
	*n = 0;
	for (int i = 0; i < n_args; i++)
		if (add_kernel(args[i], single_form, out, n) < 0)
			goto fail;
	if (file) {
		FILE *f = strcmp(file, "-") ? fopen(file, "r") : stdin;
		char line[4096];
		if (!f) {
			perpi_set_error("%s: %s", file, strerror(errno));
			goto fail;
		}
		while (fgets(line, sizeof(line), f)) {
			line[strcspn(line, "#\n")] = '\0';
			if (strspn(line, " \t") == strlen(line))
				continue;
			if (add_kernel(line, single_form, out, n) < 0) {
				if (f != stdin)
					fclose(f);
				goto fail;
			}
		}
		if (f != stdin)
			fclose(f);
	}
	if (*n == 0) {
		perpi_set_error("no kernel given (e.g. 'ADD_GPR64_GPR64^2 IMUL_GPR64_GPR64')");
		goto fail;
	}
	return 0;
fail:
	bench_cli_free_kernels(*out, *n);
	*out = NULL;
	*n = 0;
	return -1;
}

void bench_cli_free_kernels(struct kernel *ks, size_t n)
{
	for (size_t i = 0; i < n; i++)
		kernel_done(&ks[i]);
	free(ks);
}

static void make_parent_dirs(const char *path)
{
	char *p = xstrdup(path);
	for (char *s = strchr(p + 1, '/'); s; s = strchr(s + 1, '/')) {
		*s = '\0';
		mkdir(p, 0755);
		*s = '/';
	}
	free(p);
}

int bench_cli_open_db(const char *path, struct db **out)
{
	char *p = path ? xstrdup(path) : db_default_path();
	if (!path) /* the default's directories are ours to create */
		make_parent_dirs(p);
	int rc = db_open(p, out);
	free(p);
	char *note = rc == 0 ? db_foreign_note(*out) : NULL;
	if (note)
		fprintf(stderr, "perpi: note: %s\n", note);
	free(note);
	return rc;
}

void bench_cli_progress_init(struct bench_cli_progress *p, const char *what)
{
	p->what = what;
	p->start = perpi_now();
	p->tty = isatty(2);
	p->shown = 0;
}

void bench_cli_progress(void *arg, size_t done, size_t total)
{
	struct bench_cli_progress *p = arg;
	if (!p->tty || total < 2)
		return;
	double t = perpi_now() - p->start, rate = t > 0 ? done / t : 0;
	double left = rate > 0 ? (total - done) / rate : 0;
	fprintf(stderr, "\r%s: %zu/%zu  %.1f/s  %.0fs left   ", p->what, done, total, rate, left);
	p->shown = 1;
}

void bench_cli_progress_end(struct bench_cli_progress *p)
{
	if (p->shown)
		fprintf(stderr, "\r\033[K");
}
