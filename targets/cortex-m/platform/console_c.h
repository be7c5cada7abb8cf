/* The QEMU console (console.h) for C firmware: text to the host's standard output over
 * semihosting. On a board of your own, your UART takes its place. */
#ifndef MOTE_PLATFORM_CONSOLE_C_H_
#define MOTE_PLATFORM_CONSOLE_C_H_

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

void mote_console_write(const void* data, size_t size);
/* A NUL-terminated string. */
void mote_console_print(const char* text);

#ifdef __cplusplus
}
#endif

#endif /* MOTE_PLATFORM_CONSOLE_C_H_ */
