/* Address -> function name for reports: the ELF symbol tables of the
 * program and of every object mapped while it ran (dlopen included), and
 * the vDSO. Keeps a snapshot of the mappings, so names still resolve after
 * the process has exited. */
#ifndef PERPI_TRACER_SYMBOLS_H
#define PERPI_TRACER_SYMBOLS_H

#include <stdint.h>
#include <sys/types.h>

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
 * mapped in the process (not the program itself). 0; -1 if none has it;
 * -2 if it is an IFUNC (*addr is then its resolver). */
int symbolizer_lookup(struct symbolizer *sym, const char *name, uint64_t *addr);

/* The process is gone (or detached): use the snapshot only. */
void symbolizer_forget_process(struct symbolizer *sym);

/* "name" for the program's functions, "name@libc.so.6" for a shared
 * object's, "name+0x1c" inside a function, "0x7f..." without a symbol.
 * The string is owned by sym and stays valid until symbolizer_delete. */
const char *symbolizer_name(struct symbolizer *sym, uint64_t addr);

/* The function holding addr as symbolizer_name names it, without the
 * offset ("puts@libc.so.6"), and addr's offset in it in *offset; NULL when
 * addr has no name. The string stays valid until the next call. */
const char *symbolizer_function(struct symbolizer *sym, uint64_t addr, uint64_t *offset);

/* symbolizer_name in the signature of a name callback (ctx is the symbolizer). */
const char *symbolizer_name_fn(void *ctx, uint64_t addr);

#endif
