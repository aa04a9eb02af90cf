/* Function names in the report: puts through the PLT ("puts@plt", or
 * "puts@libc.so.6" when built with -fno-plt), and a function of a shared
 * object loaded with dlopen after the program started
 * ("plugin_work@libplugin.so"). argv[1]: the plugin's path. */
#include <dlfcn.h>
#include <stdio.h>

int main(int argc, char **argv)
{
	puts("names");
	void *h = argc > 1 ? dlopen(argv[1], RTLD_NOW) : NULL;
	int (*work)(int) = h ? (int (*)(int))dlsym(h, "plugin_work") : NULL;
	return work && work(20) == 41 ? 0 : 1;
}
