/* A shared object stripped of its symbol table (tests/tracer/names.sh):
 * helper, a static function, then has no name but its object and offset
 * ("libunnamed.so+0x1100"); unnamed_work keeps its dynamic symbol. */
static __attribute__((noipa)) int helper(int x)
{
	return 3 * x;
}

int unnamed_work(int x)
{
	return helper(x) + 1;
}
