/* Exit status from returning a non-zero value from main. */
#include <stdio.h>

int main(void) {
    int n = 0;
    for (int i = 1; i < 1000; i++) n += i % 7 == 0;
    printf("multiples of 7 below 1000: %d\n", n);
    return n - 100;  /* 42 (WASI exit codes must be < 126) */
}
