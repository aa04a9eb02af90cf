/* qa_throw's functions: C++ exceptions unwind through qa_middle
 * (its CFI lets them), figures derived by hand
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

/* qa_middle(x) = qa_thrower(x) + 1.  Its own instructions: 5 when
 * qa_thrower returns (sub, call, add, add, ret), 2 when it throws
 * (sub, call: the unwinder lands in the caller's handler). */
	.globl qa_middle
	.type qa_middle, @function
qa_middle:
	.cfi_startproc
	sub rsp, 8
	.cfi_def_cfa_offset 16
	call qa_thrower
	add rsp, 8
	.cfi_def_cfa_offset 8
	add eax, 1
	ret
	.cfi_endproc
	.size qa_middle, .-qa_middle

	.section .note.GNU-stack, "", @progbits
