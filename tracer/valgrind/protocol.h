/* What perpi's Valgrind tool (tracer/valgrind/tool.c) and perpi's Valgrind
 * backend (tracer/valgrind_*.c) say to each other. Both sides include this
 * file; it needs nothing but the compiler's <stdint.h>.
 *
 * Three pipes, all little-endian, no padding:
 * - events (tool -> perpi): instruction records and markers, in the order
 *   the main thread ran them. A record is the instruction's id (>= 1), then
 *   the values of its slots, in the order perpi asked for them; a marker is
 *   a zero id, a kind and the kind's payload.
 * - requests (tool -> perpi): when Valgrind translates a superblock, the
 *   tool sends its instructions' addresses and bytes ...
 * - replies (perpi -> tool): ... and perpi, which decodes them with its own
 *   x86 layer, answers each with an id and the registers its semantics read
 *   at run time (the slots). The tool knows no x86 semantics at all. */
#ifndef PERPI_VALGRIND_PROTOCOL_H
#define PERPI_VALGRIND_PROTOCOL_H

#include <stdint.h>

#define VGP_VERSION 1

/* Slots: guest registers the tool copies into a record before the
 * instruction runs. GPRs in encoding order (rax rcx rdx rbx rsp rbp rsi rdi
 * r8..r15), 8 bytes each, like the bases and TOP; YMM registers 32 bytes. */
enum vgp_slot {
	VGP_SLOT_GPR = 0,
	VGP_SLOT_FS_BASE = 16,
	VGP_SLOT_GS_BASE,
	VGP_SLOT_FPU_TOP, /* 0..7, zero-extended to 8 bytes */
	VGP_SLOT_YMM,	  /* VGP_SLOT_YMM + n: ymm0..ymm15 */
	VGP_SLOT_COUNT = VGP_SLOT_YMM + 16
};

#define VGP_SLOT_SIZE(s) ((s) >= VGP_SLOT_YMM ? 32 : 8)
#define VGP_MAX_SLOTS 11

/* Marker kinds and their payloads. */
enum vgp_marker {
	VGP_HELLO = 1,	     /* u32 version, u32 pid, u64 entry (AT_ENTRY), u64 xcr0 */
	VGP_SIGNAL = 2,	     /* u32 signal, u64 pc, u64 sp: a handler starts; pc, sp
			      * are where the interrupted code resumes */
	VGP_EXEC = 3,	     /* u32 0: the main thread calls execve */
	VGP_EXEC_FAILED = 4, /* u32 0: ... and it failed */
	VGP_NODECODE = 5,    /* u32 len, u64 addr, u8 bytes[16]: Valgrind cannot run
			      * the instruction at addr (it raises SIGILL) */
	VGP_END = 6,	     /* u32 exit code: the program exits */
};

/* Payload sizes (after the zero id and the u32 kind). */
#define VGP_HELLO_SIZE 24
#define VGP_SIGNAL_SIZE 20
#define VGP_EXEC_SIZE 4
#define VGP_NODECODE_SIZE 28
#define VGP_END_SIZE 4

/* A request: u32 magic, u32 n, then n times {u64 addr, u8 len, u8
 * bytes[len]}. The reply: n times struct vgp_reply. */
#define VGP_REQUEST_MAGIC 0x71726570u /* "perq" */
#define VGP_MAX_REQUEST 256	      /* instructions per request */

struct vgp_reply {
	uint32_t id; /* 0: perpi failed; the tool stops recording */
	uint8_t n_slots;
	uint8_t slot[VGP_MAX_SLOTS];
};

#endif
