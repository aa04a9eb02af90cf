/* Horner's scheme, degree 24, at 256 points: 256 chains of 24 multiply-adds. */
#include "kernel.h"
#define DEG 24
#define PTS 256
const char kernel_name[] = "horner";
static double c[DEG + 1], x[PTS], y[PTS];
void kernel_setup(void)
{
	for (int i = 0; i <= DEG; i++)
		c[i] = 1.0 / (i + 1);
	for (int i = 0; i < PTS; i++)
		x[i] = (double)i / PTS;
}
KERNEL long kernel(void)
{
	for (int p = 0; p < PTS; p++) {
		double s = c[DEG];
		for (int i = DEG - 1; i >= 0; i--)
			s = s * x[p] + c[i];
		y[p] = s;
	}
	return (long)(y[PTS - 1] * 1000);
}
