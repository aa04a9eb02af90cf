/* C = A B for 20 x 20 doubles. */
#include "kernel.h"
#define N 20
const char kernel_name[] = "matmul";
static double A[N][N], B[N][N], C[N][N];
void kernel_setup(void)
{
	for (int i = 0; i < N; i++)
		for (int j = 0; j < N; j++) {
			A[i][j] = (double)(kernel_random() % 10);
			B[i][j] = (double)(kernel_random() % 10);
		}
}
KERNEL long kernel(void)
{
	for (int i = 0; i < N; i++)
		for (int j = 0; j < N; j++) {
			double s = 0;
			for (int k = 0; k < N; k++)
				s += A[i][k] * B[k][j];
			C[i][j] = s;
		}
	return (long)C[N - 1][N - 1];
}
