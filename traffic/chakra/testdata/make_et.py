#!/usr/bin/env python3
"""Writes the Chakra execution traces of flitsim's tests (issue 52).

Needs Python protobuf classes for MLCommons' schema, made outside the
repository from a checkout of github.com/mlcommons/chakra:

    protoc --python_out=. -I $CHAKRA/schema/protobuf et_def.proto
    PYTHONPATH=. python3 make_et.py          # in traffic/chakra/testdata

Each trace is a directory of <name>.<npu>.et files, each a length-delimited
GlobalMetadata then length-delimited Nodes (varint32 lengths, as Chakra's
protolib writes them), and comm_group.json where a trace has process groups.

dp4: one training step of a 3-layer model, data parallel on 4 NPUs: forward
  f1 -> f2 -> f3, backward b3 -> b2 -> b1, each backward node's gradient
  all-reduced (ALL_REDUCE on all NPUs, 1 MiB, 4 MiB, 256 KiB) as soon as it
  is computed, the optimizer step after all three all-reduces.
pp2x2: a pipeline of 2 stages (NPUs 0, 1 | 2, 3), each stage data parallel
  on 2 NPUs: stage 0 computes, sends its activations (512 KiB, tag 1) to its
  stage-1 peer, which receives, computes forward and backward, sends the
  gradient back (512 KiB, tag 2); stage 0 receives it and computes
  backward; then each stage all-reduces its weights (2 MiB) in its own
  process group ("1": 0, 1; "2": 2, 3).
"""
import json
import os
import struct

import et_def_pb2 as et


def varint(n):
    out = bytearray()
    while True:
        b = n & 0x7F
        n >>= 7
        if n:
            out.append(0x80 | b)
        else:
            out.append(b)
            return bytes(out)


def write(path, nodes):
    with open(path, "wb") as f:
        for m in [et.GlobalMetadata(version="0.0.4")] + nodes:
            data = m.SerializeToString()
            f.write(varint(len(data)))
            f.write(data)


class Graph:
    def __init__(self):
        self.nodes = []
        self.t = 0

    def node(self, name, typ, deps=(), duration=0, **attrs):
        n = et.Node(id=len(self.nodes) + 1, name=name, type=typ)
        n.data_deps.extend(d.id for d in deps)
        n.start_time_micros = self.t
        n.duration_micros = duration
        self.t += max(duration, 1)
        n.attr.append(et.AttributeProto(name="is_cpu_op", bool_val=False))
        for k, v in attrs.items():
            if k in ("comm_type", "comm_size"):
                n.attr.append(et.AttributeProto(name=k, int64_val=v))
            elif k in ("comm_src", "comm_dst", "comm_tag"):
                n.attr.append(et.AttributeProto(name=k, int32_val=v))
            elif k == "pg_name":
                n.attr.append(et.AttributeProto(name=k, string_val=v))
        self.nodes.append(n)
        return n


def dp4(out):
    os.makedirs(out, exist_ok=True)
    for npu in range(4):
        g = Graph()
        f1 = g.node("f1", et.COMP_NODE, duration=20)
        f2 = g.node("f2", et.COMP_NODE, [f1], duration=40)
        f3 = g.node("f3", et.COMP_NODE, [f2], duration=10)
        b3 = g.node("b3", et.COMP_NODE, [f3], duration=20)
        a3 = g.node("ar3", et.COMM_COLL_NODE, [b3], comm_type=et.ALL_REDUCE, comm_size=1 << 20)
        b2 = g.node("b2", et.COMP_NODE, [b3], duration=80)
        a2 = g.node("ar2", et.COMM_COLL_NODE, [b2], comm_type=et.ALL_REDUCE, comm_size=4 << 20)
        b1 = g.node("b1", et.COMP_NODE, [b2], duration=40)
        a1 = g.node("ar1", et.COMM_COLL_NODE, [b1], comm_type=et.ALL_REDUCE, comm_size=256 << 10)
        g.node("opt", et.COMP_NODE, [a1, a2, a3], duration=5)
        write(os.path.join(out, f"dp4.{npu}.et"), g.nodes)


def pp2x2(out):
    os.makedirs(out, exist_ok=True)
    for npu in range(4):
        g = Graph()
        stage, peer = npu // 2, (npu + 2) % 4
        pg = "1" if stage == 0 else "2"
        if stage == 0:
            fw = g.node("fwd", et.COMP_NODE, duration=30)
            g.node("send_act", et.COMM_SEND_NODE, [fw], comm_src=npu, comm_dst=peer, comm_tag=1, comm_size=512 << 10)
            rg = g.node("recv_grad", et.COMM_RECV_NODE, [], comm_src=peer, comm_dst=npu, comm_tag=2, comm_size=512 << 10)
            bw = g.node("bwd", et.COMP_NODE, [rg], duration=60)
        else:
            ra = g.node("recv_act", et.COMM_RECV_NODE, [], comm_src=peer, comm_dst=npu, comm_tag=1, comm_size=512 << 10)
            fw = g.node("fwd", et.COMP_NODE, [ra], duration=30)
            bw = g.node("bwd", et.COMP_NODE, [fw], duration=60)
            g.node("send_grad", et.COMM_SEND_NODE, [bw], comm_src=npu, comm_dst=peer, comm_tag=2, comm_size=512 << 10)
        g.node("ar", et.COMM_COLL_NODE, [bw], comm_type=et.ALL_REDUCE, comm_size=2 << 20, pg_name=pg)
        write(os.path.join(out, f"pp2x2.{npu}.et"), g.nodes)
    with open(os.path.join(out, "comm_group.json"), "w") as f:
        json.dump({"1": [0, 1], "2": [2, 3]}, f)


if __name__ == "__main__":
    dp4("dp4")
    pp2x2("pp2x2")
