/* A small stack-machine interpreter running a 64-instruction program
 * (a switch: an indirect jump per instruction). */
#include "kernel.h"
#define PROG 64
#define RUNS 40
const char kernel_name[] = "interp";
enum { PUSH, ADD, SUB, MUL, DUP, SWAP, POP, XOR };
static unsigned char code[PROG], arg[PROG];
void kernel_setup(void)
{
	int depth = 0;
	for (int i = 0; i < PROG; i++) {
		int op = depth < 2 ? PUSH : (int)(kernel_random() % 8);
		if (op == POP && depth < 3)
			op = ADD;
		code[i] = (unsigned char)op;
		arg[i] = (unsigned char)kernel_random();
		depth += op == PUSH || op == DUP ? 1 : op == SWAP ? 0 : -1;
		if (depth > 30) {
			code[i] = ADD;
			depth -= 2;
		}
	}
}
KERNEL long kernel(void)
{
	long stack[64], total = 0;
	for (int r = 0; r < RUNS; r++) {
		int sp = 0;
		for (int pc = 0; pc < PROG; pc++) {
			switch (code[pc]) {
			case PUSH:
				stack[sp++] = arg[pc] + r;
				break;
			case ADD:
				sp--;
				stack[sp - 1] += stack[sp];
				break;
			case SUB:
				sp--;
				stack[sp - 1] -= stack[sp];
				break;
			case MUL:
				sp--;
				stack[sp - 1] *= stack[sp] | 1;
				break;
			case DUP:
				stack[sp] = stack[sp - 1];
				sp++;
				break;
			case SWAP: {
				long t = stack[sp - 1];
				stack[sp - 1] = stack[sp - 2];
				stack[sp - 2] = t;
			} break;
			case POP:
				sp--;
				break;
			case XOR:
				sp--;
				stack[sp - 1] ^= stack[sp];
				break;
			}
			if (sp < 1)
				stack[sp++] = 1;
		}
		total += stack[0];
	}
	return total;
}
