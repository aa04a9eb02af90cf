/* Fast-forward benchmark program. main calls outside() (10^9 instructions,
 * run natively under perpi) and inside() 100 times (100 instructions
 * each: 10^4 traced with --function inside). By hand:
 *   outside: mov $N,%rcx ; N x (add, xor, dec, jnz) ; ret    4N + 2
 *            N = 249999999 -> 999999998 instructions
 *   inside:  mov $49,%ecx ; 49 x (dec, jnz) ; ret             100 */
	.text
	.globl main, outside, inside
	.type main, @function
main:
	push %rbx
	call outside
	mov $100, %ebx
1:	call inside
	dec %ebx
	jnz 1b
	pop %rbx
	xor %eax, %eax
	ret
	.size main, .-main
	.type outside, @function
outside:
	mov $249999999, %rcx
2:	add %rcx, %rax
	xor %rdx, %rax
	dec %rcx
	jnz 2b
	ret
	.size outside, .-outside
	.type inside, @function
inside:
	mov $49, %ecx
3:	dec %ecx
	jnz 3b
	ret
	.size inside, .-inside
	.section .note.GNU-stack, "", @progbits
