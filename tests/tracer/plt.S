/* Calls into shared objects through the PLT (tests/tracer/names.sh):
 * plugin_work of libplugin.so (plugin.c: lea eax, [rdi+rdi+1]; ret) and
 * unnamed_work of libunnamed.so (unnamed.c), whose helper has no symbol
 * once the object is stripped. main's own instructions do not matter. */
	.text
	.globl	main
	.type	main, @function
main:
	sub	$8, %rsp
	mov	$20, %edi
	call	plugin_work@PLT
	mov	$20, %edi
	call	unnamed_work@PLT
	add	$8, %rsp
	xor	%eax, %eax
	ret
	.size	main, .-main
	.section .note.GNU-stack, "", @progbits
