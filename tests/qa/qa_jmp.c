/* setjmp/longjmp out of five nested qa_deep calls (qa_jmp_s.S), three
 * times; test-qa.sh checks that the instances are all closed. */
#include <setjmp.h>
#include <stdio.h>

jmp_buf qa_jb;
void qa_deep(int n);
int qa_leaf(int x);

int main(void)
{
	int s = 0;
	for (int i = 0; i < 3; i++) {
		int r = setjmp(qa_jb);
		if (r == 0)
			qa_deep(4);
		else
			s += r;
		s += qa_leaf(i);
	}
	/* 3 * 7 + (3 + 4 + 5) = 33 */
	printf("%d\n", s);
	return s == 33 ? 0 : 1;
}
