/* tf_seen() returns the trap flag as pushf stores it, 64- and 16-bit.
 * Under a single-stepper TF is set while the program runs; perpi must
 * clear it in the pushed value, so the program sees what it sees natively. */
	.text
	.globl tf_seen
	.type tf_seen, @function
tf_seen:
	pushfq
	pop %rax
	pushfw
	pop %dx
	or %edx, %eax
	shr $8, %eax
	and $1, %eax
	ret
	.size tf_seen, .-tf_seen
	.section .note.GNU-stack, "", @progbits
