/* An AVX2 loop whose figures are derived by hand (qa_avx2_chain in
 * qa_avx2_s.S). Exit 77 when the CPU has no AVX2. */
#include <stdio.h>

void qa_avx2_chain(float *p);

static float buf[9 * 8] __attribute__((aligned(32)));

int main(void)
{
	if (!__builtin_cpu_supports("avx2"))
		return 77;
	for (int i = 0; i < 8; i++)
		buf[i] = (float)(i + 1);
	qa_avx2_chain(buf);
	/* block k is 2^(k-1) times block 0 (k >= 1): the last one, 128 x */
	for (int i = 0; i < 8; i++)
		if (buf[64 + i] != 128.0f * (float)(i + 1))
			return 1;
	printf("ok\n");
	return 0;
}
