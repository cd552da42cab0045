/* A strong- and weak-scaling study for sp's scaling tests, made with the reference's C
 * region API under mpirun (regenerate.sh builds and runs it).
 *
 *     mpi_scaling strong|weak
 *
 * "compute" does a fixed total amount of work split over the ranks (strong) or a fixed
 * amount per rank (weak); "serial" does the same work on every rank whatever the count
 * (it does not scale); "exchange" is an MPI_Allreduce per step (grows with the ranks). */
#include "scope_profiler.h"

#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <string.h>

static double busy_work(long n)
{
    double acc = 0.0;
    long i;

    for (i = 1; i <= n; ++i) {
        acc += sqrt((double)i);
    }
    return acc;
}

int main(int argc, char **argv)
{
    int rank, size, step, compute, serial, exchange;
    long work;
    double total = 0.0, sum = 0.0;
    int weak = argc > 1 && strcmp(argv[1], "weak") == 0;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    sp_init("profile", rank);
    compute = sp_region("compute");
    serial = sp_region("serial");
    exchange = sp_region("exchange");
    work = weak ? 400000L : 1600000L / size;

    for (step = 0; step < 10; ++step) {
        sp_begin(compute);
        total += busy_work(work);
        sp_end(compute);

        sp_begin(serial);
        total += busy_work(40000L);
        sp_end(serial);

        sp_begin(exchange);
        MPI_Allreduce(&total, &sum, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
        sp_end(exchange);
    }
    if (rank == 0) {
        printf("checksum (ignore): %.4f\n", sum);
    }
    sp_finalize();
    MPI_Finalize();
    return 0;
}
