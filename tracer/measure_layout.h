/* The memory perpi measure shares with a measured program, as both its
 * timing stubs (tracer/measure_stub.S, assembled into perpi and copied
 * into the program) and perpi (tracer/measure*.c) see it. Plain #defines:
 * the assembler includes this file too.
 *
 * The data area is one shared mapping (a memfd mapped by perpi and by the
 * program): a header, the shadow stack of the calls in flight, and the
 * buffer of finished calls. perpi reads it at any time, even after the
 * program was killed. */
#ifndef PERPI_MEASURE_LAYOUT_H
#define PERPI_MEASURE_LAYOUT_H

/* Header fields (8 bytes each), offsets from the start of the data area. */
#define MD_COUNT 0     /* finished calls in the buffer */
#define MD_CAP 8       /* buffer capacity: the stub stops at an int3 when full */
#define MD_TOP 16      /* shadow stack entries in use */
#define MD_TOP_CAP 24  /* shadow stack capacity */
#define MD_STACK_LO 32 /* calls are timed only while RSP is in the main */
#define MD_STACK_HI 40 /* thread's stack [lo, hi] (other threads pass) */
#define MD_DISABLED 48 /* non-zero in a forked child: nothing recorded */
#define MD_LOST 56     /* calls not timed: the shadow stack was full */
#define MD_STALE 64    /* shadow entries dropped: their call never returned */
#define MD_REC_OFF 72  /* offset of the buffer from the start of the area */
#define MD_HEADER 4096 /* the shadow stack starts here */

/* A shadow stack entry (32 bytes): a call in flight. */
#define SH_RET 0     /* the caller's return address, swapped out */
#define SH_RSP 8     /* RSP once the call has returned: matches the exit */
#define SH_CLOCK 16  /* clock read at the entry */
#define SH_PROBE 24  /* u32: which probe */
#define SH_NESTED 28 /* u32: timed calls nested in this one, so far */
#define SH_SIZE 32

/* A finished call in the buffer (32 bytes). */
#define RC_BEGIN 0   /* clock at the entry (after the stub's own entry work) */
#define RC_END 8     /* clock at the return (before the stub's exit work) */
#define RC_PROBE 16  /* u32 */
#define RC_DEPTH 20  /* u32: timed calls that enclosed this one */
#define RC_NESTED 24 /* u32: timed calls nested in this one */
#define RC_SIZE 32

/* The calibration times the stubs around a chain of CAL_CHAIN dependent
 * adds (CAL_CHAIN cycles on any x86-64 CPU). */
#define CAL_CHAIN 256

/* The clock read: 7 bytes, "rdtsc" + a 5-byte nop, or "mov ecx, N; rdpmc". */
#define CLOCK_READ_SIZE 7

#endif
