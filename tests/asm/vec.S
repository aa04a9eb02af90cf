/* Hand-derived I and C of small functions: vector register parts (bits
 * 0-127, 128-255, 256-511), SSE versus VEX writes, lane-selecting
 * instructions, scalar merges, vector zero idioms (DESIGN.md). Isolated
 * instances: a ret that does not follow an RSP change runs at step 1.
 * run-asm.sh checks every EXPECT line against `perpi --function NAME`. */
	.intel_syntax noprefix
	.text

/* vextractf128 xmm, ymm, 1 reads bits 128-255 only.
 * EXPECT vec_lane I=5 C=3
 *   vxorps ymm0,ymm0,ymm0       1  (zero idiom; VEX writes all three parts)
 *   addps xmm0,xmm1             2  (SSE: reads and writes bits 0-127 only)
 *   vextractf128 xmm2,ymm0,1    2  (bits 128-255 of ymm0: 1; reading the
 *                                   low part too would give 3)
 *   vaddps xmm3,xmm2,xmm2       3
 *   ret                         1 */
	.globl vec_lane
	.type vec_lane, @function
vec_lane:
	vxorps ymm0, ymm0, ymm0
	addps xmm0, xmm1
	vextractf128 xmm2, ymm0, 1
	vaddps xmm3, xmm2, xmm2
	ret
	.size vec_lane, .-vec_lane

/* A legacy-SSE write leaves the upper parts alone.
 * EXPECT vec_sse_upper I=6 C=4
 * EXPECT[--only fp] vec_sse_upper I=4 C=4
 *   (--only fp: vextractf128 is a shuffle (vec) and ret a branch: free)
 *   vaddps ymm1,ymm2,ymm3       1  (writes all parts of ymm1)
 *   addps xmm1,xmm4 x3          2 3 4  (bits 0-127 only)
 *   vextractf128 xmm5,ymm1,1    2  (bits 128-255 still from the vaddps;
 *                                   5 if SSE wrote them)
 *   ret                         1 */
	.globl vec_sse_upper
	.type vec_sse_upper, @function
vec_sse_upper:
	vaddps ymm1, ymm2, ymm3
	addps xmm1, xmm4
	addps xmm1, xmm4
	addps xmm1, xmm4
	vextractf128 xmm5, ymm1, 1
	ret
	.size vec_sse_upper, .-vec_sse_upper

/* A VEX write to an xmm register zeroes (writes) the upper parts.
 * EXPECT vec_vex_upper I=6 C=3
 *   vaddps ymm1,ymm2,ymm3       1
 *   vaddps ymm1,ymm1,ymm1 x2    2 3
 *   vmovaps xmm1,xmm7           1  (reads xmm7; writes all parts of ymm1)
 *   vextractf128 xmm5,ymm1,1    2  (4 if bits 128-255 were left alone)
 *   ret                         1 */
	.globl vec_vex_upper
	.type vec_vex_upper, @function
vec_vex_upper:
	vaddps ymm1, ymm2, ymm3
	vaddps ymm1, ymm1, ymm1
	vaddps ymm1, ymm1, ymm1
	vmovaps xmm1, xmm7
	vextractf128 xmm5, ymm1, 1
	ret
	.size vec_vex_upper, .-vec_vex_upper

/* movss xmm, xmm merges: it reads its destination's low part.
 * EXPECT vec_scalar_merge I=5 C=4
 *   addps xmm0,xmm0 x3          1 2 3
 *   movss xmm0,xmm1             4  (xmm0 (3), xmm1 (0))
 *   ret                         1 */
	.globl vec_scalar_merge
	.type vec_scalar_merge, @function
vec_scalar_merge:
	addps xmm0, xmm0
	addps xmm0, xmm0
	addps xmm0, xmm0
	movss xmm0, xmm1
	ret
	.size vec_scalar_merge, .-vec_scalar_merge

/* Vector zero and all-ones idioms have no source.
 * EXPECT zero_vec I=16 C=4
 *   addps xmm0,xmm0 x2          1 2
 *   pxor xmm0,xmm0              1
 *   addps xmm1,xmm1 x2          1 2
 *   vpxor xmm1,xmm1,xmm1        1
 *   addps xmm3,xmm3 x2          1 2
 *   xorps xmm3,xmm3             1
 *   addps xmm2,xmm2 x2          1 2
 *   pcmpeqd xmm2,xmm2           1
 *   paddd xmm2,xmm0             2
 *   paddd xmm2,xmm1             3
 *   paddd xmm2,xmm3             4  (any idiom with a source gives 5 or more)
 *   ret                         1 */
	.globl zero_vec
	.type zero_vec, @function
zero_vec:
	addps xmm0, xmm0
	addps xmm0, xmm0
	pxor xmm0, xmm0
	addps xmm1, xmm1
	addps xmm1, xmm1
	vpxor xmm1, xmm1, xmm1
	addps xmm3, xmm3
	addps xmm3, xmm3
	xorps xmm3, xmm3
	addps xmm2, xmm2
	addps xmm2, xmm2
	pcmpeqd xmm2, xmm2
	paddd xmm2, xmm0
	paddd xmm2, xmm1
	paddd xmm2, xmm3
	ret
	.size zero_vec, .-zero_vec

/* A floating-point chain carried through integer registers: with --only fp
 * the moves and the integer add are free (ready when their inputs are).
 * EXPECT fp_through_int I=7 C=6
 * EXPECT[--only fp] fp_through_int I=3 C=3
 *                         all   --only fp
 *   addsd xmm0,xmm0       1     1
 *   addsd xmm0,xmm0       2     2
 *   movq rax,xmm0         3     free, ready 2
 *   add rax,1             4     free (int), ready 2
 *   movq xmm1,rax         5     free, ready 2
 *   addsd xmm1,xmm1       6     3
 *   ret                   1     free (branch) */
	.globl fp_through_int
	.type fp_through_int, @function
fp_through_int:
	addsd xmm0, xmm0
	addsd xmm0, xmm0
	movq rax, xmm0
	add rax, 1
	movq xmm1, rax
	addsd xmm1, xmm1
	ret
	.size fp_through_int, .-fp_through_int

	.globl main
	.type main, @function
main:
	sub rsp, 8
	call vec_lane
	call vec_sse_upper
	call vec_vex_upper
	call vec_scalar_merge
	call zero_vec
	call fp_through_int
	vzeroupper
	add rsp, 8
	xor eax, eax
	ret
	.size main, .-main

	.section .note.GNU-stack, "", @progbits
