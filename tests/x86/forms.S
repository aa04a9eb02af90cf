/* Instruction forms beyond what libc and libm hold (BMI, AES/SHA/CLMUL,
 * MMX, x87, AVX2, AVX-512 masks, gathers/scatters, stores Capstone 4 calls
 * reads...): tests/x86/forms.sh sweeps them with test_x86_zydis, the
 * second opinion. Assembled only, never run. fnsave, frstor and iretq are
 * left out: docs/X86.md lists them as known limitations. */
	.intel_syntax noprefix
	.text
	mulx r8, r9, [rdi]
	adcx rax, rbx
	adox rax, rbx
	pdep rax, rbx, rcx
	pext rax, rbx, [rsi]
	bzhi rax, rbx, rcx
	shlx rax, rbx, rcx
	sarx eax, ebx, ecx
	rorx rax, rbx, 5
	andn rax, rbx, rcx
	blsr rax, rbx
	blsi rax, rbx
	blsmsk rax, rbx
	bextr rax, rbx, rcx
	popcnt rax, rbx
	lzcnt rax, rbx
	tzcnt rax, rbx
	bsf rax, rbx
	bsr rax, rbx
	crc32 eax, byte ptr [rsi]
	crc32 rax, rbx
	movbe rax, [rsi]
	movbe [rdi], eax
	bswap eax
	xadd [rdi], rax
	lock xadd [rdi], eax
	xchg [rdi], rax
	xchg rax, rbx
	cmpxchg16b [rdi]
	cmpxchg8b [rdi]
	cmpxchg [rdi], ecx
	rdtsc
	rdtscp
	rdrand rax
	rdseed rax
	rdpid rax
	bt rax, rbx
	bts qword ptr [rdi], 3
	btr qword ptr [rdi], rbx
	setc al
	setz byte ptr [rdi]
	cmovb eax, ebx
	cmovg rax, [rsi]
	cwd
	cdq
	cqo
	cbw
	cwde
	cdqe
	lahf
	sahf
	cmc
	clc
	stc
	cld
	std
	imul rax, rbx, 7
	imul rbx
	mul ebx
	div rbx
	idiv byte ptr [rsi]
	neg rax
	not rax
	shld rax, rbx, cl
	shrd rax, rbx, 3
	rcl rax, 1
	rcr rax, cl
	rol rax, cl
	sar eax, 1
	movsx rax, byte ptr [rsi]
	movzx eax, word ptr [rsi]
	movsxd rax, dword ptr [rsi]
	lea rax, [rbx + rcx*4 + 8]
	xlatb
	lodsb
	stosd
	scasb
	cmpsq
	repne scasb
	repe cmpsb
	aesenc xmm0, xmm1
	vaesenc ymm0, ymm1, ymm2
	aesdeclast xmm0, [rsi]
	aeskeygenassist xmm0, xmm1, 1
	pclmulqdq xmm0, xmm1, 0
	vpclmulqdq ymm0, ymm1, ymm2, 0x11
	sha256rnds2 xmm1, xmm2
	sha256msg1 xmm1, xmm2
	sha1rnds4 xmm1, xmm2, 1
	pshufb xmm0, xmm1
	palignr xmm0, xmm1, 3
	pblendvb xmm0, xmm1
	blendvps xmm0, xmm1
	vpblendvb ymm0, ymm1, ymm2, ymm3
	ptest xmm0, xmm1
	vptest ymm0, ymm1
	pmovmskb eax, xmm0
	vpmovmskb eax, ymm0
	movmskps eax, xmm1
	pextrd eax, xmm1, 2
	pinsrq xmm1, rax, 1
	vpinsrd xmm1, xmm2, eax, 1
	movd xmm0, eax
	movq rax, xmm0
	movq xmm0, xmm1
	movhps xmm0, [rsi]
	movlps [rdi], xmm0
	movhlps xmm0, xmm1
	movlhps xmm0, xmm1
	unpcklps xmm0, xmm1
	shufps xmm0, xmm1, 0x1b
	cvtsi2sd xmm0, rax
	cvttsd2si rax, xmm0
	cvtss2sd xmm0, xmm1
	sqrtsd xmm0, xmm1
	vsqrtsd xmm0, xmm1, xmm2
	roundsd xmm0, xmm1, 1
	comisd xmm0, xmm1
	ucomiss xmm0, [rsi]
	vcomisd xmm0, xmm1
	maxsd xmm0, xmm1
	vfmadd231sd xmm0, xmm1, xmm2
	vfmadd132ps ymm0, ymm1, [rsi]
	vbroadcastss ymm0, [rsi]
	vpbroadcastd ymm0, xmm1
	vpbroadcastq zmm0, rax
	vperm2f128 ymm0, ymm1, ymm2, 0x21
	vperm2i128 ymm0, ymm1, ymm2, 0x08
	vpermq ymm0, ymm1, 0x4e
	vpermd ymm0, ymm1, ymm2
	vpermilps ymm0, ymm1, 0x1b
	vinsertf128 ymm0, ymm1, xmm2, 1
	vinserti128 ymm0, ymm1, [rsi], 0
	vextracti128 xmm0, ymm1, 0
	vextracti128 [rdi], ymm1, 1
	vmaskmovps ymm0, ymm1, [rsi]
	vmaskmovps [rdi], ymm1, ymm0
	vpmaskmovd xmm0, xmm1, [rsi]
	vgatherdps ymm0, [rsi + ymm1*4], ymm2
	vpgatherqq ymm0, [rsi + ymm1*8], ymm2
	vzeroupper
	vzeroall
	vcvtph2ps ymm0, xmm1
	vcvtps2ph xmm0, ymm1, 0
	vpsllvd ymm0, ymm1, ymm2
	vpsravd ymm0, ymm1, [rsi]
	vmovddup ymm0, ymm1
	vmovshdup xmm0, xmm1
	vpmovzxbw ymm0, xmm1
	vpmovsxdq ymm0, [rsi]
	vpshufd ymm0, ymm1, 0x1b
	vpunpckhqdq ymm0, ymm1, ymm2
	vpsadbw ymm0, ymm1, ymm2
	vpmaddubsw ymm0, ymm1, ymm2
	vpalignr ymm0, ymm1, ymm2, 4
	vmovntdq [rdi], ymm0
	movntdqa xmm0, [rsi]
	movnti [rdi], rax
	lddqu xmm0, [rsi]
	vlddqu ymm0, [rsi]
	pause
	lfence
	mfence
	sfence
	prefetcht0 [rsi]
	prefetchw [rsi]
	clflush [rsi]
	clflushopt [rsi]
	clwb [rsi]
	nop word ptr [rax + rax]
	endbr64
	int3
	ud2
	fnstenv [rdi]
	fldenv [rsi]
	fxsave [rdi]
	fxrstor [rsi]
	fnstsw ax
	fnclex
	fninit
	fwait
	fld1
	fldpi
	fxch st(3)
	fcomi st(0), st(1)
	fucomip st(0), st(1)
	fcmovb st(0), st(2)
	fchs
	fabs
	fsqrt
	fsin
	fsincos
	fptan
	fpatan
	fyl2x
	fscale
	frndint
	fistp qword ptr [rdi]
	fisttp dword ptr [rdi]
	fbld [rsi]
	fbstp [rdi]
	fst qword ptr [rdi]
	fdivr st(0), st(2)
	fsubrp st(3), st(0)
	fdecstp
	fincstp
	ffree st(2)
	emms
	movq mm0, mm1
	paddb mm0, mm1
	pshufw mm0, mm1, 3
	movdq2q mm0, xmm1
	movq2dq xmm0, mm1
	cvtpi2ps xmm0, mm1
	tpause eax
	umonitor rax
	serialize
	wrpkru
	rdpkru
	xgetbv
	rdfsbase rax
	wrfsbase rax
	rdgsbase rax
	incsspq rax
	rdsspq rax
	xbegin 1f
1:	xend
	xtest
	vpopcntb zmm0, zmm1
	vpshldvd zmm0, zmm1, zmm2
	vpdpbusd zmm0, zmm1, zmm2
	vpdpbusd ymm0 {k1}, ymm1, ymm2
	vpternlogd zmm0, zmm1, zmm2, 0x96
	vpternlogd zmm0 {k1}{z}, zmm1, zmm2, 0x96
	vpcompressd zmm0 {k1}, zmm1
	vpcompressd [rdi] {k1}, zmm1
	vpexpandd zmm0 {k1}, [rsi]
	vpscatterdd [rdi + zmm1*4] {k1}, zmm0
	vgatherdps zmm0 {k1}, [rsi + zmm1*4]
	vpconflictd zmm0, zmm1
	vplzcntd zmm0, zmm1
	vpermt2d zmm0, zmm1, zmm2
	vpermi2d zmm0, zmm1, zmm2
	vpermb zmm0, zmm1, zmm2
	vpmultishiftqb zmm0, zmm1, zmm2
	vpcmpub k1, zmm0, zmm1, 2
	vpcmpeqb k1 {k2}, zmm0, [rsi]
	kandw k1, k2, k3
	korq k1, k2, k3
	knotb k1, k2
	kshiftrd k1, k2, 3
	kunpckbw k1, k2, k3
	kaddd k1, k2, k3
	ktestq k1, k2
	kortestd k1, k2
	kmovq k1, [rsi]
	kmovw [rdi], k1
	kmovb k1, eax
	vpmovm2b zmm0, k1
	vpmovb2m k1, zmm0
	vpmovdb xmm0, zmm1
	vpmovqd [rdi] {k1}, zmm1
	vmovdqu8 zmm0 {k1}{z}, [rsi]
	vmovdqu8 [rdi] {k1}, zmm0
	vmovdqu64 zmm0 {k1}, zmm1
	vaddps zmm0 {k1}, zmm1, dword ptr [rsi]{1to16}
	vaddpd zmm0, zmm1, zmm2, {rn-sae}
	vextractf64x4 ymm0, zmm1, 1
	vinsertf64x4 zmm0, zmm1, ymm2, 1
	vshuff64x2 zmm0, zmm1, zmm2, 0x4e
	vshufi32x4 zmm0, zmm1, zmm2, 0
	valignq zmm0, zmm1, zmm2, 3
	vpbroadcastmw2d zmm0, k1
	vfpclassps k1, zmm0, 0x22
	vgetexpps zmm0, zmm1
	vrcp14ps zmm0, zmm1
	vreduceps zmm0, zmm1, 2
	vrangeps zmm0, zmm1, zmm2, 3
	vscalefps zmm0, zmm1, zmm2
	vcvtne2ps2bf16 zmm0, zmm1, zmm2
	vdpbf16ps zmm0, zmm1, zmm2
	vpmadd52luq zmm0, zmm1, zmm2
	vpshufbitqmb k1, zmm0, zmm1
	vgf2p8affineqb zmm0, zmm1, zmm2, 1
	vgf2p8mulb ymm0, ymm1, ymm2
	vaesenclast zmm0, zmm1, zmm2
	vpopcntq zmm0{k1}, zmm1
	vpsrlvw zmm0, zmm1, zmm2
	vcvtusi2sd xmm0, xmm1, rax
	vcvttps2uqq zmm0, ymm1
	vmovsh xmm0, xmm1, xmm2
	maskmovdqu xmm0, xmm1
	vmaskmovdqu xmm0, xmm1
	movsd xmm0, qword ptr [rsi]
	movss dword ptr [rdi], xmm0
	vmovss xmm0, dword ptr [rsi]
	vmovsd xmm1, xmm2, xmm3
	vmovhps xmm0, xmm1, qword ptr [rsi]
	vmovlps qword ptr [rdi], xmm0
	movups xmmword ptr [rdi], xmm0
	movaps xmm0, xmmword ptr [rsi]
	movdqa xmmword ptr [rdi], xmm1
	movntps xmmword ptr [rdi], xmm0
	vmovd xmm0, eax
	vmovq xmm0, qword ptr [rsi]
	vpextrb eax, xmm1, 3
	vpextrb byte ptr [rdi], xmm1, 3
	pextrw eax, xmm1, 3
	vpinsrb xmm0, xmm1, byte ptr [rsi], 3
	pcmpistri xmm0, xmm1, 0x1a
	vpcmpestri xmm0, xmm1, 0x1a
	pcmpistrm xmm0, xmm1, 0x1a
	vpbroadcastb ymm0, xmm1
	vpminub ymm0, ymm1, ymm2
	vpcmpeqb ymm0, ymm1, ymmword ptr [rdi]
	vpsrldq ymm0, ymm1, 4
	vpslldq xmm0, xmm1, 4
	vpsrlq ymm0, ymm1, xmm2
	psrlq xmm0, 3
	vblendps ymm0, ymm1, ymm2, 5
	vdpps ymm0, ymm1, ymm2, 0xff
	vhaddps ymm0, ymm1, ymm2
	vmpsadbw ymm0, ymm1, ymm2, 1
	vroundps ymm0, ymm1, 1
	vcvtsi2ss xmm0, xmm1, eax
	cvtps2pd xmm0, xmm1
	cvtdq2ps xmm0, xmm1
	cvtsd2ss xmm0, qword ptr [rsi]
	unpcklpd xmm0, xmm1
	andnps xmm0, xmm1
	vandnps ymm0, ymm1, ymm2
	movmskpd eax, xmm1
	vmovmskps eax, ymm1
	fld st(1)
	fstp st(1)
	fild word ptr [rsi]
	fnstcw word ptr [rdi]
	fldcw word ptr [rsi]
	fcomp st(1)
	fucompp
	fxam
	ftst
	fprem
	f2xm1
	fnstsw word ptr [rdi]
	fadd qword ptr [rsi]
	fmul dword ptr [rsi]
	fiadd dword ptr [rsi]
	fdivrp st(1), st
	xsavec [rdi]
	xrstor [rsi]
	rep movsq
	rep stosb
	lock add qword ptr [rdi], 1
	lock inc dword ptr [rdi]
	lock bts qword ptr [rdi], 5
	lock or byte ptr [rdi], al
	inc byte ptr [rdi]
	dec rax
	push 5
	push qword ptr [rsi]
	pop qword ptr [rdi]
	pushw 5
	call qword ptr [rip + 0x100]
	call rax
	call qword ptr [rax]
	jmp qword ptr [rax*8 + 0x1000]
	ret 8
	loop 1f
1:	jrcxz 2f
2:	jecxz 3f
3:	setnbe byte ptr [rdi]
	cmovnbe eax, ebx
	cmovp rax, rbx
	cmovl eax, ebx
	jle 4f
4:	ja 5f
5:	jp 6f
6:	sbb eax, eax
	adc byte ptr [rdi], 1
	sub rax, rax
	xor r8d, r8d
	xor ax, ax
	and eax, 0
	or rax, -1
	imul eax, dword ptr [rsi], 100
	movabs rax, 0x1122334455667788
	mov al, byte ptr [rip+0x10]
	mov ah, bl
	movzx eax, ah
	xchg eax, eax
	nop
	cpuid
	rdtsc
	lea eax, [rip + 0x10]
	lea rax, [eax + ebx]
	mov rax, qword ptr fs:[0x28]
	mov qword ptr gs:[rax], rbx
	vpxor xmm0, xmm0, xmm0
	vpxord zmm16, zmm16, zmm16
	vpternlogd zmm0, zmm0, zmm0, 0xff
	vpcmpeqd ymm1, ymm1, ymm1
	pcmpeqb xmm2, xmm2
	vxorps xmm0, xmm1, xmm1
	vpsubb ymm3, ymm3, ymm3
	xorps xmm1, xmm2
	kxorw k1, k1, k1
	kxnorb k2, k3, k3
	vpandn ymm0, ymm0, ymm0
	vmovdqa64 zmm1 {k2}{z}, zmm3
	vmovdqu64 zmmword ptr [rdi] {k1}, zmm0
	vmovups zmm0 {k1}, zmmword ptr [rsi]
	vbroadcasti32x4 zmm0, xmmword ptr [rsi]
	vpbroadcastd zmm0 {k1}{z}, dword ptr [rsi]
	vpmovzxbd zmm0, xmmword ptr [rsi]
	vpminud zmm0, zmm1, dword ptr [rsi]{1to16}
	vcmpps k1, zmm0, zmm1, 1
	vcmpps ymm0, ymm1, ymm2, 1
	cmpps xmm0, xmm1, 1
	cmpsd xmm0, xmm1, 1
	vpcmpgtb ymm0, ymm0, ymm0
	movsb
	cmpsb
	std
	stosb
	vpmovqd ymmword ptr [rdi], zmm1
	vpmovwb ymmword ptr [rdi], zmm1
	vpmovusdb xmmword ptr [rdi], zmm1
	vcvtps2ph xmmword ptr [rdi], ymm1, 0
	vcvtps2ph qword ptr [rdi], xmm1, 0
	vcvtneps2bf16 ymm0, zmm1
	maskmovq mm0, mm1
	movntq qword ptr [rdi], mm0
	movq qword ptr [rdi], mm0
	movd dword ptr [rdi], mm0
	vpmovzxbw ymm0, xmmword ptr [rsi]
	vextractps dword ptr [rdi], xmm1, 1
	vmovhpd qword ptr [rdi], xmm1
	vpextrq qword ptr [rdi], xmm1, 1
	vcvtpd2ps xmm0, ymmword ptr [rsi]
	.section .note.GNU-stack, "", @progbits
