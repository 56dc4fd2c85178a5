/* cg: a conjugate-gradient skeleton for flitsim trace tests (issue 52).
 * Ranks form a px x py grid (px = largest divisor of size <= sqrt(size), x fastest), NOT
 * periodic: edge ranks use MPI_PROC_NULL for missing neighbours, as real stencil codes do.
 * Each rank owns a 32 x 16 block of doubles.  Before the loop one 8-byte Allreduce (initial
 * residual); then ITER iterations of: halo exchange with four blocking MPI_Sendrecv calls
 * (send +x/recv -x, send -x/recv +x, send +y/recv -y, send -y/recv +y; x-halo = 16 doubles =
 * 128 B, y-halo = 32 doubles = 256 B; tags 1,2,3,4), compute (mat-vec), an 8-byte Allreduce
 * (p.Ap), compute, an 8-byte Allreduce (r.r), compute.  Statuses are requested. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

enum { NX = 32, NY = 16, ITER = 5 };

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
	int px = 1;
	for (int d = 1; d * d <= size; d++) if (size % d == 0) px = d;
	int py = size / px;
	int cx = rank % px, cy = rank / px;
	int xp = cx + 1 < px ? rank + 1 : MPI_PROC_NULL;
	int xm = cx > 0 ? rank - 1 : MPI_PROC_NULL;
	int yp = cy + 1 < py ? rank + px : MPI_PROC_NULL;
	int ym = cy > 0 ? rank - px : MPI_PROC_NULL;
	double sx[NY], rx[NY], sy[NX], ry[NX];
	for (int i = 0; i < NY; i++) sx[i] = rank;
	for (int i = 0; i < NX; i++) sy[i] = rank;
	double loc = 1.0 + rank, rr, pap;
	MPI_Status st;
	MPI_Allreduce(&loc, &rr, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
	for (int it = 0; it < ITER; it++) {
		MPI_Sendrecv(sx, NY, MPI_DOUBLE, xp, 1, rx, NY, MPI_DOUBLE, xm, 1, MPI_COMM_WORLD, &st);
		MPI_Sendrecv(sx, NY, MPI_DOUBLE, xm, 2, rx, NY, MPI_DOUBLE, xp, 2, MPI_COMM_WORLD, &st);
		MPI_Sendrecv(sy, NX, MPI_DOUBLE, yp, 3, ry, NX, MPI_DOUBLE, ym, 3, MPI_COMM_WORLD, &st);
		MPI_Sendrecv(sy, NX, MPI_DOUBLE, ym, 4, ry, NX, MPI_DOUBLE, yp, 4, MPI_COMM_WORLD, &st);
		spin(60000);
		MPI_Allreduce(&loc, &pap, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
		spin(20000);
		MPI_Allreduce(&loc, &rr, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
		spin(20000);
	}
	if (rank == 0) printf("cg grid %dx%d rr %g\n", px, py, rr);
	MPI_Finalize();
	return 0;
}
