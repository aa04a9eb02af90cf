/* A signal handler's figures (DESIGN.md: signal handlers' instructions are
 * part of the program). main installs on_usr1 with signal() and raises
 * SIGUSR1; the handler's instance starts at its first instruction, entered
 * by the kernel, and ends with its ret.
 * run-asm.sh checks every EXPECT line against `perpi --function NAME`. */
	.intel_syntax noprefix
	.text

/* EXPECT on_usr1 I=3 C=2
 *   add rax,rax    1
 *   add rax,rax    2
 *   ret            1  (rsp and the return address come from before) */
	.globl on_usr1
	.type on_usr1, @function
on_usr1:
	add rax, rax
	add rax, rax
	ret
	.size on_usr1, .-on_usr1

	.globl main
	.type main, @function
main:
	sub rsp, 8
	mov edi, 10 /* SIGUSR1 */
	lea rsi, [rip + on_usr1]
	call signal@PLT
	mov edi, 10
	call raise@PLT
	add rsp, 8
	xor eax, eax
	ret
	.size main, .-main

	.section .note.GNU-stack, "", @progbits
