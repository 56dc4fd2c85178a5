/* p2p: point-to-point corner cases for flitsim trace tests (issue 52).  Needs an even
 * number of ranks >= 4.  Phases, separated by MPI_Barrier (n = size, r = rank):
 *  1 blocking pair exchange: partner r^1, 256 B MPI_BYTE, tag 10; even ranks Send then Recv,
 *    odd ranks Recv then Send; the Recv asks for a status.
 *  2 Ssend ring: r -> (r+1)%n, 128 MPI_INT = 512 B, tag 20; even ranks Ssend then Recv,
 *    odd ranks Recv then Ssend; Recv with MPI_STATUS_IGNORE.
 *  3 wildcards: every r > 0 sends 16*r B (MPI_BYTE) with tag 30+r to rank 0, which posts
 *    n-1 MPI_Recv(MPI_ANY_SOURCE, MPI_ANY_TAG) with statuses.
 *  4 probe: r Isends 100 B tag 40 to (r+1)%n, then MPI_Probe(MPI_ANY_SOURCE, 40),
 *    MPI_Get_count, MPI_Recv from the probed source/tag, MPI_Wait on the send.
 *  5 test loop: Irecv 64 MPI_DOUBLE = 512 B tag 50 from (r-1)%n, compute, Isend to (r+1)%n,
 *    MPI_Test on the receive (with status) until it completes, MPI_Wait on the send.
 *  6 waitany: Irecv 128 B from left (tag 60) and right (tag 61), Isend 128 B to right
 *    (tag 60) and left (tag 61); two MPI_Waitany over the receives, then MPI_Waitall over the
 *    sends with a statuses array.
 *  7 iprobe/waitsome: Isend 32 B tag 70 to (r+2)%n; MPI_Iprobe(MPI_ANY_SOURCE, 70) loop until
 *    found; Irecv from the found source; MPI_Waitsome over {recv, send} until both done. */
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
	int r, n;
	MPI_Comm_rank(MPI_COMM_WORLD, &r);
	MPI_Comm_size(MPI_COMM_WORLD, &n);
	if (n < 4 || n % 2) {
		if (r == 0) fprintf(stderr, "p2p needs an even number of ranks >= 4\n");
		MPI_Abort(MPI_COMM_WORLD, 1);
	}
	char *b1 = calloc(4096, 1), *b2 = calloc(4096, 1);
	MPI_Status st;
	int right = (r + 1) % n, left = (r + n - 1) % n;

	/* 1 */
	int partner = r ^ 1;
	if (r % 2 == 0) {
		MPI_Send(b1, 256, MPI_BYTE, partner, 10, MPI_COMM_WORLD);
		MPI_Recv(b2, 256, MPI_BYTE, partner, 10, MPI_COMM_WORLD, &st);
	} else {
		MPI_Recv(b2, 256, MPI_BYTE, partner, 10, MPI_COMM_WORLD, &st);
		MPI_Send(b1, 256, MPI_BYTE, partner, 10, MPI_COMM_WORLD);
	}
	MPI_Barrier(MPI_COMM_WORLD);

	/* 2 */
	if (r % 2 == 0) {
		MPI_Ssend(b1, 128, MPI_INT, right, 20, MPI_COMM_WORLD);
		MPI_Recv(b2, 128, MPI_INT, left, 20, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
	} else {
		MPI_Recv(b2, 128, MPI_INT, left, 20, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
		MPI_Ssend(b1, 128, MPI_INT, right, 20, MPI_COMM_WORLD);
	}
	MPI_Barrier(MPI_COMM_WORLD);

	/* 3 */
	if (r == 0) {
		for (int i = 1; i < n; i++)
			MPI_Recv(b2, 16 * n, MPI_BYTE, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &st);
	} else {
		MPI_Send(b1, 16 * r, MPI_BYTE, 0, 30 + r, MPI_COMM_WORLD);
	}
	MPI_Barrier(MPI_COMM_WORLD);

	/* 4 */
	{
		MPI_Request sr;
		int cnt;
		MPI_Isend(b1, 100, MPI_BYTE, right, 40, MPI_COMM_WORLD, &sr);
		MPI_Probe(MPI_ANY_SOURCE, 40, MPI_COMM_WORLD, &st);
		MPI_Get_count(&st, MPI_BYTE, &cnt);
		MPI_Recv(b2, cnt, MPI_BYTE, st.MPI_SOURCE, st.MPI_TAG, MPI_COMM_WORLD, &st);
		MPI_Wait(&sr, &st);
	}
	MPI_Barrier(MPI_COMM_WORLD);

	/* 5 */
	{
		MPI_Request rr, sr;
		int flag = 0;
		MPI_Irecv(b2, 64, MPI_DOUBLE, left, 50, MPI_COMM_WORLD, &rr);
		spin(20000);
		MPI_Isend(b1, 64, MPI_DOUBLE, right, 50, MPI_COMM_WORLD, &sr);
		while (!flag) {
			MPI_Test(&rr, &flag, &st);
			if (!flag) spin(200000);
		}
		MPI_Wait(&sr, MPI_STATUS_IGNORE);
	}
	MPI_Barrier(MPI_COMM_WORLD);

	/* 6 */
	{
		MPI_Request rq[2], sq[2];
		MPI_Status sts[2];
		int idx;
		MPI_Irecv(b2, 128, MPI_BYTE, left, 60, MPI_COMM_WORLD, &rq[0]);
		MPI_Irecv(b2 + 128, 128, MPI_BYTE, right, 61, MPI_COMM_WORLD, &rq[1]);
		MPI_Isend(b1, 128, MPI_BYTE, right, 60, MPI_COMM_WORLD, &sq[0]);
		MPI_Isend(b1 + 128, 128, MPI_BYTE, left, 61, MPI_COMM_WORLD, &sq[1]);
		MPI_Waitany(2, rq, &idx, &st);
		MPI_Waitany(2, rq, &idx, &st);
		MPI_Waitall(2, sq, sts);
	}
	MPI_Barrier(MPI_COMM_WORLD);

	/* 7 */
	{
		MPI_Request q[2];
		MPI_Status sts[2];
		int flag = 0, idx[2], out, done = 0;
		MPI_Isend(b1, 32, MPI_BYTE, (r + 2) % n, 70, MPI_COMM_WORLD, &q[1]);
		while (!flag) {
			MPI_Iprobe(MPI_ANY_SOURCE, 70, MPI_COMM_WORLD, &flag, &st);
			if (!flag) spin(200000);
		}
		MPI_Irecv(b2, 32, MPI_BYTE, st.MPI_SOURCE, 70, MPI_COMM_WORLD, &q[0]);
		while (done < 2) {
			MPI_Waitsome(2, q, &out, idx, sts);
			done += out;
		}
	}
	MPI_Barrier(MPI_COMM_WORLD);

	if (r == 0) printf("p2p done on %d ranks\n", n);
	free(b1); free(b2);
	MPI_Finalize();
	return 0;
}
