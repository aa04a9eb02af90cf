/* The timing stubs perpi measure copies into a measured program (see
 * tracer/measure_code.c, and perpi-measure(1) for the method). Assembled
 * into perpi as data, never run by perpi itself: templates whose
 * immediates and rel32 fields measure_code.c patches (the offsets are in
 * measure_tpl_offsets below).
 *
 * A timed call: the function's entry jumps (or, in breakpoint mode, is
 * sent by perpi) to its probe's entry stub. The stub pushes a shadow
 * entry (the caller's return address, the RSP the return will leave),
 * reads the clock, drops the return address from the stack and calls the
 * function's displaced first instructions, so that the function runs with
 * the stack exactly as its caller left it and its RET is predicted (the
 * return lands right after that call). There the exit reads the clock,
 * pops the shadow entry whose RSP matches (entries of calls left by
 * longjmp are dropped), appends the finished call to the buffer and
 * returns to the caller with a RET the return stack buffer predicts too.
 * Between the two clock reads run only the function and a fixed number of
 * stub instructions, whose cost perpi measures and subtracts.
 *
 * A region's start and end are marks (measure_tpl_mark_start/stop): one
 * clock read, placed so that the stub's memory accesses stay outside the
 * region. */
#include "tracer/measure_layout.h"

	.intel_syntax noprefix
	.section .rodata
	.p2align 4

/* One probe: entry, the call of the displaced instructions, the exit's
 * clock read. */
	.globl measure_tpl_probe, measure_tpl_probe_end
measure_tpl_probe:
	push rax
	push rcx
	push rdx
	push r11
	movabs r11, 0x1122334455667788
.Ldata1:
	lea rax, [rsp + 32]			/* RSP at the entry: the return address */
	cmp qword ptr [r11 + MD_DISABLED], 0
	jne .Lpass
	cmp rax, [r11 + MD_STACK_LO]		/* another thread's stack: untimed */
	jb .Lpass
	cmp rax, [r11 + MD_STACK_HI]
	ja .Lpass
	mov rcx, [r11 + MD_TOP]
	cmp rcx, [r11 + MD_TOP_CAP]
	jae .Lfull
	inc qword ptr [r11 + MD_TOP]
	shl rcx, 5
	lea r11, [r11 + rcx + MD_HEADER]	/* the new shadow entry */
	mov rcx, [rax]
	mov [r11 + SH_RET], rcx
	lea rcx, [rax + 8]
	mov [r11 + SH_RSP], rcx
	mov dword ptr [r11 + SH_PROBE], 0x7fffffff
.Lprobe:
	mov dword ptr [r11 + SH_NESTED], 0
	lfence
.Lclock1:
	rdtsc
	.byte 0x0f, 0x1f, 0x44, 0x00, 0x00	/* nop: room for "mov ecx, N; rdpmc" */
	lfence
	shl rdx, 32
	or rax, rdx
	mov [r11 + SH_CLOCK], rax
	pop r11
	pop rdx
	pop rcx
	pop rax
	lea rsp, [rsp + 8]			/* the caller's RSP: stack as it left it */
	.byte 0xe8				/* call the displaced instructions */
	.long 0
.Lcall:
	push rax				/* the function returned here */
	push rdx
	push rcx
	lfence
.Lclock2:
	rdtsc
	.byte 0x0f, 0x1f, 0x44, 0x00, 0x00
	.byte 0xe9				/* jmp measure_tpl_exit */
	.long 0
.Ltail:
.Lfull:
	inc qword ptr [r11 + MD_LOST]
.Lpass:
	pop r11
	pop rdx
	pop rcx
	pop rax
	.byte 0xe9				/* jmp to the displaced instructions */
	.long 0
.Lpassjmp:
measure_tpl_probe_end:

/* The exit, shared by the probes. On the stack: rcx, rdx, rax; rdx:eax
 * the clock at the return. */
	.globl measure_tpl_exit, measure_tpl_exit_end
measure_tpl_exit:
	push r11
	push rsi
	push rdi		/* rdi rsi r11 rcx rdx rax; the caller's RSP is rsp + 48 */
	shl rdx, 32
	or rax, rdx
	movabs r11, 0x1122334455667788
.Ldata2:
	lea rdx, [rsp + 48]
	mov rcx, [r11 + MD_TOP]
	shl rcx, 5
1:	sub rcx, SH_SIZE
	jb 9f
	lea rsi, [r11 + rcx + MD_HEADER]
	cmp [rsi + SH_RSP], rdx
	je 2f
	inc qword ptr [r11 + MD_STALE]	/* a call left by longjmp */
	jmp 1b
2:	mov rdx, rcx
	shr rdx, 5
	mov [r11 + MD_TOP], rdx		/* rdx: the depth of this call */
	test rdx, rdx
	jz 3f
	mov edi, [rsi + SH_NESTED]
	inc edi
	add [rsi - SH_SIZE + SH_NESTED], edi
3:	cmp qword ptr [r11 + MD_DISABLED], 0
	jne 5f
	mov rcx, [r11 + MD_COUNT]
	shl rcx, 5
	add rcx, [r11 + MD_REC_OFF]
	add rcx, r11
	mov rdi, [rsi + SH_CLOCK]
	mov [rcx + RC_BEGIN], rdi
	mov [rcx + RC_END], rax
	mov edi, [rsi + SH_PROBE]
	mov [rcx + RC_PROBE], edi
	mov [rcx + RC_DEPTH], edx
	mov edi, [rsi + SH_NESTED]
	mov [rcx + RC_NESTED], edi
	mov rcx, [r11 + MD_COUNT]
	inc rcx
	mov [r11 + MD_COUNT], rcx
	cmp rcx, [r11 + MD_CAP]
	jb 5f
	.byte 0xe8			/* call the full-buffer int3: perpi empties it */
	.long 0
.Lx_full:
5:	mov rcx, [rsi + SH_RET]
	mov rax, [rsp + 40]
	mov [rsp + 40], rcx		/* the return address where rax was saved */
	pop rdi
	pop rsi
	pop r11
	pop rcx
	pop rdx
	ret
9:	ud2				/* a return without its shadow entry */
.Lbroken:
measure_tpl_exit_end:

/* A region's start at a function's entry (perpi_start, --start SYM): its
 * record reserved and written first, the clock read last, so that the
 * region holds none of the stub's memory accesses (cold after the
 * program's start-up, they would cost it hundreds of cycles). A record
 * whose RC_BEGIN is still 0 was not finished. */
	.globl measure_tpl_mark_start, measure_tpl_mark_start_end
measure_tpl_mark_start:
	push rax
	push rcx
	push rdx
	push r11
	movabs r11, 0x1122334455667788
.Lms_data:
	lea rax, [rsp + 32]
	cmp qword ptr [r11 + MD_DISABLED], 0
	jne .Lms_pass
	cmp rax, [r11 + MD_STACK_LO]
	jb .Lms_pass
	cmp rax, [r11 + MD_STACK_HI]
	ja .Lms_pass
	mov rcx, [r11 + MD_COUNT]
	cmp rcx, [r11 + MD_CAP]
	jb 1f
	.byte 0xe8			/* call the full-buffer int3 */
	.long 0
.Lms_full:
	xor ecx, ecx
1:	lea rdx, [rcx + 1]
	mov [r11 + MD_COUNT], rdx
	shl rcx, 5
	add rcx, [r11 + MD_REC_OFF]
	add r11, rcx			/* the record */
	mov qword ptr [r11 + RC_BEGIN], 0
	mov dword ptr [r11 + RC_PROBE], 0x7fffffff
.Lms_probe:
	mov dword ptr [r11 + RC_DEPTH], 0
	mov dword ptr [r11 + RC_NESTED], 0
	lfence
.Lms_clock:
	rdtsc
	.byte 0x0f, 0x1f, 0x44, 0x00, 0x00
	lfence
	shl rdx, 32
	or rax, rdx
	mov [r11 + RC_END], rax
	mov [r11 + RC_BEGIN], rax	/* last: the record is complete */
.Lms_pass:
	pop r11
	pop rdx
	pop rcx
	pop rax
	.byte 0xe9			/* jmp to the displaced instructions */
	.long 0
.Lms_jmp:
measure_tpl_mark_start_end:

/* A region's end at a function's entry (perpi_stop, --stop SYM): the
 * clock read first, once what the program did before has completed. */
	.globl measure_tpl_mark_stop, measure_tpl_mark_stop_end
measure_tpl_mark_stop:
	push rax
	push rdx
	push rcx
	lfence
.Lmt_clock:
	rdtsc
	.byte 0x0f, 0x1f, 0x44, 0x00, 0x00
	push r11
	shl rdx, 32
	or rax, rdx
	movabs r11, 0x1122334455667788
.Lmt_data:
	lea rdx, [rsp + 32]
	cmp qword ptr [r11 + MD_DISABLED], 0
	jne .Lmt_pass
	cmp rdx, [r11 + MD_STACK_LO]
	jb .Lmt_pass
	cmp rdx, [r11 + MD_STACK_HI]
	ja .Lmt_pass
	mov rcx, [r11 + MD_COUNT]
	cmp rcx, [r11 + MD_CAP]
	jb 1f
	.byte 0xe8			/* call the full-buffer int3 */
	.long 0
.Lmt_full:
	xor ecx, ecx
1:	lea rdx, [rcx + 1]
	shl rcx, 5
	add rcx, [r11 + MD_REC_OFF]
	add rcx, r11			/* the record */
	mov [rcx + RC_BEGIN], rax
	mov [rcx + RC_END], rax
	mov dword ptr [rcx + RC_PROBE], 0x7fffffff
.Lmt_probe:
	mov dword ptr [rcx + RC_DEPTH], 0
	mov dword ptr [rcx + RC_NESTED], 0
	mov [r11 + MD_COUNT], rdx	/* last: the record is complete */
.Lmt_pass:
	pop r11
	pop rcx
	pop rdx
	pop rax
	.byte 0xe9			/* jmp to the displaced instructions */
	.long 0
.Lmt_jmp:
measure_tpl_mark_stop_end:

/* What perpi runs in the program itself: system calls, the calibration. */
	.globl measure_tpl_misc, measure_tpl_misc_end
measure_tpl_misc:
	syscall				/* the system call gadget */
	int3
.Lfull_trap:
	int3				/* the buffer is full: perpi empties it */
	ret
.Lempty:
	ret				/* an empty function */
.Lchain:				/* a function of CAL_CHAIN cycles */
	.rept CAL_CHAIN
	add rax, rax
	.endr
	ret
.Louter:
	.byte 0xe8			/* a function whose body is one timed call */
	.long 0
.Louter_call:
	ret
.Lplain:
	call .Lchain			/* the same with an untimed call */
	ret
/* The calibration loop; rdi: turns. Each of the four timed loops calls
 * probe stubs patched in below. The timed work is a chain of CAL_CHAIN
 * dependent adds (CAL_CHAIN cycles): the stubs' cost is what the timing
 * adds to it, their instructions overlapping the work as they do in a
 * real call. */
.Lcalibrate:
	mov rbx, rdi
1:	.byte 0xe8			/* a call of .Lchain */
	.long 0
.Lcal_func:
	dec rbx
	jnz 1b
	mov rbx, rdi
2:	.byte 0xe8			/* a region: start, the chain, stop */
	.long 0
.Lcal_start:
	.rept CAL_CHAIN
	add rax, rax
	.endr
	.byte 0xe8
	.long 0
.Lcal_stop:
	dec rbx
	jnz 2b
	mov rbx, rdi
3:	.byte 0xe8			/* a call with one timed call inside */
	.long 0
.Lcal_outer:
	dec rbx
	jnz 3b
	mov rbx, rdi
4:	.byte 0xe8			/* a call with one untimed call inside */
	.long 0
.Lcal_plain:
	dec rbx
	jnz 4b
	int3
.Lcal_done:
measure_tpl_misc_end:

/* Offsets of the patched fields (see measure_code.c, struct tpl_offsets). */
	.globl measure_tpl_offsets
	.p2align 2
measure_tpl_offsets:
	.long .Ldata1 - 8 - measure_tpl_probe	/* imm64: the data area */
	.long .Lprobe - 4 - measure_tpl_probe	/* imm32: the probe number */
	.long .Lclock1 - measure_tpl_probe	/* the entry's clock read */
	.long .Lcall - 4 - measure_tpl_probe	/* rel32: the displaced instructions */
	.long .Lcall - measure_tpl_probe	/* where the function returns */
	.long .Lclock2 - measure_tpl_probe	/* the exit's clock read */
	.long .Ltail - 4 - measure_tpl_probe	/* rel32: measure_tpl_exit */
	.long .Lpassjmp - 4 - measure_tpl_probe	/* rel32: the displaced instructions */
	.long .Ldata2 - 8 - measure_tpl_exit	/* imm64: the data area */
	.long .Lx_full - 4 - measure_tpl_exit	/* rel32: the full-buffer int3 */
	.long .Lbroken - 2 - measure_tpl_exit	/* the ud2 of a lost return */
	.long .Lms_data - 8 - measure_tpl_mark_start
	.long .Lms_probe - 4 - measure_tpl_mark_start
	.long .Lms_clock - measure_tpl_mark_start
	.long .Lms_full - 4 - measure_tpl_mark_start
	.long .Lms_jmp - 4 - measure_tpl_mark_start
	.long .Lmt_data - 8 - measure_tpl_mark_stop
	.long .Lmt_probe - 4 - measure_tpl_mark_stop
	.long .Lmt_clock - measure_tpl_mark_stop
	.long .Lmt_full - 4 - measure_tpl_mark_stop
	.long .Lmt_jmp - 4 - measure_tpl_mark_stop
	.long .Lfull_trap - measure_tpl_misc
	.long .Lempty - measure_tpl_misc
	.long .Lchain - measure_tpl_misc
	.long .Louter - measure_tpl_misc
	.long .Louter_call - 4 - measure_tpl_misc
	.long .Lplain - measure_tpl_misc
	.long .Lcalibrate - measure_tpl_misc
	.long .Lcal_func - 4 - measure_tpl_misc
	.long .Lcal_start - 4 - measure_tpl_misc
	.long .Lcal_stop - 4 - measure_tpl_misc
	.long .Lcal_outer - 4 - measure_tpl_misc
	.long .Lcal_plain - 4 - measure_tpl_misc
	.long .Lcal_done - 1 - measure_tpl_misc	/* the calibration's final int3 */

	.section .note.GNU-stack, "", @progbits
