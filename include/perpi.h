/* perpi.h: mark the region of a program that perpi traces.
 *
 *   #include <perpi.h>
 *   perpi_start();  ... code to analyse ...  perpi_stop();
 *
 * Run it as `perpi --start perpi_start --stop perpi_stop ./prog` or simply
 * `perpi ./prog`: when the program has these markers, perpi traces only
 * between them. Outside perpi they cost a call. */
#ifndef PERPI_MARKERS_H
#define PERPI_MARKERS_H

#ifdef __cplusplus
extern "C" {
#endif

__attribute__((weak, noinline, used)) void perpi_start(void)
{
	__asm__ volatile("" ::: "memory");
}

__attribute__((weak, noinline, used)) void perpi_stop(void)
{
	__asm__ volatile("" ::: "memory");
}

#ifdef __cplusplus
}
#endif
#endif
