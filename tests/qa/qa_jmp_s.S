/* qa_jmp's functions: a recursion left by longjmp, figures derived by hand
 * (test-qa.sh); in assembly so that no compiler changes them. */
	.intel_syntax noprefix
	.text

/* qa_leaf(x) = x + 3.  Per call: I = 2, C = 1 (lea reads rdi, ready at 0
 * in an isolated instance: step 1; ret reads rsp and [rsp]: step 1). */
	.globl qa_leaf
	.type qa_leaf, @function
qa_leaf:
	.cfi_startproc
	lea eax, [rdi + 3]
	ret
	.cfi_endproc
	.size qa_leaf, .-qa_leaf

/* qa_deep(n): calls itself n times, then longjmp(qa_jb, 7).  Own
 * instructions of an instance: 5 for n > 0 (test, je, sub, dec, call),
 * 6 for n = 0 (test, je, sub, lea, mov, call). */
	.globl qa_deep
	.type qa_deep, @function
qa_deep:
	.cfi_startproc
	test edi, edi
	je 1f
	sub rsp, 8
	.cfi_def_cfa_offset 16
	dec edi
	call qa_deep
	add rsp, 8	/* never reached */
	.cfi_def_cfa_offset 8
	ret
1:	sub rsp, 8
	.cfi_def_cfa_offset 16
	lea rdi, [rip + qa_jb]
	mov esi, 7
	call longjmp@PLT
	.cfi_endproc
	.size qa_deep, .-qa_deep

	.section .note.GNU-stack, "", @progbits
