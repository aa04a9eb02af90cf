/* Transpose of a 48 x 48 matrix of floats. */
#include "kernel.h"
#define N 48
const char kernel_name[] = "transpose";
static float a[N][N], b[N][N];
void kernel_setup(void)
{
	for (int i = 0; i < N; i++)
		for (int j = 0; j < N; j++)
			a[i][j] = (float)(kernel_random() % 100);
}
KERNEL long kernel(void)
{
	for (int i = 0; i < N; i++)
		for (int j = 0; j < N; j++)
			b[j][i] = a[i][j];
	return (long)b[5][7];
}
