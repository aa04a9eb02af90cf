/* Functions whose cycles are known by hand, for perpi measure's tests
 * (cases.c calls them).
 *
 * add_chain: 2000 dependent "add rax, rdi" (each reads the rax the one
 * before wrote). An add of two registers has a latency of 1 cycle on every
 * x86-64 CPU, so the chain takes 2000 cycles; the "mov rax, rdi" before it
 * is eliminated at rename or overlaps the call, the ret is predicted: a
 * call takes 2000 cycles, plus at most a few to fill the pipeline.
 *
 * imul_chain: 1000 dependent "imul rax, rdi": 3 cycles each on the CPUs
 * perpi knows (AMD Zen 2 to 5, Intel Core since Sandy Bridge: AMD's and
 * Intel's optimization manuals, uops.info), so 3000 cycles.
 *
 * rip_first: its first instruction reads memory RIP-relative (moved next
 * to the stub, it must still read forty_two); returns 42.
 * fib: fib(n) by the naive recursion, both calls real (a compiler may turn
 * one into a loop): C(n) = 1 + C(n-1) + C(n-2) calls, C(0) = C(1) = 1, so
 * fib(n) makes 2 fib(n+1) - 1 calls; its entry starts with a compare and
 * a conditional jump (moved and re-aimed next to the stub).
 * tiny: "ret" alone (1 byte, padding after it); returns at once.
 * loop_head: a loop whose head is its first instruction (its calls cannot
 * be told from the loop's turns at the entry).
 * short_one, then right after it short_two: 3 bytes each with no padding
 * between, so no 5-byte jump fits at short_one's entry. */
	.intel_syntax noprefix
	.text

	.p2align 4
	.globl add_chain
	.type add_chain, @function
add_chain:
	mov rax, rdi
	.rept 2000
	add rax, rdi
	.endr
	ret
	.size add_chain, .-add_chain

	.p2align 4
	.globl imul_chain
	.type imul_chain, @function
imul_chain:
	mov rax, rdi
	.rept 1000
	imul rax, rdi
	.endr
	ret
	.size imul_chain, .-imul_chain

	.p2align 4
	.globl rip_first
	.type rip_first, @function
rip_first:
	mov rax, [rip + forty_two]
	ret
	.size rip_first, .-rip_first

	.p2align 4
	.globl fib
	.type fib, @function
fib:
	cmp rdi, 2
	jl 1f
	push rbx
	push rbp
	mov rbx, rdi
	lea rdi, [rbx - 1]
	call fib
	mov rbp, rax
	lea rdi, [rbx - 2]
	call fib
	add rax, rbp
	pop rbp
	pop rbx
	ret
1:	mov rax, rdi
	ret
	.size fib, .-fib

	.p2align 4
	.globl tiny
	.type tiny, @function
tiny:
	ret
	.size tiny, .-tiny

	.p2align 4
	.globl loop_head
	.type loop_head, @function
loop_head:
	dec rdi
	jnz loop_head
	ret
	.size loop_head, .-loop_head

	.p2align 4
	.globl short_one
	.type short_one, @function
short_one:
	xor eax, eax
	ret
	.size short_one, .-short_one
	.globl short_two
	.type short_two, @function
short_two:
	mov eax, 2
	ret
	.size short_two, .-short_two

	.section .rodata
	.p2align 3
forty_two:
	.quad 42

	.section .note.GNU-stack, "", @progbits
