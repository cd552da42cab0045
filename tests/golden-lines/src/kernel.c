/* A shared library with a region inside: its samples carry the library's load address. */
#include "scope_profiler.h"

double kernel_work(long n)
{
    static int region = -1;
    double acc = 0.0;
    long i;
    if (region < 0) {
        region = sp_region("kernel");
    }
    sp_begin(region);
    for (i = 1; i <= n; ++i) {
        acc += (double)(i % 11) * 0.125;
    }
    sp_end(region);
    return acc;
}
