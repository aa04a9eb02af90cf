/* fork and vfork under perpi: the children run untraced, without perpi's
 * breakpoints or trap flag, and exit normally. With `--function g` the only
 * traced call is the parent's last one: 2 instructions (g.S). */
#include <sys/wait.h>
#include <unistd.h>

int g(int x);

static int child_status(pid_t pid)
{
	int status;
	if (pid < 0 || waitpid(pid, &status, 0) != pid || !WIFEXITED(status))
		return -1;
	return WEXITSTATUS(status);
}

int main(void)
{
	pid_t pid = fork();
	if (pid == 0)
		_exit(g(2)); /* 7 */
	if (child_status(pid) != 7)
		return 1;
	pid = vfork();
	if (pid == 0)
		_exit(g(1)); /* 4 */
	if (child_status(pid) != 4)
		return 2;
	return g(0) == 1 ? 0 : 3;
}
