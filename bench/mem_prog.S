/* Memory benchmark program: main zeroes a 2 MiB buffer with rep stosq
 * (262144 iterations, each one traced step), so the traced code touches
 * 2 MiB of data (plus a few stack bytes). By hand: push, lea, mov, xor,
 * 262144 x stosq, pop, ret = 262150 instructions. */
	.text
	.globl main
	.type main, @function
main:
	push %rdi
	lea buf(%rip), %rdi
	mov $262144, %ecx
	xor %eax, %eax
	rep stosq
	pop %rdi
	ret
	.size main, .-main
	.bss
	.align 64
buf:	.zero 2097152
	.section .note.GNU-stack, "", @progbits
