/* grow.c: the source of libgrow.so, the fixture of ExampleCheckResult_WriteJSON.
 * reallocarray is GLIBC_2.26, so the library's floor is glibc 2.26. */
#define _GNU_SOURCE
#include <stdlib.h>

void *grow(void *p, size_t n) { return reallocarray(p, n, 16); }
