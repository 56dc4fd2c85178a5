#!/usr/bin/env python3
"""Writes traces/<prog><n>/expected.txt from the *programs' logic* (mirrors progs/*.c;
it never looks at a trace).  Format:
  lines starting with '#': comments
  'p2p SRC DST MESSAGES BYTES'            one line per (source, destination) world-rank pair
  'coll KIND COMM RANK COUNT'             calls of collective KIND on COMM made by RANK
COMM is WORLD or ROW (the MPI_Comm_split row communicator of collectives.c)."""
import sys, math
from collections import defaultdict

def factor3(n):
    best = None
    for a in range(1, n + 1):
        if n % a: continue
        for b in range(1, a + 1):
            if a * b > n or (n // a) % b: continue
            c = n // a // b
            if c > b: continue
            if best is None or a - c < best[0]: best = (a - c, (a, b, c))
    return best[1]

def grid2(n):
    px = max(d for d in range(1, int(math.isqrt(n)) + 1) if n % d == 0)
    return px, n // px

def halo3d(n):
    p = factor3(n); face = [8 * 4, 16 * 4, 16 * 8]; ITER = 3
    msgs = defaultdict(lambda: [0, 0]); coll = {}
    for r in range(n):
        c = [r % p[0], (r // p[0]) % p[1], r // (p[0] * p[1])]
        for it in range(ITER):
            for ax in range(3):
                if p[ax] == 1: continue
                for step in (1, -1):
                    cc = list(c); cc[ax] = (c[ax] + step) % p[ax]
                    to = cc[0] + p[0] * (cc[1] + p[1] * cc[2])
                    m = msgs[(r, to)]; m[0] += 1; m[1] += face[ax] * 8
    notes = ['grid %dx%dx%d (x fastest), periodic, 3 iterations, dimensions of extent 1 skipped' % p,
             'per rank per iteration: one MPI_Irecv and one MPI_Isend per direction, then one MPI_Waitall',
             'message sizes: x-face 256 B, y-face 512 B, z-face 1024 B (MPI_DOUBLE)']
    return msgs, coll, notes

def cg(n):
    px, py = grid2(n); ITER = 5
    msgs = defaultdict(lambda: [0, 0]); coll = {}
    for r in range(n):
        cx, cy = r % px, r // px
        nb = []
        if cx + 1 < px: nb.append((r + 1, 16 * 8))
        if cx > 0: nb.append((r - 1, 16 * 8))
        if cy + 1 < py: nb.append((r + px, 32 * 8))
        if cy > 0: nb.append((r - px, 32 * 8))
        for it in range(ITER):
            for to, b in nb:
                m = msgs[(r, to)]; m[0] += 1; m[1] += b
        coll[('Allreduce', 'WORLD', r)] = 1 + 2 * ITER
    notes = ['grid %dx%d (x fastest), not periodic (MPI_PROC_NULL at the edges), 5 iterations' % (px, py),
             'per iteration 4 MPI_Sendrecv (x-halo 128 B, y-halo 256 B; edge ranks use MPI_PROC_NULL partners, no message)',
             'Allreduce: 1 before the loop + 2 per iteration, each 1 MPI_DOUBLE (8 B), MPI_SUM']
    return msgs, coll, notes

def collectives(n):
    rows, cols = grid2(n)
    kinds = ['Allreduce', 'Bcast', 'Reduce', 'Allgather', 'Gather', 'Scatter', 'Alltoall', 'Alltoallv',
             'Reduce_scatter', 'Barrier']
    coll = {}
    for r in range(n):
        for k in kinds:
            coll[(k, 'WORLD', r)] = 2 * 2   # 2 sizes x ITER 2
            coll[(k, 'ROW', r)] = 2 * 2
    notes = ['grid %d rows x %d cols; ROW = MPI_Comm_split(WORLD, color=rank/%d, key=rank%%%d), %d ranks each' % (rows, cols, cols, cols, cols),
             'order per round: Allreduce, Bcast, Reduce, Allgather, Gather, Scatter, Alltoall, Alltoallv, Reduce_scatter, Barrier',
             'rounds: S=8 B: 2 on WORLD then 2 on ROW; then S=64 KiB: 2 on WORLD then 2 on ROW',
             'sizes per call with S: Allreduce/Reduce S B of MPI_DOUBLE; Bcast S B of MPI_INT (root 0); Reduce root 1; Allgather/Gather/Alltoall S B per rank/peer of MPI_BYTE (Gather root 0);',
             '  Scatter S B per rank, root = last rank of the comm; Alltoallv i->j S*(1+(i+2j)%3)/2 B; Reduce_scatter S B of MPI_DOUBLE per rank',
             'no point-to-point messages; also per rank: 1 MPI_Comm_split, 1 MPI_Comm_free']
    return {}, coll, notes

def p2p(n):
    msgs = defaultdict(lambda: [0, 0]); coll = {}
    def add(a, b, nbytes):
        m = msgs[(a, b)]; m[0] += 1; m[1] += nbytes
    for r in range(n):
        right, left = (r + 1) % n, (r - 1) % n
        add(r, r ^ 1, 256)                       # 1 Send
        add(r, right, 512)                       # 2 Ssend
        if r > 0: add(r, 0, 16 * r)              # 3 Send to 0 (wildcard receives)
        add(r, right, 100)                       # 4 Isend, received after Probe
        add(r, right, 512)                       # 5 Isend (Test loop on the receive)
        add(r, right, 128); add(r, left, 128)    # 6 Isends (Waitany on receives)
        add(r, (r + 2) % n, 32)                  # 7 Isend (Iprobe loop, Waitsome)
        coll[('Barrier', 'WORLD', r)] = 7
    notes = ['7 phases separated by MPI_Barrier, see progs/p2p.c; MPI_Test/MPI_Iprobe/MPI_Waitsome call counts depend on timing',
             'blocking Send/Recv (256 B), Ssend (512 B), MPI_ANY_SOURCE+MPI_ANY_TAG receives at rank 0 (16*src B, tag 30+src),',
             'Probe+Get_count+Recv (100 B), Irecv+Test loop (512 B), Waitany (2 x 128 B), Iprobe loop + Waitsome (32 B)']
    return msgs, coll, notes

PROGS = dict(halo3d=halo3d, cg=cg, collectives=collectives, p2p=p2p)

def write(prog, n, path):
    msgs, coll, notes = PROGS[prog](n)
    with open(path, 'w') as f:
        f.write('# %s on %d ranks: expected traffic derived from progs/%s.c (not from the trace)\n' % (prog, n, prog))
        for x in notes: f.write('# ' + x + '\n')
        f.write('# p2p SRC DST MESSAGES BYTES   (world ranks; all messages on MPI_COMM_WORLD)\n')
        for (a, b), (c, by) in sorted(msgs.items()):
            f.write('p2p %d %d %d %d\n' % (a, b, c, by))
        f.write('# total p2p: %d messages, %d bytes\n' % (sum(v[0] for v in msgs.values()), sum(v[1] for v in msgs.values())))
        f.write('# coll KIND COMM RANK CALLS\n')
        for (k, c, r), v in sorted(coll.items(), key=lambda x: (x[0][0], x[0][1], x[0][2])):
            f.write('coll %s %s %d %d\n' % (k, c, r, v))

if __name__ == '__main__':
    import os, re
    for d in sorted(os.listdir('traces')):
        m = re.match(r'([a-z0-9]+?)(\d+)$', d)
        if not m or m.group(1) not in PROGS: continue
        write(m.group(1), int(m.group(2)), os.path.join('traces', d, 'expected.txt'))
        print('wrote', d)
