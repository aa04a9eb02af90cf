/* Insertion sort of 96 random ints (data-dependent branches, shifting
 * stores). The array is refilled from a copy each call. */
#include <string.h>
#include "kernel.h"
#define N 96
const char kernel_name[] = "isort";
static int src[N], a[N];
void kernel_setup(void)
{
	for (int i = 0; i < N; i++)
		src[i] = (int)(kernel_random() % 10000);
}
KERNEL long kernel(void)
{
	for (int i = 0; i < N; i++)
		a[i] = src[i];
	for (int i = 1; i < N; i++) {
		int v = a[i], j = i - 1;
		while (j >= 0 && a[j] > v) {
			a[j + 1] = a[j];
			j--;
		}
		a[j + 1] = v;
	}
	return a[N / 2];
}
