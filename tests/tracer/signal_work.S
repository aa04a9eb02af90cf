/* work(pid) sends itself SIGUSR1; handler runs a counted loop. With
 * `--function work` the traced instructions are, by hand:
 *   work:    mov $10,%esi ; mov $62,%eax            2
 *            syscall (kill)                          not counted
 *   handler: incl hits ; mov $100,%ecx              2
 *            1: dec %ecx ; jnz 1b                   2 x 100
 *            ret                                    1
 *   glibc's __restore_rt: mov $15,%rax               1
 *            syscall (rt_sigreturn)                  not counted
 *   work:    ret                                    1
 * = 207. */
	.text
	.globl work, handler, hits
	.type work, @function
work:
	mov $10, %esi
	mov $62, %eax
	syscall
	ret
	.size work, .-work
	.type handler, @function
handler:
	incl hits(%rip)
	mov $100, %ecx
1:	dec %ecx
	jnz 1b
	ret
	.size handler, .-handler
	.data
hits:	.long 0
	.section .note.GNU-stack, "", @progbits
