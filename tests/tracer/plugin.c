/* The shared object names.c loads with dlopen. */
int plugin_work(int x)
{
	return 2 * x + 1;
}
