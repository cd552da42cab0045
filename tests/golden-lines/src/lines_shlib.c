/* Calls a region in a shared library (kernel.c, libkernel.so) and one of its own. */
#include "scope_profiler.h"

#include <stdio.h>

double kernel_work(long n);

static volatile double sink;

int main(void)
{
    int driver;
    int step;
    long i;
    double acc = 0.0;

    sp_init("profile", 0);
    driver = sp_region("driver");
    for (step = 0; step < 4; ++step) {
        sink = kernel_work(100000000);
        sp_begin(driver);
        for (i = 1; i <= 50000000; ++i) {
            acc += (double)(i % 5) * 0.5;
        }
        sink = acc;
        sp_end(driver);
    }
    sp_finalize();
    return 0;
}
