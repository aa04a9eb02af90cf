/* The one type where the tracer and the analyses meet.
 *
 * The tracer (tracer/) turns every dynamic instruction into a perpi_event:
 * the static instruction (decoded once, cached by address) plus everything
 * that depends on the run: the exact dependency units it reads and writes
 * (x87 registers resolved through TOP, mask-selected elements, a shift by
 * zero that writes no flags) and the memory bytes it touches. The engine
 * (ilp/) consumes events and knows nothing of ptrace; a recorded trace
 * replays the same events through the same code. See DESIGN.md. */
#ifndef PERPI_EVENT_H
#define PERPI_EVENT_H

#include <stdint.h>

/* Dependency units: a register part, a flag, or a special register. A
 * dependency exists exactly when a unit read was last written by an earlier
 * instruction of the analysed region. Memory is tracked byte by byte apart. */
enum perpi_unit {
	/* 64-bit GPRs in encoding order: rax rcx rdx rbx rsp rbp rsi rdi r8..r15 */
	UNIT_GPR = 0,
	UNIT_RAX = 0,
	UNIT_RCX,
	UNIT_RDX,
	UNIT_RBX,
	UNIT_RSP,
	UNIT_RBP,
	UNIT_RSI,
	UNIT_RDI,
	/* Vector register n, part p (0: bits 0-127, 1: 128-255, 2: 256-511):
	 * UNIT_VEC + 3 * n + p, n = 0..31. */
	UNIT_VEC = 16,
	/* AVX-512 mask registers k0..k7 */
	UNIT_K = UNIT_VEC + 96,
	/* x87 physical registers R0..R7; ST(i) is R[(TOP + i) % 8] at run time */
	UNIT_X87 = UNIT_K + 8,
	/* Status flags, one unit each */
	UNIT_CF = UNIT_X87 + 8,
	UNIT_PF,
	UNIT_AF,
	UNIT_ZF,
	UNIT_SF,
	UNIT_OF,
	UNIT_DF,
	UNIT_FSBASE,
	UNIT_GSBASE,
	UNIT_MXCSR, /* written by ldmxcsr/xrstor, read by stmxcsr/xsave only */
	UNIT_FPCW,  /* x87 control word */
	UNIT_FPSW,  /* x87 condition codes C0-C3 (TOP is resolved, not a unit) */
	UNIT_COUNT
};

#define UNIT_VEC_PART(n, p) (UNIT_VEC + 3 * (n) + (p))
#define UNIT_IS_FLAG(u) ((u) >= UNIT_CF && (u) <= UNIT_DF)

/* Instruction classes of the ILP histogram (DESIGN.md). A load-op
 * instruction takes the class of its operation. */
enum perpi_class {
	CLASS_LOAD,
	CLASS_STORE,
	CLASS_INT,
	CLASS_FP,
	CLASS_VEC,
	CLASS_MOVE,
	CLASS_BRANCH,
	CLASS_OTHER,
	CLASS_COUNT
};

/* Control flow, as the per-function and basic-block analyses need it. */
enum perpi_control {
	CTRL_NONE,	/* falls through */
	CTRL_JUMP,	/* unconditional jmp, direct or indirect */
	CTRL_COND_JUMP, /* jcc, jrcxz, loop */
	CTRL_CALL,
	CTRL_RET,
	CTRL_SYSCALL, /* syscall, sysenter, int 0x80 */
	CTRL_OTHER    /* int3, ud2, hlt...: ends a block */
};

/* How the static semantics were obtained. */
enum perpi_decoder { DECODER_CAPSTONE, DECODER_ZYDIS, DECODER_UNKNOWN };

/* A static instruction. Owned by the tracer's decode cache (live) or by the
 * trace reader (replay); valid for the whole analysis. */
struct perpi_insn {
	uint64_t addr;
	uint32_t id; /* dense index, stable within one run or trace file */
	uint8_t len;
	uint8_t bytes[15];
	uint8_t klass;	 /* enum perpi_class */
	uint8_t control; /* enum perpi_control */
	uint8_t decoder; /* enum perpi_decoder */
	char text[96];	 /* Intel syntax, e.g. "vaddpd ymm0, ymm1, ymm2" */
	void *sem;	 /* tracer-private semantics; NULL in replay */
};

struct perpi_mem_access {
	uint64_t addr;
	uint32_t size; /* bytes, at most EVENT_MAX_ACCESS (an xsave component: 1 KiB) */
	uint8_t write; /* 0: read, 1: write */
};

/* Event flags */
enum {
	EVENT_NOT_COUNTED = 1 << 0,  /* syscall: not in I, takes no step */
	EVENT_UNKNOWN = 1 << 1,	     /* undecodable: conservative (reads and writes everything) */
	EVENT_SIGNAL_ENTRY = 1 << 2, /* first instruction of a signal handler: opens a frame */
	EVENT_CALL_ENTRY = 1 << 3,   /* first instruction of a function whose call was not
				      * traced (stepping starts at main or at a --function
				      * entry): opens a frame like the event after a call */
	EVENT_CALL_TARGET = 1 << 4,  /* first instruction of the function a call through a
				      * trampoline (a PLT stub, lazy binding included)
				      * reached, at the call's stack pointer: the open
				      * call instance is this function's */
};

#define EVENT_MAX_MEM 80
/* Bytes of one access at most: the largest an instruction makes is an
 * XSAVE component's 1 KiB (rep string instructions are traced an
 * iteration at a time). A trace file with more is corrupt. */
#define EVENT_MAX_ACCESS 4096

/* One dynamic instruction. The producer owns the storage; a consumer must
 * copy what it keeps beyond the callback. */
struct perpi_event {
	const struct perpi_insn *insn;
	uint64_t sp;	/* RSP before the instruction executed */
	uint16_t flags; /* EVENT_* */
	uint8_t n_src, n_dst;
	uint16_t n_mem;
	uint8_t src[UNIT_COUNT]; /* each unit at most once */
	uint8_t dst[UNIT_COUNT];
	struct perpi_mem_access mem[EVENT_MAX_MEM];
};

/* A consumer of events (the engine, the trace writer, a tee of both).
 * Returns 0 to go on, non-zero to stop tracing. */
typedef int (*perpi_event_fn)(void *ctx, const struct perpi_event *ev);

#endif
