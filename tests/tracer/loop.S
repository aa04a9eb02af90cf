/* main runs a counted loop; the instruction count is derived by hand:
 *   mov $1000, %ecx          1
 *   1: dec %ecx ; jnz 1b     2 x 1000
 *   xor %eax, %eax           1
 *   ret                      1
 * main = 2003 instructions, the same in PIE, non-PIE and static builds. */
	.text
	.globl main
	.type main, @function
main:
	mov $1000, %ecx
1:	dec %ecx
	jnz 1b
	xor %eax, %eax
	ret
	.size main, .-main
	.section .note.GNU-stack, "", @progbits
