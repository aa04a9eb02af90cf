/* A program marked as needing x86-64-v4 (AVX-512) in its GNU property
 * note, as gcc -march=x86-64-v4 -mneeded marks it: the loader refuses it on
 * Valgrind's CPU, so the Valgrind backend must refuse it first, saying why
 * (unsupported.sh). Its code needs nothing. */
	.text
	.globl main
	.type main, @function
main:
	xor %eax, %eax
	ret
	.size main, .-main
	.section .note.gnu.property, "a"
	.p2align 3
	.long 4			/* name size */
	.long 16		/* descriptor size */
	.long 5			/* NT_GNU_PROPERTY_TYPE_0 */
	.asciz "GNU"
	.long 0xc0008002	/* GNU_PROPERTY_X86_ISA_1_NEEDED */
	.long 4
	.long 0xf		/* baseline, v2, v3, v4 */
	.p2align 3
	.section .note.GNU-stack, "", @progbits
