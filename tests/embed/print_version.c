/* tests/embed/print_version.c - prints cubind_version(): linked against libcubind.so, then run with
 * a libcubind.so.0 of another version node (tests/embed/embed.mk, test-embed-version). */
#include <stdio.h>

#include "cubind/cubind.h"

int main(void)
{
    printf("%s\n", cubind_version());
    return 0;
}
