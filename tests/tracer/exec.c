/* Calls execve: perpi stops tracing there and exits with the new
 * program's status, 3. */
#include <unistd.h>

int main(void)
{
	execl("/bin/sh", "sh", "-c", "exit 3", (char *)NULL);
	return 1;
}
