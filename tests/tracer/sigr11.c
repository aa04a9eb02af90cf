/* A signal handler returns (rt_sigreturn) while r11 holds the program's own
 * value: perpi must not treat it as the RFLAGS a syscall saves (and clear
 * TF in it). The program checks itself: exit 0 iff r11 kept 0x1ff across
 * three timer signals. */
#include <signal.h>
#include <stdio.h>
#include <sys/time.h>

static volatile int hits;

static void handler(int s)
{
	(void)s;
	hits++;
}

int main(void)
{
	signal(SIGALRM, handler);
	struct itimerval it = {{0, 1000}, {0, 1000}};
	setitimer(ITIMER_REAL, &it, 0);
	long r11 = 0x1ff;
	while (hits < 3) {
		__asm__ volatile("mov $0x1ff, %%r11\n\tmov $200, %%ecx\n1:\tdec %%ecx\n\tjnz 1b\n\t"
				 "mov %%r11, %0"
				 : "=r"(r11)
				 :
				 : "rcx", "r11", "cc");
		if (r11 != 0x1ff)
			break;
	}
	struct itimerval off = {{0, 0}, {0, 0}};
	setitimer(ITIMER_REAL, &off, 0);
	if (r11 != 0x1ff)
		printf("r11 %#lx after a signal, want 0x1ff\n", r11);
	return r11 != 0x1ff;
}
