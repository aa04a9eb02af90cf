/* The Valgrind backend behind tracer_start/tracer_run: check the program
 * and plan its region as the ptrace tracer does (trace.c), start it under
 * valgrind with perpi's tool (valgrind_spawn.c), decode in one thread
 * (valgrind_decode.c) while this one turns records into events
 * (valgrind_stream.c), then settle how the program ended. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common/util.h"
#include "tracer/elf.h"
#include "tracer/symbols.h"
#include "tracer/trace_internal.h"
#include "tracer/valgrind_trace.h"

#define ISA_1_NEEDED 0xc0008002u /* GNU_PROPERTY_X86_ISA_1_NEEDED */
#define ISA_1_V4 (1u << 3)	 /* x86-64-v4: AVX-512 */

/* The x86 ISA levels a .note.gnu.property descriptor says the program needs. */
static uint32_t isa_needed_in(const uint8_t *d, size_t n)
{
	for (size_t at = 0; at + 8 <= n;) {
		uint32_t type, size, value = 0;
		memcpy(&type, d + at, 4);
		memcpy(&size, d + at + 4, 4);
		if (size > n - at - 8)
			break;
		if (type == ISA_1_NEEDED && size >= 4)
			memcpy(&value, d + at + 8, 4);
		if (value)
			return value;
		at += 8 + ((size + 7) & ~7u);
	}
	return 0;
}

/* The loader refuses a program marked x86-64-v4 on Valgrind's CPU: say so
 * first, and why. */
static int check_isa_level(const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	elf_version(EV_CURRENT);
	Elf *e = fd < 0 ? NULL : elf_begin(fd, ELF_C_READ, NULL);
	uint32_t needed = 0;
	for (Elf_Scn *scn = NULL; e && (scn = elf_nextscn(e, scn));) {
		GElf_Shdr sh;
		Elf_Data *data = elf_getdata(scn, NULL);
		GElf_Nhdr nh;
		size_t name_at, desc_at;
		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_NOTE || !data)
			continue;
		for (size_t off = 0; (off = gelf_getnote(data, off, &nh, &name_at, &desc_at)) > 0;)
			if (nh.n_type == NT_GNU_PROPERTY_TYPE_0)
				needed |= isa_needed_in((const uint8_t *)data->d_buf + desc_at,
							nh.n_descsz);
	}
	if (e)
		elf_end(e);
	if (fd >= 0)
		close(fd);
	if (needed & ISA_1_V4)
		return perpi_set_error("%s is built for x86-64-v4 (AVX-512), which Valgrind's "
				       "virtual CPU does not have (AVX2 at most): use the ptrace "
				       "backend (leave out --backend=valgrind)",
				       path);
	return 0;
}

int valgrind_trace_start(struct tracer *t, char *const argv[])
{
	t->path = elf_find_program(argv[0]);
	if (!t->path || !(t->prog = elf_image_open(t->path)) || check_isa_level(t->path) < 0 ||
	    trace_region_plan(t) < 0)
		return -1;
	struct valgrind_run *r = xcalloc(1, sizeof(*r));
	r->events_fd = r->requests_fd = r->replies_fd = -1;
	pthread_mutex_init(&r->lock, NULL);
	t->vg = r;
	/* no process to read names from until the tool's first request */
	t->syms = symbolizer_new(0, t->path);
	if (valgrind_spawn(t, r, argv) < 0)
		return -1;
	t->pid = t->tgid = r->pid;
	t->spawned = 1;
	if (valgrind_decoder_start(t) < 0) {
		kill(r->pid, SIGKILL);
		waitpid(r->pid, NULL, 0);
		return -1;
	}
	return 0;
}

static void wait_end(struct tracer *t)
{
	int status;
	for (;;) {
		pid_t w = waitpid(t->pid, &status, 0);
		if (w < 0 && errno == EINTR) {
			if (trace_stop_signal == SIGINT || trace_stop_signal == SIGTERM)
				kill(t->pid, SIGKILL);
			continue;
		}
		if (w != t->pid)
			return;
		break;
	}
	t->res.exited = 1;
	if (WIFEXITED(status)) {
		t->res.exit_code = WEXITSTATUS(status);
		t->res.status = t->res.exit_code;
	} else {
		t->res.term_signal = WTERMSIG(status);
		t->res.status = 128 + t->res.term_signal;
	}
}

static void close_fd(int *fd)
{
	if (*fd >= 0)
		close(*fd);
	*fd = -1;
}

/* The stream ended (how: a STEP_* result): settle the process. */
static void settle(struct tracer *t, int how)
{
	struct valgrind_run *r = t->vg;
	if (how == STEP_INTERRUPTED || how == STEP_ERROR)
		kill(r->pid, SIGKILL); /* as the ptrace tracer kills what it started */
	close_fd(&r->events_fd);
	valgrind_decoder_join(t); /* it reads to the end of the requests: the tool is gone */
	close_fd(&r->requests_fd);
	wait_end(t);
	if (how == STEP_EXECED)
		t->res.execed = 1;
	if (how == STEP_INTERRUPTED) {
		t->res.interrupted = 1;
		t->res.term_signal = 0;
		t->res.status = 128 + trace_stop_signal;
	}
}

int valgrind_trace_run(struct tracer *t, struct trace_result *res)
{
	struct valgrind_run *r = t->vg;
	trace_install_signals(t);
	int how = valgrind_stream_run(t);
	char *error = how == STEP_ERROR ? xstrdup(perpi_error()) : NULL;
	settle(t, how);
	if (!error && r->decoder_failed)
		error = xstrdup(r->decoder_error);
	for (size_t i = 0; i < t->n_lib_functions; i++)
		perpi_warn("--function %s: no function of that name in %s or the libraries it "
			   "loaded: nothing traced for it",
			   t->lib_functions[i], t->path);
	pthread_mutex_lock(&r->lock);
	symbolizer_forget_process(t->syms);
	pthread_mutex_unlock(&r->lock);
	*res = t->res;
	if (error) {
		perpi_set_error("%s", error);
		free(error);
		return -1;
	}
	return 0;
}

void valgrind_trace_delete(struct tracer *t)
{
	struct valgrind_run *r = t->vg;
	if (!r)
		return;
	if (r->decoder_started) { /* started, never run */
		kill(r->pid, SIGKILL);
		valgrind_decoder_join(t);
		waitpid(r->pid, NULL, 0);
	}
	close_fd(&r->events_fd);
	close_fd(&r->requests_fd);
	close_fd(&r->replies_fd);
	valgrind_table_done(&r->table);
	pthread_mutex_destroy(&r->lock);
	free(r);
	t->vg = NULL;
}
