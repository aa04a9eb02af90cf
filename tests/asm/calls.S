/* Hand-derived I and C of small functions: push/pop/call/ret, nested
 * isolated call instances, a tail call, longjmp-style unwinding, a raw
 * syscall, a counted loop (DESIGN.md). No libc call: every function of the
 * run has a name (tests/tui uses this program too). Each instance is analysed in isolation: RSP and the return
 * address were written before it, so they are ready at 0 inside it.
 * run-asm.sh checks every EXPECT line against `perpi --function NAME`. */
	.intel_syntax noprefix
	.text

/* push and pop read and write RSP and the stack bytes.
 * EXPECT stack_ops I=6 C=5
 * EXPECT[--stack-engine] stack_ops I=6 C=2
 *   with a stack engine the pushes and pops neither read nor write RSP:
 *   push rbx 1, push rbp 1, mov 1, pop rbp 2 and pop rbx 2 (their stack
 *   bytes, written at 1), ret 1 (the return address, from before)
 *   push rbx       1  (rsp, rbx (0))
 *   push rbp       2  (rsp (1))
 *   mov ebx,5      1
 *   pop rbp        3  (rsp (2), the bytes push rbp wrote (2))
 *   pop rbx        4  (rsp (3), the bytes push rbx wrote (1))
 *   ret            5  (rsp (4), return address (0)) */
	.globl stack_ops
	.type stack_ops, @function
stack_ops:
	push rbx
	push rbp
	mov ebx, 5
	pop rbp
	pop rbx
	ret
	.size stack_ops, .-stack_ops

/* EXPECT leaf I=2 C=1
 *   mov eax,1      1
 *   ret            1  (rsp and the return address come from before) */
	.globl leaf
	.type leaf, @function
leaf:
	mov eax, 1
	ret
	.size leaf, .-leaf

/* A call and its callee's instructions count in the caller's instance.
 * EXPECT stack_call I=5 C=3
 * EXPECT[--stack-engine] stack_call I=5 C=2
 *   call 1 (no source), mov 1, leaf's ret 2 (the return address the call
 *   wrote), add 2, ret 1
 *   call leaf      1  (rsp (0); writes rsp and the return address)
 *     mov eax,1    1
 *     ret          2  (rsp (1), return address (1))
 *   add rax,1      2  (rax (1))
 *   ret            3  (rsp (2)) */
	.globl stack_call
	.type stack_call, @function
stack_call:
	call leaf
	add rax, 1
	ret
	.size stack_call, .-stack_call

/* Nested instances each start from scratch.
 * EXPECT nest_outer I=10 C=7
 * EXPECT nest_inner I=4 C=3
 *                        outer  inner
 *   add rax,rax x3       1 2 3
 *   call nest_inner      1
 *     add rax,rax        4      1
 *     add rax,rax        5      2
 *     mov edx,eax        6      3
 *     ret                2      1   (outer: rsp and return address (1))
 *   add rax,rdx          7          (rax (5), rdx (6))
 *   ret                  3          (rsp (2))
 * outer: 3 + 1 + 4 + 1 + 1 = 10 instructions; inner: 4. */
	.globl nest_outer
	.type nest_outer, @function
nest_outer:
	add rax, rax
	add rax, rax
	add rax, rax
	call nest_inner
	add rax, rdx
	ret
	.size nest_outer, .-nest_outer

	.globl nest_inner
	.type nest_inner, @function
nest_inner:
	add rax, rax
	add rax, rax
	mov edx, eax
	ret
	.size nest_inner, .-nest_inner

/* A tail call (jmp) stays in the caller's instance; tail_target is never
 * called, so it has no line of its own.
 * EXPECT tail_caller I=4 C=2
 *   add rax,rax    1
 *   jmp tail_target 1 (no source)
 *   add rax,rax    2
 *   ret            1 */
	.globl tail_caller
	.type tail_caller, @function
tail_caller:
	add rax, rax
	jmp tail_target
	.size tail_caller, .-tail_caller

	.globl tail_target
	.type tail_target, @function
tail_target:
	add rax, rax
	ret
	.size tail_target, .-tail_target

/* A syscall is not counted and takes no step: what it writes (rax, rcx,
 * r11) is ready when its inputs are (rax (1); its other inputs come from
 * before the call).
 * EXPECT sys_getpid I=4 C=2
 *   mov eax,39     1
 *   syscall        -  (getpid)
 *   add rax,1      2
 *   mov rdx,rcx    2
 *   ret            1 */
	.globl sys_getpid
	.type sys_getpid, @function
sys_getpid:
	mov eax, 39
	syscall
	add rax, 1
	mov rdx, rcx
	ret
	.size sys_getpid, .-sys_getpid

/* A loop of 10 iterations summing 10..1.
 * EXPECT loop_sum I=33 C=12
 * EXPECT[--window 1] loop_sum I=33 C=33
 *   each instruction after the one before it: ILP exactly 1
 * EXPECT[--only int] loop_sum I=21 C=11
 *   counted: xor (1), then per iteration add and dec; mov ecx,10 (move),
 *   jnz and ret (branch) are free: mov makes rcx ready at 0, so iteration
 *   k has add k+1 (rax k, rcx k-1) and dec k: I = 1 + 2 * 10, C = 11
 *   xor eax,eax    1
 *   mov ecx,10     1
 *   iteration k = 1..10:
 *     add rax,rcx  k+1  (rax and rcx from iteration k-1, or 1)
 *     dec rcx      k+1  (writes ZF, not CF)
 *     jnz          k+2  (ZF)
 *   ret            1
 * I = 2 + 3 * 10 + 1 = 33; C = 10 + 2 = 12. */
	.globl loop_sum
	.type loop_sum, @function
loop_sum:
	xor eax, eax
	mov ecx, 10
1:	add rax, rcx
	dec rcx
	jnz 1b
	ret
	.size loop_sum, .-loop_sum

/* longjmp by hand: lj_inner puts back the RSP lj_outer had at its entry
 * (K) and jumps into it; the next event, above lj_inner's entry RSP (K-8),
 * unwinds lj_inner's instance, and lj_outer's ret at K closes its own.
 * EXPECT lj_outer I=7 C=3
 * EXPECT lj_inner I=2 C=1
 *                          outer  inner
 *   mov rdx,rsp            1             (rsp from before)
 *   call lj_inner          1
 *     push rbx             2      1      (rsp (the call, before inner))
 *     mov rsp,rdx          2      1      (rdx (mov: 1; from before inner))
 *     jmp 1f               1             (at K: inner unwound first)
 *   add rax,1              1
 *   ret                    3             (rsp (mov rsp,rdx: 2), [K] before)
 *   outer: 7 instructions; inner: push and mov. */
	.globl lj_outer
	.type lj_outer, @function
lj_outer:
	mov rdx, rsp
	call lj_inner
lj_land:
	add rax, 1
	ret
	.size lj_outer, .-lj_outer

	.globl lj_inner
	.type lj_inner, @function
lj_inner:
	push rbx
	mov rsp, rdx
	jmp lj_land
	.size lj_inner, .-lj_inner

	.globl main
	.type main, @function
main:
	sub rsp, 8
	call stack_ops
	call stack_call
	call nest_outer
	call tail_caller
	call sys_getpid
	call loop_sum
	call lj_outer
	add rsp, 8
	xor eax, eax
	ret
	.size main, .-main

	.section .note.GNU-stack, "", @progbits
