/* halo3d: 3D face-neighbour halo exchange for flitsim trace tests (issue 52).
 * Ranks form a px*py*pz periodic grid (factors chosen below, x fastest).  Each rank owns a
 * 16x8x4 block of doubles; per iteration it exchanges its six faces with MPI_Irecv/MPI_Isend
 * and one MPI_Waitall, then computes.  Face sizes: x-faces 8*4 doubles = 256 B, y-faces
 * 16*4 = 512 B, z-faces 16*8 = 1024 B.  Dimensions of extent 1 are skipped (the "exchange"
 * would be with the rank itself; real codes copy locally).  Tag = direction of travel
 * (0:+x 1:-x 2:+y 3:-y 4:+z 5:-z). */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

enum { NX = 16, NY = 8, NZ = 4, ITER = 3 };

static double spin(long n) {
	volatile double x = 0;
	for (long i = 0; i < n; i++) x += 1e-9 * (double)i;
	return x;
}

/* Split n into three factors p[0] >= p[1] >= p[2], as even as possible. */
static void factor3(int n, int p[3]) {
	int best = -1;
	for (int a = 1; a <= n; a++) {
		if (n % a) continue;
		for (int b = 1; b <= a && a * b <= n; b++) {
			if ((n / a) % b) continue;
			int c = n / a / b;
			if (c > b) continue;
			int spread = a - c;
			if (best < 0 || spread < best) { best = spread; p[0] = a; p[1] = b; p[2] = c; }
		}
	}
}

int main(int argc, char **argv) {
	MPI_Init(&argc, &argv);
	int rank, size;
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	int p[3];
	factor3(size, p);
	int c[3] = { rank % p[0], (rank / p[0]) % p[1], rank / (p[0] * p[1]) };
	int face[3] = { NY * NZ, NX * NZ, NX * NY }; /* doubles per face, by axis */
	double *sbuf[6], *rbuf[6];
	for (int d = 0; d < 6; d++) {
		sbuf[d] = calloc(face[d / 2], sizeof(double));
		rbuf[d] = calloc(face[d / 2], sizeof(double));
	}
	for (int it = 0; it < ITER; it++) {
		MPI_Request req[12];
		int nreq = 0;
		for (int ax = 0; ax < 3; ax++) {
			if (p[ax] == 1) continue;
			for (int s = 0; s < 2; s++) { /* s=0: towards +, s=1: towards - */
				int d = 2 * ax + s;
				int cc[3] = { c[0], c[1], c[2] };
				int step = s == 0 ? 1 : -1;
				cc[ax] = (c[ax] + step + p[ax]) % p[ax];
				int to = cc[0] + p[0] * (cc[1] + p[1] * cc[2]);
				cc[ax] = (c[ax] - step + p[ax]) % p[ax];
				int from = cc[0] + p[0] * (cc[1] + p[1] * cc[2]);
				/* receive what travels in direction d: it comes from the opposite side */
				MPI_Irecv(rbuf[d], face[ax], MPI_DOUBLE, from, d, MPI_COMM_WORLD, &req[nreq++]);
				MPI_Isend(sbuf[d], face[ax], MPI_DOUBLE, to, d, MPI_COMM_WORLD, &req[nreq++]);
			}
		}
		MPI_Waitall(nreq, req, MPI_STATUSES_IGNORE);
		spin(100000);
	}
	if (rank == 0) printf("halo3d grid %dx%dx%d done\n", p[0], p[1], p[2]);
	for (int d = 0; d < 6; d++) { free(sbuf[d]); free(rbuf[d]); }
	MPI_Finalize();
	return 0;
}
