/* Hand-derived I and C of small functions: byte-exact memory dependencies,
 * lock cmpxchg, REP string instructions (one dynamic instruction per
 * iteration), DESIGN.md. Isolated instances: memory written before the call
 * is ready at 0; a ret that follows no RSP change runs at step 1.
 * run-asm.sh checks every EXPECT line against `perpi --function NAME`. */
	.intel_syntax noprefix
	.text

/* A chain carried only through overlapping bytes.
 * EXPECT mem_overlap I=8 C=7
 *   lea rdi,[buf]               1  (rip-relative: no register, no memory)
 *   mov [rdi],rax               2  (bytes 0-7)
 *   mov ecx,[rdi+4]             3  (bytes 4-7, the upper half)
 *   mov [rdi+8],rcx             4  (bytes 8-15)
 *   movzx edx,byte [rdi+15]     5
 *   mov [rdi+14],dx             6  (bytes 14-15)
 *   mov r8w,[rdi+13]            7  (byte 13 (4), byte 14 (6), r8 merges (0))
 *   ret                         1 */
	.globl mem_overlap
	.type mem_overlap, @function
mem_overlap:
	lea rdi, [rip + buf]
	mov [rdi], rax
	mov ecx, [rdi + 4]
	mov [rdi + 8], rcx
	movzx edx, byte ptr [rdi + 15]
	mov [rdi + 14], dx
	mov r8w, [rdi + 13]
	ret
	.size mem_overlap, .-mem_overlap

/* Loads of neighbouring bytes do not depend on a store.
 * EXPECT mem_neighbours I=9 C=4
 *   lea rdi,[buf]               1
 *   add rax,rax x3              1 2 3
 *   mov [rdi],rax               4  (bytes 0-7)
 *   mov edx,[rdi+8]             2  (bytes 8-11: not written here)
 *   mov esi,[rdi-4]             2  (bytes -4..-1)
 *   mov cx,[rdi+8]              2  (rcx merges (0))
 *   ret                         1  (any false dependency gives 5) */
	.globl mem_neighbours
	.type mem_neighbours, @function
mem_neighbours:
	lea rdi, [rip + buf]
	add rax, rax
	add rax, rax
	add rax, rax
	mov [rdi], rax
	mov edx, [rdi + 8]
	mov esi, [rdi - 4]
	mov cx, [rdi + 8]
	ret
	.size mem_neighbours, .-mem_neighbours

/* lock cmpxchg reads rax, its source and memory, and writes memory, rax and
 * the flags (whether it succeeds or not).
 * EXPECT lock_cmpxchg I=10 C=7
 *   lea rdi,[cell]              1
 *   mov eax,5                   1
 *   mov ecx,1                   1
 *   lock cmpxchg [rdi],rcx      2  (rdi, rax, rcx (1), cell (0))
 *   setz cl                     3  (ZF (2), rcx merges (1))
 *   lock cmpxchg [rdi],rcx      4  (rax (2), rcx (3), cell (2))
 *   mov rdx,[rdi]               5  (cell (4))
 *   lock cmpxchg [rdi],rdx      6  (rax (4), rdx (5), cell (4))
 *   add rax,1                   7  (rax (6))
 *   ret                         1
 * Missing the memory, rax or flags write each gives C=6. */
	.globl lock_cmpxchg
	.type lock_cmpxchg, @function
lock_cmpxchg:
	lea rdi, [rip + cell]
	mov eax, 5
	mov ecx, 1
	lock cmpxchg [rdi], rcx
	setz cl
	lock cmpxchg [rdi], rcx
	mov rdx, [rdi]
	lock cmpxchg [rdi], rdx
	add rax, 1
	ret
	.size lock_cmpxchg, .-lock_cmpxchg

/* rep movsb of 5 bytes: 5 dynamic instructions, each reading rsi, rdi, rcx
 * (and DF, never written here) as left by the previous one.
 * EXPECT rep_movsb I=10 C=7
 *   lea rsi,[src_buf]           1
 *   lea rdi,[dst_buf]           1
 *   mov ecx,5                   1
 *   rep movsb x5                2 3 4 5 6  (source bytes: not written here)
 *   mov al,[dst_buf+4]          7  (the byte of the 5th iteration (6))
 *   ret                         1 */
	.globl rep_movsb
	.type rep_movsb, @function
rep_movsb:
	lea rsi, [rip + src_buf]
	lea rdi, [rip + dst_buf]
	mov ecx, 5
	rep movsb
	mov al, [rip + dst_buf + 4]
	ret
	.size rep_movsb, .-rep_movsb

/* rep stosq of 4 quadwords.
 * EXPECT rep_stosq I=10 C=6
 *   lea rdi,[dst_buf]           1
 *   mov ecx,4                   1
 *   xor eax,eax                 1
 *   rep stosq x4                2 3 4 5  (bytes 0-7, 8-15, 16-23, 24-31)
 *   mov rdx,[dst_buf+16]        5  (3rd iteration (4))
 *   mov rsi,[dst_buf+24]        6  (4th iteration (5))
 *   ret                         1 */
	.globl rep_stosq
	.type rep_stosq, @function
rep_stosq:
	lea rdi, [rip + dst_buf]
	mov ecx, 4
	xor eax, eax
	rep stosq
	mov rdx, [rip + dst_buf + 16]
	mov rsi, [rip + dst_buf + 24]
	ret
	.size rep_stosq, .-rep_stosq

	.globl main
	.type main, @function
main:
	sub rsp, 8
	call mem_overlap
	call mem_neighbours
	call lock_cmpxchg
	call rep_movsb
	call rep_stosq
	add rsp, 8
	xor eax, eax
	ret
	.size main, .-main

	.data
	.balign 64
	.zero 64
buf:	.zero 64
cell:	.quad 5
src_buf: .ascii "abcdefgh"
	.balign 64
dst_buf: .zero 64

	.section .note.GNU-stack, "", @progbits
