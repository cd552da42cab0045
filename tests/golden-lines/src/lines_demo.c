/* A program with regions for `sp lines`: plain arithmetic, calls into libm, and a helper
 * the compiler inlines at -O2. Built by ../regenerate.sh at -O0 and -O2, PIE and -no-pie,
 * and with -gz; run with SCOPE_PROFILER_SAMPLE_HZ=1000. */
#include "scope_profiler.h"

#include <math.h>
#include <stdio.h>

static volatile double sink;

/* Plain arithmetic: the hot lines are the loop's. */
static double arithmetic(long n)
{
    double acc = 0.0;
    long i;
    for (i = 1; i <= n; ++i) {
        acc += (double)(i % 7) * 0.5;
        acc -= (double)(i % 3) * 0.25;
    }
    return acc;
}

/* Time spent inside libm, whose lines come from its separate debug file. */
static double in_libm(long n)
{
    double acc = 0.0;
    long i;
    for (i = 1; i <= n; ++i) {
        acc += exp(sin((double)i * 1e-3)) + log((double)i);
    }
    return acc;
}

/* Inlined into its caller at -O2: the frames chain shows both. */
static inline double square_sum(long i)
{
    double x = (double)i * 1e-6;
    return x * x + x;
}

static double with_inline(long n)
{
    double acc = 0.0;
    long i;
    for (i = 1; i <= n; ++i) {
        acc += square_sum(i);
    }
    return acc;
}

int main(void)
{
    int compute, mathlib, inlined;
    int step;

    sp_init("profile", 0);
    compute = sp_region("compute");
    mathlib = sp_region("mathlib");
    inlined = sp_region("inlined");
    for (step = 0; step < 4; ++step) {
        sp_begin(compute);
        sink = arithmetic(40000000);
        sp_end(compute);

        sp_begin(mathlib);
        sink = in_libm(2000000);
        sp_end(mathlib);

        sp_begin(inlined);
        sink = with_inline(50000000);
        sp_end(inlined);
    }
    sp_finalize();
    return 0;
}
