/* Exit status: prints, then exits with a code computed at run time via
 * exit() (proc_exit) after atexit handlers and stdout flushing. */
#include <stdio.h>
#include <stdlib.h>

static void bye(void) { printf("atexit handler ran\n"); }

int main(void) {
    atexit(bye);
    unsigned h = 0;
    for (unsigned i = 0; i < 100000; i++) h = h * 31 + i;
    printf("h = %u\n", h);
    printf("partial line without newline, flushed at exit");
    exit((int)(h % 200) + 3);
}
