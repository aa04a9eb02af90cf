/* Hand-derived I and C of small functions: partial registers, zero idioms,
 * flags, cmov (DESIGN.md, "The ideal machine"). Each function is analysed
 * as an isolated call instance: everything from before it is ready at 0, and
 * its ret reads RSP and the return address, both written before the call,
 * so a ret in a function that does not touch RSP runs at step 1.
 * run-asm.sh checks every EXPECT line against `perpi --function NAME`. */
	.intel_syntax noprefix
	.text

/* 32-bit writes zero-extend, 8- and 16-bit writes merge (read the old value).
 * EXPECT partial_merge I=5 C=4
 *   mov eax,1   no source                1
 *   mov al,2    merges: rax (1)          2
 *   mov ah,3    merges: rax (2)          3
 *   mov ax,4    merges: rax (3)          4
 *   ret                                  1 */
	.globl partial_merge
	.type partial_merge, @function
partial_merge:
	mov eax, 1
	mov al, 2
	mov ah, 3
	mov ax, 4
	ret
	.size partial_merge, .-partial_merge

/* EXPECT partial_zext I=6 C=3
 *   add rax,rax        1
 *   add rax,rax        2
 *   mov eax,7          1  (a 32-bit write reads nothing; merging would give 3)
 *   lea ecx,[rax+1]    2  (lea reads rax, no memory)
 *   mov cl,5           3  (merges rcx (2); a full write would give 1)
 *   ret                1 */
	.globl partial_zext
	.type partial_zext, @function
partial_zext:
	add rax, rax
	add rax, rax
	mov eax, 7
	lea ecx, [rax + 1]
	mov cl, 5
	ret
	.size partial_zext, .-partial_zext

/* Zero idioms on 32- and 64-bit registers have no source.
 * EXPECT zero_gpr I=11 C=3
 * Constrained machines, instruction #k at its step (ready step first):
 * EXPECT[--width 1] zero_gpr I=11 C=11
 * EXPECT[--width 2] zero_gpr I=11 C=6
 *   at most 2 per step, each at the first step >= its ready step with room:
 *   #0 1, #1 2, #2 3, #3 1 (step 1 full), #4 2 (full), #5 ready 1 -> 3
 *   (full), #6 4, #7 5, #8 ready 1 -> 4 (full), #9 5 (full), #10 ready 1 -> 6
 * EXPECT[--window 2] zero_gpr I=11 C=7
 *   c(k) >= c(k-2) + 1: #0 1, #1 2, #2 3, #3 max(1, 2+1) = 3, #4 max(4, 4) 4,
 *   #5 max(1, 4) 4, #6 max(5, 5) 5, #7 max(6, 5) 6, #8 max(1, 6) 6,
 *   #9 max(7, 7) 7, #10 (ret) max(1, 7) 7
 *   add rax,rax x3     1 2 3
 *   xor eax,eax        1  (not an idiom: 4)
 *   add rax,1          2
 *   add rcx,rcx x3     1 2 3
 *   sub rcx,rcx        1  (not an idiom: 4)
 *   add rcx,1          2
 *   ret                1 */
	.globl zero_gpr
	.type zero_gpr, @function
zero_gpr:
	add rax, rax
	add rax, rax
	add rax, rax
	xor eax, eax
	add rax, 1
	add rcx, rcx
	add rcx, rcx
	add rcx, rcx
	sub rcx, rcx
	add rcx, 1
	ret
	.size zero_gpr, .-zero_gpr

/* xor dl,dl still merges: bits 8-63 come from the old rdx.
 * EXPECT zero_merge8 I=5 C=4
 *   add rdx,rdx x2     1 2
 *   xor dl,dl          3  (reads rdx (2))
 *   add rdx,1          4
 *   ret                1 */
	.globl zero_merge8
	.type zero_merge8, @function
zero_merge8:
	add rdx, rdx
	add rdx, rdx
	xor dl, dl
	add rdx, 1
	ret
	.size zero_merge8, .-zero_merge8

/* inc does not write CF; adc reads CF.
 * EXPECT flags_inc_cf I=6 C=4
 *   add rax,rcx x3     1 2 3  (each writes all six status flags)
 *   inc rdx            1      (writes PF AF ZF SF OF, not CF)
 *   adc rbx,0          4      (CF from the third add; 2 if inc wrote CF,
 *                              1 if adc did not read it)
 *   ret                1 */
	.globl flags_inc_cf
	.type flags_inc_cf, @function
flags_inc_cf:
	add rax, rcx
	add rax, rcx
	add rax, rcx
	inc rdx
	adc rbx, 0
	ret
	.size flags_inc_cf, .-flags_inc_cf

/* cmovz reads ZF only.
 * EXPECT flags_cmovz I=6 C=3
 *   add rax,rcx x3     1 2 3
 *   inc rdx            1      (ZF now from inc)
 *   cmovz rsi,rdi      2      (ZF (1), rsi, rdi (0); 4 if it read CF or
 *                              any flag of the adds)
 *   ret                1 */
	.globl flags_cmovz
	.type flags_cmovz, @function
flags_cmovz:
	add rax, rcx
	add rax, rcx
	add rax, rcx
	inc rdx
	cmovz rsi, rdi
	ret
	.size flags_cmovz, .-flags_cmovz

/* cmov reads its destination (it may keep the old value).
 * EXPECT cmov_reads_dest I=6 C=4
 *   add rsi,rsi x3     1 2 3
 *   test rdi,rdi       1      (writes the flags)
 *   cmovnz rsi,rdx     4      (rsi (3), rdx (0), ZF (1))
 *   ret                1 */
	.globl cmov_reads_dest
	.type cmov_reads_dest, @function
cmov_reads_dest:
	add rsi, rsi
	add rsi, rsi
	add rsi, rsi
	test rdi, rdi
	cmovnz rsi, rdx
	ret
	.size cmov_reads_dest, .-cmov_reads_dest

	.globl main
	.type main, @function
main:
	push rbx
	call partial_merge
	call partial_zext
	call zero_gpr
	call zero_merge8
	call flags_inc_cf
	call flags_cmovz
	call cmov_reads_dest
	pop rbx
	xor eax, eax
	ret
	.size main, .-main

	.section .note.GNU-stack, "", @progbits
