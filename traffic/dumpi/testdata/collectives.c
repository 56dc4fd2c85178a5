/* collectives: loops over the common collectives for flitsim trace tests (issue 52).
 * Two sizes (S = 8 bytes and S = 64 KiB), each on MPI_COMM_WORLD and then on a row
 * communicator of a rows x cols grid (rows = largest divisor of size that is <= sqrt(size),
 * cols = size / rows; 4 -> 2x2, 8 -> 2x4, 64 -> 8x8), made with
 * MPI_Comm_split(MPI_COMM_WORLD, color = rank / cols, key = rank % cols).  Per (size, comm) pair, ITER
 * rounds of, in this order:
 *   Allreduce  S bytes of MPI_DOUBLE, SUM
 *   Bcast      S bytes of MPI_INT, root 0
 *   Reduce     S bytes of MPI_DOUBLE, SUM, root = 1 % n
 *   Allgather  S bytes of MPI_BYTE per rank
 *   Gather     S bytes of MPI_BYTE per rank, root 0
 *   Scatter    S bytes of MPI_BYTE per rank, root n-1
 *   Alltoall   S bytes of MPI_BYTE per peer
 *   Alltoallv  i sends to j  S*(1+(i+2j)%3)/2 bytes of MPI_BYTE (i, j ranks in the comm)
 *   Reduce_scatter  recvcounts all S bytes of MPI_DOUBLE, SUM
 *   Barrier
 * with a short compute loop after each round; n = size of the communicator. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

enum { ITER = 2 };

static double spin(long n) {
	volatile double x = 0;
	for (long i = 0; i < n; i++) x += 1e-9 * (double)i;
	return x;
}

static void round_on(MPI_Comm comm, int S) {
	int r, n;
	MPI_Comm_rank(comm, &r);
	MPI_Comm_size(comm, &n);
	size_t big = (size_t)S * 2 * n; /* enough for every buffer below */
	char *a = calloc(big, 1), *b = calloc(big, 1);
	int *sc = malloc(n * sizeof(int)), *sd = malloc(n * sizeof(int));
	int *rc = malloc(n * sizeof(int)), *rd = malloc(n * sizeof(int));
	MPI_Allreduce(a, b, S / 8, MPI_DOUBLE, MPI_SUM, comm);
	MPI_Bcast(a, S / 4, MPI_INT, 0, comm);
	MPI_Reduce(a, b, S / 8, MPI_DOUBLE, MPI_SUM, 1 % n, comm);
	MPI_Allgather(a, S, MPI_BYTE, b, S, MPI_BYTE, comm);
	MPI_Gather(a, S, MPI_BYTE, b, S, MPI_BYTE, 0, comm);
	MPI_Scatter(a, S, MPI_BYTE, b, S, MPI_BYTE, n - 1, comm);
	MPI_Alltoall(a, S, MPI_BYTE, b, S, MPI_BYTE, comm);
	int so = 0, ro = 0;
	for (int j = 0; j < n; j++) {
		sc[j] = S * (1 + (r + 2 * j) % 3) / 2; sd[j] = so; so += sc[j];
		rc[j] = S * (1 + (j + 2 * r) % 3) / 2; rd[j] = ro; ro += rc[j];
	}
	MPI_Alltoallv(a, sc, sd, MPI_BYTE, b, rc, rd, MPI_BYTE, comm);
	for (int j = 0; j < n; j++) rc[j] = S / 8;
	MPI_Reduce_scatter(a, b, rc, MPI_DOUBLE, MPI_SUM, comm);
	MPI_Barrier(comm);
	spin(50000);
	free(a); free(b); free(sc); free(sd); free(rc); free(rd);
}

int main(int argc, char **argv) {
	MPI_Init(&argc, &argv);
	int rank, size;
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	int rows = 1;
	for (int d = 1; d * d <= size; d++) if (size % d == 0) rows = d;
	int cols = size / rows;
	MPI_Comm row;
	MPI_Comm_split(MPI_COMM_WORLD, rank / cols, rank % cols, &row);
	const int sizes[2] = { 8, 65536 };
	for (int s = 0; s < 2; s++) {
		for (int it = 0; it < ITER; it++) round_on(MPI_COMM_WORLD, sizes[s]);
		for (int it = 0; it < ITER; it++) round_on(row, sizes[s]);
	}
	MPI_Comm_free(&row);
	if (rank == 0) printf("collectives: %d rows of %d\n", rows, cols);
	MPI_Finalize();
	return 0;
}
