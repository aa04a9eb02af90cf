0add rax, rbx
mulsd xmm0, [rdi+8]
vfmadd231pd ymm0, ymm1, ymm2