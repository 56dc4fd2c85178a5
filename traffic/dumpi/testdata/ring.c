/* A small MPI program for flitsim's trace tests (issue 52): per iteration a
 * ring exchange (each rank sends 1 KiB to rank+1, receives from rank-1,
 * non-blocking), then an 8-byte allreduce, a 256-byte all-to-all and a
 * barrier, with a busy compute loop between iterations. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

static double spin(long n) {
	volatile double x = 0;
	for (long i = 0; i < n; i++) x += 1e-9 * (double)i;
	return x;
}

int main(int argc, char **argv) {
	MPI_Init(&argc, &argv);
	int rank, size;
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	enum { RING = 1024, A2A = 256, ITER = 3 };
	char *sbuf = calloc(RING, 1), *rbuf = calloc(RING, 1);
	char *abuf = calloc((size_t)A2A * size, 1), *bbuf = calloc((size_t)A2A * size, 1);
	double local = rank, sum = 0;
	for (int it = 0; it < ITER; it++) {
		MPI_Request req[2];
		MPI_Irecv(rbuf, RING, MPI_CHAR, (rank + size - 1) % size, it, MPI_COMM_WORLD, &req[0]);
		MPI_Isend(sbuf, RING, MPI_CHAR, (rank + 1) % size, it, MPI_COMM_WORLD, &req[1]);
		MPI_Waitall(2, req, MPI_STATUSES_IGNORE);
		MPI_Allreduce(&local, &sum, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
		MPI_Alltoall(abuf, A2A, MPI_CHAR, bbuf, A2A, MPI_CHAR, MPI_COMM_WORLD);
		MPI_Barrier(MPI_COMM_WORLD);
		spin(200000);
	}
	if (rank == 0) printf("sum %g\n", sum);
	free(sbuf); free(rbuf); free(abuf); free(bbuf);
	MPI_Finalize();
	return 0;
}
