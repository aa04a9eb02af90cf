/* Sum over a linked list of 1024 nodes in shuffled order (pointer chasing
 * within L1: a chain of loads). */
#include "kernel.h"
#define N 1024
const char kernel_name[] = "list";
struct node {
	struct node *next;
	long value;
};
static struct node nodes[N], *head;
void kernel_setup(void)
{
	int order[N];
	for (int i = 0; i < N; i++)
		order[i] = i;
	for (int i = N - 1; i > 0; i--) {
		int j = (int)(kernel_random() % (unsigned long)(i + 1)), t = order[i];
		order[i] = order[j];
		order[j] = t;
	}
	for (int i = 0; i < N; i++) {
		nodes[order[i]].value = i;
		nodes[order[i]].next = i + 1 < N ? &nodes[order[i + 1]] : 0;
	}
	head = &nodes[order[0]];
}
KERNEL long kernel(void)
{
	long s = 0;
	for (struct node *p = head; p; p = p->next)
		s += p->value;
	return s;
}
