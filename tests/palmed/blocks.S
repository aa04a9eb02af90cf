/* A program whose basic blocks are the held-out kernels of
 * tests/palmed/eval_blocks.sh, on the simulated 'intel' machine. Only the
 * forms ADD/IMUL_GPR64_GPR64, ADDSD/MULSD/PADDD_XMM_XMM and
 * PSHUFD_XMM_XMM_IMM8 are known to that machine; mov $N (MOV_GPR32_IMM32),
 * dec (DEC_GPR32) and xor of a register with itself (XOR_GPR32_SAME, the
 * zero idiom) are not. Blocks by hand (a label is a jump target, so the
 * mov before it is a block of its own):
 *   mov $40           1 insn,  1 occurrence
 *   A  imul imul add dec jnz          5 insns, 40 occurrences
 *   mov $20           1 x 1
 *   B  addsd mulsd mulsd pshufd pshufd dec jnz   7 insns, 20 occurrences
 *   mov $10           1 x 1
 *   C  paddd add dec jnz              4 insns, 10 occurrences
 *   mov $5            1 x 1
 *   D  add imul imul dec jnz          5 insns,  5 occurrences (A's forms)
 *   mov $15           1 x 1
 *   F  add imul addsd dec jnz         5 insns, 15 occurrences
 *   mov $8            1 x 1
 *   E  mulsd dec jnz                  3 insns,  8 occurrences
 *   xor ret           2 insns,  1 occurrence
 * 13 blocks; main = 6 + 200 + 140 + 40 + 25 + 75 + 24 + 2 = 512
 * instructions. Only caller-saved registers are written. */
	.text
	.globl main
	.type main, @function
main:
	mov $40, %ecx
1:	imul %rbx, %r8
	imul %rbx, %r9
	add %rbx, %rax
	dec %ecx
	jnz 1b
	mov $20, %ecx
2:	addsd %xmm1, %xmm0
	mulsd %xmm1, %xmm2
	mulsd %xmm1, %xmm3
	pshufd $0, %xmm1, %xmm4
	pshufd $0, %xmm1, %xmm5
	dec %ecx
	jnz 2b
	mov $10, %ecx
3:	paddd %xmm1, %xmm6
	add %rbx, %rsi
	dec %ecx
	jnz 3b
	mov $5, %ecx
4:	add %rbx, %rdi
	imul %rbx, %r10
	imul %rbx, %r11
	dec %ecx
	jnz 4b
	mov $15, %ecx
5:	add %rbx, %rdx
	imul %rbx, %r8
	addsd %xmm1, %xmm7
	dec %ecx
	jnz 5b
	mov $8, %ecx
6:	mulsd %xmm1, %xmm8
	dec %ecx
	jnz 6b
	xor %eax, %eax
	ret
	.size main, .-main
	.section .note.GNU-stack, "", @progbits
