/* qa_avx2's loop: a dependency chain through 32-byte stores and loads, figures derived by hand
 * (test-qa.sh); in assembly so that no compiler changes them. */
	.intel_syntax noprefix
	.text

/* qa_avx2_chain(p): eight 32-byte blocks, each the running sum of the
 * previous ones, the chain going through memory:
 *     vxorps ymm0,ymm0,ymm0        1   (zero idiom: no source)
 *     mov ecx, 8                   1
 *   iteration k = 0..7:
 *     vaddps ymm0,ymm0,[rdi]       2+2k  (ymm0 bits 0-255 from the last
 *                                         vaddps, 2k; [rdi] from the last
 *                                         store, 1+2k; rdi ready at k)
 *     vmovups [rdi+32],ymm0        3+2k
 *     add rdi, 32                  1+k
 *     dec ecx                      2+k
 *     jnz 1b                       3+k
 *     ret                          1
 * I = 2 + 8 * 5 + 1 = 43, C = the last store's step, 3 + 2 * 7 = 17.
 * Were the memory not tracked byte by byte (or the store not seen), each
 * vaddps would only wait for the previous one: C = 2 + 7 + 1 = 10 (the
 * last store); were the 32-byte store seen as 16 bytes, the load of its
 * upper half would not wait either. */
	.globl qa_avx2_chain
	.type qa_avx2_chain, @function
qa_avx2_chain:
	.cfi_startproc
	vxorps ymm0, ymm0, ymm0
	mov ecx, 8
1:	vaddps ymm0, ymm0, [rdi]
	vmovups [rdi + 32], ymm0
	add rdi, 32
	dec ecx
	jnz 1b
	ret
	.cfi_endproc
	.size qa_avx2_chain, .-qa_avx2_chain

	.section .note.GNU-stack, "", @progbits
