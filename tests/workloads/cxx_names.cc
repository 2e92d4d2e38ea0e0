// cxx_names N: calls two C++ functions in a namespace N times each, for
// the demangling tests (func, usym, ustack print ns::func(int); attach
// points name them as uprobe:BIN:cpp:"ns::func" or "ns::func").
#include <cstdio>
#include <cstdlib>

namespace ns {
struct Widget {
	int v;
};

__attribute__((noinline)) int func(int x)
{
	__asm__ volatile("" ::: "memory");
	return x + 1;
}

__attribute__((noinline)) int poke(Widget *w, long n)
{
	__asm__ volatile("" ::: "memory");
	return w->v + (int)n;
}
} // namespace ns

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 1, s = 0;
	ns::Widget w{3};
	for (int i = 0; i < n; i++)
		s += ns::func(i) + ns::poke(&w, i);
	printf("%d\n", s);
	return 0;
}
