/* main spins forever: perpi is stopped with SIGINT. */
	.text
	.globl main
	.type main, @function
main:
1:	jmp 1b
	.size main, .-main
	.section .note.GNU-stack, "", @progbits
