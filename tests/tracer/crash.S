/* main runs 10 iterations then stores to address 0: SIGSEGV, exit 139.
 *   mov $10,%ecx ; 10 x (dec, jnz) ; xor %eax,%eax = 22 instructions run;
 *   the faulting store does not complete and is not counted. */
	.text
	.globl main
	.type main, @function
main:
	mov $10, %ecx
1:	dec %ecx
	jnz 1b
	xor %eax, %eax
	movl $1, (%rax)
	ret
	.size main, .-main
	.section .note.GNU-stack, "", @progbits
