/* perpi_start()/perpi_stop() (markers_c.c, from perpi.h) around work().
 * By hand:
 *   work: mov $50,%ecx ; 50 x (dec, jnz) ; ret    = 102
 * Default (markers): after perpi_start returns, `call work` + work, up to
 * the call of perpi_stop, which is not traced: 1 + 102 = 103.
 * --start work --stop perpi_stop, or --function work: 102. */
	.text
	.globl main, work
	.type main, @function
main:
	push %rbx
	call perpi_start
	call work
	call perpi_stop
	pop %rbx
	xor %eax, %eax
	ret
	.size main, .-main
	.type work, @function
work:
	mov $50, %ecx
1:	dec %ecx
	jnz 1b
	ret
	.size work, .-work
	.section .note.GNU-stack, "", @progbits
