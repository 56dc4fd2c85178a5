#!/usr/bin/env bash
# Builds the Mellanox OMNeT++ InfiniBand flit model (the simulator of
# seeds/001's tables) outside the repository, headless, for
# `flitsim ibmodel` and `make ibmodel-compare` (docs/ibmodel.md).
#
#   OMNETPP_GIT  a git repository of github.com/omnetpp/omnetpp (URL or path)
#   IBMODEL_GIT  a git repository of github.com/garyson/ib_flit_sim (URL or path)
#   IBMODEL_HOME where to build (default $HOME/ibmodel); flitsim finds the
#                model there: IBMODEL_HOME/omnetpp-4.6.1, IBMODEL_HOME/ib_flit_sim
#   PATCH=0      build the release as it is (no per-destination SLs, no
#                hiccup phases); default: flitsim's addition, below
#   JOBS         make -j (default: the processors)
#
# Every stage is skipped when its product exists; FORCE=1 starts afresh.
# Nothing of OMNeT++ or the model enters the repository.
set -euo pipefail

: "${OMNETPP_GIT:?set OMNETPP_GIT to a git repository of omnetpp/omnetpp}"
: "${IBMODEL_GIT:?set IBMODEL_GIT to a git repository of garyson/ib_flit_sim}"
home=${IBMODEL_HOME:-$HOME/ibmodel}
jobs=${JOBS:-$(nproc)}
opp_tag=omnetpp-4.6.1
model_rev=d84663517d314253f29aa641138faff228c3a415 # "ib_flit_sim model from Mellanox, from 2013-07-28"
say() { echo "[ibmodel $(date +%T)] $*"; }

# gitdir REPO: a git directory for a URL (cloned bare once) or a path.
gitdir() {
  case $1 in
  http*://* | git@*)
    local d=$home/src/$(basename "$1" .git).git
    [ -d "$d" ] || git clone -q --bare "$1" "$d"
    echo "$d" ;;
  *) git -C "$1" rev-parse --git-dir >/dev/null 2>&1 && (cd "$1" && cd "$(git rev-parse --git-dir)" && pwd) ;;
  esac
}

# unpack GITDIR REV DEST: the tree of REV, file by file where the mirror
# lacks a large blob (one example input of the model is absent from some).
unpack() {
  mkdir -p "$3"
  git --git-dir="$1" archive "$2" 2>/dev/null | tar -x -C "$3" 2>/dev/null && return
  git --git-dir="$1" ls-tree -r "$2" | while read -r mode type sha path; do
    [ "$type" = blob ] || continue
    mkdir -p "$3/$(dirname "$path")"
    if git --git-dir="$1" cat-file -e "$sha" 2>/dev/null; then
      git --git-dir="$1" cat-file blob "$sha" >"$3/$path"
      if [ "$mode" = 100755 ]; then chmod +x "$3/$path"; fi
    else
      say "absent from the repository, skipped: $path"
    fi
  done
}

if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
  miss=""
  for p in bison flex g++ make perl libxml2-dev zlib1g-dev; do dpkg -s "$p" >/dev/null 2>&1 || miss="$miss $p"; done
  [ -z "$miss" ] || { apt-get update -qq; DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $miss >/dev/null; }
fi
mkdir -p "$home"
[ "${FORCE:-0}" = 1 ] && rm -rf "$home/$opp_tag" "$home/ib_flit_sim"

# 1. OMNeT++ 4.6 (the API the 2013 code is written against), Cmdenv only.
opp=$home/$opp_tag
if [ ! -x "$opp/bin/opp_run" ]; then
  [ -f "$opp/Version" ] || unpack "$(gitdir "$OMNETPP_GIT")" "$opp_tag" "$opp"
  cd "$opp"
  cp configure.user.dist configure.user
  sed -i -e 's/^WITH_PARSIM=.*/WITH_PARSIM=no/' configure.user
  echo 'NO_TCL=yes' >>configure.user
  set +u; . ./setenv -q; set -u
  say "configure OMNeT++"; ./configure NO_TCL=yes WITH_PARSIM=no >"$home/omnetpp-configure.log" 2>&1
  say "make OMNeT++ (a few minutes)"
  make MODE=release -j"$jobs" base >"$home/omnetpp-make.log" 2>&1 || { tail -30 "$home/omnetpp-make.log"; exit 1; }
fi
cd "$opp"; set +u; . ./setenv -q; set -u

# 2. The model, with flitsim's addition unless PATCH=0.
model=$home/ib_flit_sim
if [ ! -f "$model/src/ib.msg" ]; then
  unpack "$(gitdir "$IBMODEL_GIT")" "$model_rev" "$model"
  if [ "${PATCH:-1}" = 1 ]; then
    # flitsim's addition (docs/ibmodel.md): (a) an application may take
    # its message's SL from a vector indexed by destination LID, one per
    # HCA (dstSLVecFile, dstSLVecIdx), so that routings that spread paths
    # over VLs (DFSSSP, LASH) run as flitsim runs them; (b) a sink's first
    # hiccup may start at an instant of its own (hiccupFirst, default the
    # release's 1 ns), so that both simulators stall every host bus at the
    # same instants.
    cd "$model/src"
    perl -0pi -e 's/(\n(\s*)int dstSeqVecIdx;[^\n]*)/$1\n$2string dstSLVecFile = default(""); \/\/ flitsim: SL by destination LID, one vector per app\n$2int dstSLVecIdx = default(0);/' app.ned
    perl -0pi -e 's/(\n(\s*)std::vector<int> \*dstSeq;[^\n]*)/$1\n$2std::vector<int> *dstSL; \/\/ flitsim: SL by destination LID, or NULL/' app.h
    perl -0pi -e 's/(\n(\s*)\/\/ Message Length Modes)/\n$2\/\/ flitsim: the SL of each message by its destination LID\n$2dstSL = NULL;\n$2if (((const char *)par("dstSLVecFile"))[0]) {\n$2  dstSL = vecFiles::get()->getIntVec((const char *)par("dstSLVecFile"), (int)par("dstSLVecIdx"));\n$2  if (dstSL == NULL) opp_error("fail to obtain dstSL vector: %s\/%d", (const char *)par("dstSLVecFile"), (int)par("dstSLVecIdx"));\n$2}\n$1/' app.cc
    perl -0pi -e 's/(\n(\s*)IBAppMsg \*p_msg;)/\n$2if (dstSL) { \/\/ flitsim\n$2  if (msgDstLid >= dstSL->size()) opp_error("no SL for LID %d", msgDstLid);\n$2  msgSQ = (*dstSL)[msgDstLid];\n$2}\n$1/' app.cc
    perl -0pi -e 's/(\n(\s*)volatile double hiccupDelay[^\n]*)/$1\n$2volatile double hiccupFirst \@unit(us) = default(0.001us); \/\/ flitsim: the first hiccup/' sink.ned
    perl -0pi -e 's/scheduleAt\(simTime\(\)\+1e-9, p_hiccupMsg\);/scheduleAt(simTime()+(double)par("hiccupFirst")*1e-6, p_hiccupMsg); \/\/ flitsim/' sink.cc
    for f in app.ned app.h app.cc sink.ned sink.cc; do
      grep -q flitsim "$f" || { say "the addition did not apply to $f"; exit 1; }
    done
    [ "$(grep -c flitsim app.cc)" -ge 2 ] || { say "the addition did not apply to app.cc"; exit 1; }
    echo "flitsim addition: dstSLVecFile/dstSLVecIdx (app), hiccupFirst (sink)" >"$model/.flitsim-patch"
  fi
fi
# (c) of the addition, also on a model built before it: the sinks end the
# run once they have consumed a given number of flits in all
# (endAfterFlits, default 0: never), so that a finite traffic stops the
# model when it is done instead of at sim-time-limit (the hiccup timers
# keep scheduling events forever). Nothing the model measures changes.
if [ -f "$model/.flitsim-patch" ] && ! grep -q endAfterFlits "$model/.flitsim-patch"; then
  cd "$model/src"
  perl -0pi -e 's/(\n(\s*)volatile double hiccupFirst[^\n]*)/$1\n$2int endAfterFlits = default(0); \/\/ flitsim: end the run when the sinks have consumed this many flits in all/' sink.ned
  perl -0pi -e 's/(Define_Module\( IBSink \);\n)/$1\n\/\/ flitsim: flits consumed by all sinks, and the count that ends the run.\nstatic long flitsimConsumed = 0, flitsimEndAfter = 0;\n/' sink.cc
  perl -0pi -e 's/(void IBSink::initialize\(\)\n\{\n)/$1  flitsimConsumed = 0; flitsimEndAfter = par("endAfterFlits"); \/\/ flitsim\n/' sink.cc
  perl -0pi -e 's/(\n  delete p_msg;\n\}\n)(\nvoid IBSink::handleData)/\n  delete p_msg;\n  if (flitsimEndAfter > 0 && ++flitsimConsumed >= flitsimEndAfter) endSimulation(); \/\/ flitsim\n}\n$2/' sink.cc
  [ "$(grep -c flitsim sink.cc)" -ge 4 ] && grep -q endAfterFlits sink.ned || { say "the addition (c) did not apply to sink.cc or sink.ned"; exit 1; }
  echo "flitsim addition (c): endAfterFlits (sink)" >>"$model/.flitsim-patch"
  rm -f "$model/out/gcc-release/src/ib_flit_sim"
fi
bin=$model/out/gcc-release/src/ib_flit_sim
if [ ! -x "$bin" ]; then
  cd "$model/src"
  opp_makemake -f --deep -u Cmdenv -o ib_flit_sim -O out
  say "make the model"
  make MODE=release -j"$jobs" >"$home/model-make.log" 2>&1 || { tail -30 "$home/model-make.log"; exit 1; }
fi

# 3. Smoke test: the release's own 3-HCA example, 1 ms.
cd "$model/examples/is1_3h_2s"
"$bin" -u Cmdenv -n "$model/src:$model/examples" -f is1_3h_2s.ini -c One -r 0 --sim-time-limit=0.001s >"$home/smoke.log" 2>&1 ||
  { tail -20 "$home/smoke.log"; exit 1; }
grep -q Sink-BW-MBps results/*.sca || { say "smoke test wrote no sink results"; exit 1; }
say "built: $bin (IBMODEL_HOME=$home)"
