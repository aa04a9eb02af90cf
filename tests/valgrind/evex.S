/* An AVX-512 (EVEX) instruction, which Valgrind 3.19's CPU does not have:
 * the Valgrind backend must stop with an error naming it (unsupported.sh).
 * Never run natively by the tests (this CPU may lack AVX-512 too). */
	.intel_syntax noprefix
	.text
	.globl main
	.type main, @function
main:
	xor eax, eax
	vpaddd zmm0, zmm0, zmm1
	ret
	.size main, .-main
	.section .note.GNU-stack, "", @progbits
