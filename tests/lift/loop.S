/* A loop of known count for tests/lift/traced.sh; blocks by hand:
 *   B0  mov $100, %ecx                        1 instruction,  1 occurrence
 *   B1  1: add %rbx, %rax                     5 instructions, 100 occurrences
 *          addsd %xmm1, %xmm0                 (1: is a jump target, so B0
 *          addsd %xmm3, %xmm2                  ends before it although it
 *          dec %ecx                            falls into it once)
 *          jnz 1b
 *   B2  xor %eax, %eax ; ret                  2 instructions, 1 occurrence
 * main = 1 + 5 x 100 + 2 = 503 instructions. */
	.text
	.globl main
	.type main, @function
main:
	mov $100, %ecx
1:	add %rbx, %rax
	addsd %xmm1, %xmm0
	addsd %xmm3, %xmm2
	dec %ecx
	jnz 1b
	xor %eax, %eax
	ret
	.size main, .-main
	.section .note.GNU-stack, "", @progbits
