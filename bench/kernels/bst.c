/* 256 lookups in a binary search tree of 1023 keys held in an array
 * (implicit layout): dependent loads and unpredictable branches. */
#include "kernel.h"
#define N 1023
#define Q 256
const char kernel_name[] = "bst";
static int tree[N], keys[Q];
static int next_key;
static void fill(int node, int lo, int hi)
{
	if (node >= N)
		return;
	int size = hi - lo, left = 0;
	/* the left subtree of a complete tree of size nodes */
	int full = 1;
	while (2 * full + 1 <= size)
		full = 2 * full + 1;
	int last = size - full, half = (full + 1) / 2;
	left = (full - 1) / 2 + (last < half ? last : half);
	tree[node] = lo + left;
	fill(2 * node + 1, lo, lo + left);
	fill(2 * node + 2, lo + left + 1, hi);
	(void)next_key;
}
void kernel_setup(void)
{
	fill(0, 0, N);
	for (int i = 0; i < N; i++)
		tree[i] = 2 * tree[i];
	for (int i = 0; i < Q; i++)
		keys[i] = (int)(kernel_random() % (2 * N));
}
KERNEL long kernel(void)
{
	long found = 0;
	for (int q = 0; q < Q; q++) {
		int i = 0, k = keys[q];
		while (i < N && tree[i] != k)
			i = 2 * i + 1 + (k > tree[i]);
		found += i < N;
	}
	return found;
}
