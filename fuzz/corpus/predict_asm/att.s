1addq %rbx, %rax
movq (%rdi), %rcx