/* Instructions whose memory accesses Valgrind's own records would get
 * wrong for perpi (tracer/valgrind/tool.c takes register values instead):
 * REP strings (Valgrind passes once more after the last iteration), lock
 * operations (a load and a compare-and-swap), fxsave/xsave and masked or
 * gathered accesses (split into pieces), maskmovdqu (an extra load),
 * prefetch and clflush (no access), plus the run-time cases of the
 * semantics: shifts by CL (0 writes no flags), x87 through TOP, bt with a
 * register offset. same-events.sh records it under both backends and
 * compares every event: instruction, units read and written, bytes
 * accessed. Non-PIE, data in .bss: the same addresses under both. */
	.intel_syntax noprefix
	.text

	.type rep_strings, @function
rep_strings:
	lea rsi, [buf]
	lea rdi, [buf + 256]
	mov ecx, 3
	rep movsb			/* 3 events */
	xor ecx, ecx
	rep movsb			/* RCX = 0: 1 event, no memory */
	mov ecx, 1
	rep stosq			/* 1 event */
	mov byte ptr [buf + 514], 1
	lea rsi, [buf]
	lea rdi, [buf + 512]
	mov ecx, 8
	repe cmpsb			/* stops at the difference: 3 events */
	lea rsi, [buf]
	lea rdi, [buf + 600]
	mov ecx, 2
	repe cmpsb			/* equal to the end: 2 events */
	lea rdi, [buf + 512]
	mov al, 1
	mov ecx, 5
	repne scasb			/* finds the 1 at 514: 3 events */
	ret
	.size rep_strings, .-rep_strings

	.type lock_ops, @function
lock_ops:
	lea rdi, [buf + 1024]
	mov eax, 1
	lock add [rdi], eax
	lock xadd [rdi + 8], eax
	xchg [rdi + 16], eax
	xor eax, eax
	mov ecx, 5
	lock cmpxchg [rdi + 24], ecx
	lock inc qword ptr [rdi + 32]
	lock or dword ptr [rdi + 40], 3
	ret
	.size lock_ops, .-lock_ops

	.type saves, @function
saves:
	lea rdi, [area]
	fxsave [rdi]
	fxrstor [rdi]
	mov eax, 7			/* x87, SSE, AVX: on every AVX CPU and under Valgrind */
	xor edx, edx
	xsave [rdi + 512]
	xrstor [rdi + 512]
	ret
	.size saves, .-saves

	.type masked, @function
masked:
	vpcmpeqd ymm1, ymm1, ymm1	/* mask: all ones ... */
	vpsrldq ymm1, ymm1, 8		/* ... in the low two dwords of each lane */
	vmaskmovps ymm0, ymm1, [buf + 1536]
	vmaskmovps [buf + 1600], ymm1, ymm0
	vpxor xmm2, xmm2, xmm2		/* indices 0 */
	vpcmpeqd ymm3, ymm3, ymm3	/* all elements */
	vpgatherdd ymm0, [buf + 1664 + ymm2 * 4], ymm3
	vzeroupper
	pcmpeqb xmm4, xmm4
	psrldq xmm4, 12			/* bytes 0-3 stored */
	lea rdi, [buf + 1792]
	maskmovdqu xmm0, xmm4
	ret
	.size masked, .-masked

	.type no_access, @function
no_access:
	prefetcht0 [buf]
	prefetchnta [buf + 64]
	clflush [buf + 128]
	nop dword ptr [buf + 192]
	ret
	.size no_access, .-no_access

	.type dynamic, @function
dynamic:
	mov eax, 5
	xor ecx, ecx
	shl eax, cl			/* count 0: no flags written */
	mov ecx, 3
	shl eax, cl
	rcl eax, cl
	fld1
	fldz
	faddp st(1), st
	fld1
	fstp qword ptr [buf + 2048]
	fstp qword ptr [buf + 2056]
	mov eax, 100
	bts dword ptr [buf + 2112], eax	/* bit 100: the dword at +12 */
	mov rax, -8
	btr qword ptr [buf + 2176], rax	/* bit -8: the qword at -8 */
	ret
	.size dynamic, .-dynamic

	.globl main
	.type main, @function
main:
	sub rsp, 8
	call rep_strings
	call lock_ops
	call saves
	call masked
	call no_access
	call dynamic
	add rsp, 8
	xor eax, eax
	ret
	.size main, .-main

	.bss
	.align 64
buf:	.zero 4096
area:	.zero 4096

	.section .note.GNU-stack, "", @progbits
