/* Address -> function name for reports: the ELF symbol tables of the
 * program and of every object mapped while it ran (dlopen included), and
 * the vDSO. Keeps a snapshot of the mappings, so names still resolve after
 * the process has exited. */
#ifndef PERPI_TRACER_SYMBOLS_H
#define PERPI_TRACER_SYMBOLS_H

#include <stdint.h>
#include <sys/types.h>

#include "tracer/event.h"

struct symbolizer;

/* program: the path of the main executable as mapped (its functions are
 * named without a library suffix). */
struct symbolizer *symbolizer_new(pid_t pid, const char *program);
void symbolizer_delete(struct symbolizer *sym);

/* Make sure the mapping holding addr is in the snapshot: re-reads
 * /proc/PID/maps when it is not. Cheap when it is. */
void symbolizer_note(struct symbolizer *sym, uint64_t addr);

/* Re-read /proc/PID/maps now (libraries loaded since). */
void symbolizer_refresh(struct symbolizer *sym);

/* The run-time address of the function named name in a shared object
 * mapped in the process (not the program itself): the first exporting it,
 * else one with a local symbol of that name. 0; -1 if none has it; -2 if
 * it is an IFUNC (*addr is then its resolver). */
int symbolizer_lookup(struct symbolizer *sym, const char *name, uint64_t *addr);

/* The process is gone (or detached): use the snapshot only. */
void symbolizer_forget_process(struct symbolizer *sym);

/* "name" for the program's functions, "name@libc.so.6" for a shared
 * object's, "name+0x1c" inside a function; without a symbol, the object
 * and the link-time address, the same in every run: "libc.so.6+0x9a3c0"
 * ("0x7f..." outside any mapped file). The string is owned by sym and
 * stays valid until symbolizer_delete. */
const char *symbolizer_name(struct symbolizer *sym, uint64_t addr);

/* The function holding addr as symbolizer_name names it, without the
 * offset ("puts@libc.so.6"), and addr's offset in it in *offset; NULL when
 * addr has no name. The string stays valid until the next call. */
const char *symbolizer_function(struct symbolizer *sym, uint64_t addr, uint64_t *offset);

/* symbolizer_name in the signature of a name callback (ctx is the symbolizer). */
const char *symbolizer_name_fn(void *ctx, uint64_t addr);

/* Calls through PLT stubs, followed over the events of a run: a stub
 * entered by a call opens a trampoline; the first instruction outside the
 * PLTs reached by a jump at the call's stack pointer is the function the
 * call reached (after the lazy binding's resolver, if any). */
struct symbolizer_plt {
	uint64_t sp[16]; /* stack pointers of the open trampolines */
	unsigned n;
	uint8_t last_control; /* the previous event's enum perpi_control */
};

/* On every event, in order: EVENT_CALL_TARGET for the callee's first
 * instruction of a call through a PLT stub, else 0. ev->flags is not set. */
unsigned symbolizer_follow_plt(struct symbolizer *sym, struct symbolizer_plt *plt,
			       const struct perpi_event *ev);

#endif
