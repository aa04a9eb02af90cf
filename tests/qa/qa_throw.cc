// C++ exceptions through qa_middle (qa_throw_s.S): five calls, the last two
// throw and are caught in main. Unwinding must close the instances of
// qa_thrower and qa_middle (test-qa.sh checks the figures).
#include <cstdio>

extern "C" int qa_middle(int x);
extern "C" int qa_leaf(int x);

extern "C" __attribute__((noinline)) int qa_thrower(int x)
{
	if (x > 2)
		throw x;
	return 2 * x;
}

int main()
{
	int s = 0;
	for (int i = 0; i < 5; i++) {
		try {
			s += qa_middle(i);
		} catch (int e) {
			s += 100 + e;
		}
		s += qa_leaf(i);
	}
	// 1+3 + 3+4 + 5+5 + 103+6 + 104+7 = 241
	std::printf("%d\n", s);
	return s == 241 ? 0 : 1;
}
