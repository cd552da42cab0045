/* A multi-rank driver for the reference's C region API.
 *
 *     multirank PREFIX RANK
 *
 * Writes PREFIX_rank<NNNNN>.spt (or .h5 when the library was built with
 * SP_USE_HDF5). Run it once per rank: the call counts, the recursion depth
 * and which regions exist depend on RANK, so a set of ranks exercises region
 * ordering, id assignment and offsets across ranks in the converter. Covers
 * nesting, recursion, source locations (sp_region_at, a backfilled location,
 * a file with no line), a UTF-8 name, a region entered before regions
 * registered earlier, a region registered but never entered
 * and a call still open at finalize (dropped by the library).
 */
#include "scope_profiler.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

static volatile double sink;

/* Something the compiler cannot optimise away. */
static void busy_work(int n)
{
    double acc = 0.0;
    int i;

    for (i = 1; i <= n; ++i) {
        acc += sqrt((double)i);
    }
    sink += acc;
}

/* Recursion: every invocation records its own call of the same region. */
static void descend(int depth)
{
    int id = sp_region_at("descend", "multirank.c", 38);

    sp_begin(id);
    busy_work(200);
    if (depth > 0) {
        descend(depth - 1);
    }
    sp_end(id);
}

int main(int argc, char **argv)
{
    int rank, step, k, prologue, outer, inner, late, noline, unicode, unused, even, dangling;

    if (argc != 3) {
        fprintf(stderr, "usage: multirank PREFIX RANK\n");
        return 2;
    }
    rank = atoi(argv[2]);
    if (sp_init(argv[1], rank) != 0) {
        fprintf(stderr, "multirank: sp_init failed\n");
        return 1;
    }

    outer = sp_region_at("outer", "solver/outer.c", 10);
    inner = sp_region_at("inner", "solver/inner.c", 20);
    late = sp_region("late");                       /* location backfilled below */
    noline = sp_region_at("no_line", "noline.c", -1);
    unicode = sp_region("r\xc3\xa9sum\xc3\xa9 \xcf\x83");  /* "résumé σ" in UTF-8 */
    unused = sp_region("never_entered");
    dangling = sp_region("left_open");
    (void)unused;

    /* Registered last, entered first: the trace lists regions in registration
     * order, the converter orders them by their earliest start. */
    prologue = sp_region("prologue");
    sp_begin(prologue);
    busy_work(100);
    sp_end(prologue);

    for (step = 0; step < 3 + rank; ++step) {
        sp_begin(outer);
        busy_work(1000);
        for (k = 0; k <= step % 3; ++k) {
            sp_begin(inner);
            busy_work(300);
            sp_end(inner);
        }
        sp_end(outer);
    }

    late = sp_region_at("late", "late.c", 77);
    sp_begin(late);
    descend(rank + 2);
    sp_end(late);

    sp_begin(noline);
    busy_work(100);
    sp_end(noline);

    for (step = 0; step < 2 * rank + 1; ++step) {
        sp_begin(unicode);
        busy_work(50);
        sp_end(unicode);
    }

    /* A region only the even ranks have. */
    if (rank % 2 == 0) {
        even = sp_region_at("even_only", "even.c", rank);
        sp_begin(even);
        busy_work(400);
        sp_end(even);
    }

    /* One completed call, then one left open: finalize drops the open one
     * and reports it on stderr. */
    sp_begin(dangling);
    busy_work(10);
    sp_end(dangling);
    sp_begin(dangling);

    if (sp_finalize() != 0) {
        fprintf(stderr, "multirank: sp_finalize failed\n");
        return 1;
    }
    return 0;
}
