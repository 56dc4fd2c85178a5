# flitsim — make targets. `make test` is what CI runs (.ci/run).
GO       ?= go
# Fuzz budgets are execution counts, never durations: Go 1.26's fuzz
# coordinator fails at random ("context deadline exceeded") when -fuzztime is
# a duration (golang/go#75804, fixed in Go 1.27).
FUZZTIME ?= 20000x
FUZZLONG ?= 2000000x
# The differential fuzz target runs both simulators per input: fewer runs.
FUZZDIFF ?= 2000x
# Scenarios of `make difftest` (the default test run has 500).
DIFF_N ?= 5000
BENCHTIME ?= 1s
# Fuzz targets as package:Func; `make fuzz-short` runs each for FUZZTIME
# executions, `make fuzz` for FUZZLONG executions and keeps
# what the fuzzer found in the package's testdata/fuzz corpus.
FUZZ_TARGETS := ./traffic/dumpi:FuzzTrace ./traffic/chakra:FuzzChakra ./fabric:FuzzReadIBNetDiscover ./fabric:FuzzParseSpec ./faults:FuzzParseFixed ./routing:FuzzReadLFTs ./configs:FuzzParse ./configs:FuzzParseWorkload ./configs:FuzzParseHistory

.PHONY: all build test test-long difftest bench bench-scale fuzz fuzz-short lint fmt clean ibmodel-build ibmodel-compare pgo

# The CPU profile the Go toolchain optimises cmd/flitsim with (profile-guided
# optimisation: `go build` and `go run` of ./cmd/flitsim read it by
# themselves). The benchmarks use it too, so that they measure the binary
# users run. `make pgo` makes it anew (a few minutes).
PGO := $(CURDIR)/cmd/flitsim/default.pgo
# Lint and tests build without it: the profile changes no behaviour, and with
# it the standard library and every package the CLI imports are compiled a
# second time for cmd/flitsim (a cold build cache: vet 91 s → 226 s, the
# test binaries 52 s → 95 s, measured 2026-12-01).
NOPGO := -pgo=off

all: build test

build:
	$(GO) build -o bin/flitsim ./cmd/flitsim

# The default test run: lint, all tests with invariants compiled in, and a
# few seconds of each fuzzer on its committed corpus.
test: lint
	$(GO) test $(NOPGO) -tags invariants -count=1 ./...
	$(MAKE) --no-print-directory fuzz-short

# Long experiments and the full-size checks CI does not run.
test-long:
	FLITSIM_LONG=1 $(GO) test -tags invariants -count=1 -timeout 3h ./...

# Thousands of generated scenarios through the fast and the reference
# simulator (DIFF_N, from seed DIFF_FROM); each must agree packet by packet.
DIFF_FROM ?= 1
difftest:
	FLITSIM_DIFF_N=$(DIFF_N) FLITSIM_DIFF_FROM=$(DIFF_FROM) $(GO) test -tags invariants -count=1 -timeout 12h -run '^TestDifferential$$' ./sim/difftest

bench:
	$(GO) test -pgo=$(PGO) -run '^$$' -bench . -benchmem -benchtime $(BENCHTIME) ./...

# Every step on the 40,000-HCA reference fabrics of issue 18, once each:
# time, peak RSS, flit-hops/s (tens of minutes; SCALE picks steps).
SCALE ?= .
bench-scale:
	FLITSIM_LONG=1 $(GO) test -pgo=$(PGO) -run '^$$' -bench 'BenchmarkScale/$(SCALE)' -benchtime 1x -timeout 6h ./configs/pipeline

fuzz-short:
	@for t in $(FUZZ_TARGETS); do \
	  pkg=$${t%%:*}; fn=$${t##*:}; \
	  echo "fuzz $$pkg $$fn for $(FUZZTIME) executions"; \
	  $(GO) test -run '^$$' -fuzz "^$$fn\$$" -fuzztime $(FUZZTIME) $$pkg || exit 1; \
	done
	@echo "fuzz ./sim/difftest FuzzDifferential for $(FUZZDIFF) executions"
	@$(GO) test -run '^$$' -fuzz '^FuzzDifferential$$' -fuzztime $(FUZZDIFF) ./sim/difftest

# Longer fuzzing; new corpus entries are copied into testdata/fuzz.
fuzz:
	@cache=$$($(GO) env GOCACHE)/fuzz; \
	for t in $(FUZZ_TARGETS); do \
	  pkg=$${t%%:*}; fn=$${t##*:}; \
	  $(GO) test -run '^$$' -fuzz "^$$fn\$$" -fuzztime $(FUZZLONG) $$pkg || exit 1; \
	  mod=$$($(GO) list -f '{{.ImportPath}}' $$pkg); \
	  mkdir -p $$pkg/testdata/fuzz/$$fn; \
	  cp -n $$cache/$$mod/$$fn/* $$pkg/testdata/fuzz/$$fn/ 2>/dev/null || true; \
	done

lint:
	@out=$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go')); \
	  if [ -n "$$out" ]; then echo "gofmt needed:"; echo "$$out"; exit 1; fi
	$(GO) vet $(NOPGO) ./...
	$(GO) vet $(NOPGO) -tags invariants ./...
	GOARCH=386 $(GO) vet $(NOPGO) ./... # 32-bit int: no constant may overflow it

fmt:
	gofmt -w $$(git ls-files '*.go')

# The thesis' simulator beside flitsim (docs/ibmodel.md; not in CI). The
# model is built outside the repository, in IBMODEL_HOME, from git
# repositories of omnetpp/omnetpp and garyson/ib_flit_sim (URLs or paths).
IBMODEL_HOME ?= $(HOME)/ibmodel
OMNETPP_GIT  ?= https://github.com/omnetpp/omnetpp.git
IBMODEL_GIT  ?= https://github.com/garyson/ib_flit_sim.git
IBSET        ?= quick
IBJOBS       ?= 1
ibmodel-build:
	IBMODEL_HOME=$(IBMODEL_HOME) OMNETPP_GIT=$(OMNETPP_GIT) IBMODEL_GIT=$(IBMODEL_GIT) bash docs/ibmodel/build.sh

# Every scenario of the set IBSET (flitsim ibmodel sets) through both
# simulators; resumable, the table in out/ibmodel-IBSET/table.md.
ibmodel-compare:
	IBMODEL_HOME=$(IBMODEL_HOME) $(GO) run ./cmd/flitsim ibmodel compare --set $(IBSET) -j $(IBJOBS) -o out/ibmodel-$(IBSET)

# The long experiments behind docs/validation.md's rows of the seeds'
# figures that no test runs (issue 53), one target each, every one
# writing under out/experiments; `make experiments` runs them all (hours).
# The FLITSIM_LONG ones (seeds/000 Fig. 9, §6.3.1's Fig. 6.10) are in
# test-long.
EXPERIMENTS := fig46ab fig44c large-reg-kautz aries-modes torus-reroute fig5-9 fig6-12 angara-fig5
.PHONY: experiments $(addprefix experiment-,$(EXPERIMENTS))
experiments: $(addprefix experiment-,$(EXPERIMENTS))
experiment-fig46ab experiment-fig44c experiment-large-reg-kautz experiment-aries-modes experiment-torus-reroute: build
	bin/flitsim run docs/campaigns/$(@:experiment-%=%).toml -o out/experiments/$(@:experiment-%=%)
experiment-fig5-9 experiment-fig6-12: build
	mkdir -p out/experiments
	FLITSIM=bin/flitsim bash docs/jobs/$(@:experiment-%=%).sh > out/experiments/$(@:experiment-%=%).md
	cat out/experiments/$(@:experiment-%=%).md
experiment-angara-fig5: build
	FLITSIM=bin/flitsim bash docs/jobs/angara/fig5.sh out/experiments/angara-fig5.tsv

# The profile of default.pgo: what users wait for, run by a binary built
# without a profile. A shard of the small campaign (exchange and uniform
# points, routing and simulation as `run` does them), the whole-subnet
# engines on mid-size fabrics (Nue, SSSP, and DFSSSP: one that routes and
# one that counts its layers in vain, status 1), and simulations beyond the
# campaign's: 1-flit packets on a torus (issue 54's BookSim2 comparison), a larger
# fat tree, and adaptive routing on a dragonfly.
PGO_DIR  ?= out/pgo
PGO_XGFT := xgft:m=16x20,w=16x16,hcas=5120,radix=32 --links 1
pgo:
	rm -rf $(PGO_DIR) && mkdir -p $(PGO_DIR)
	$(GO) build -pgo=off -trimpath -o $(PGO_DIR)/flitsim ./cmd/flitsim
	cd $(PGO_DIR) && \
	FLITSIM_CPUPROFILE=run.prof ./flitsim run small --shard 0/120 -j 1 -q -o run && \
	FLITSIM_CPUPROFILE=nue1.prof ./flitsim route $(PGO_XGFT) --routing nue --vls 1 >/dev/null && \
	FLITSIM_CPUPROFILE=nue8.prof ./flitsim route $(PGO_XGFT) --routing nue --vls 8 >/dev/null && \
	FLITSIM_CPUPROFILE=nuet.prof ./flitsim route torus:dims=10x10x10 --links 1 --routing nue --vls 8 >/dev/null && \
	FLITSIM_CPUPROFILE=dfsssp.prof ./flitsim route $(PGO_XGFT) --routing dfsssp >/dev/null && \
	FLITSIM_CPUPROFILE=dfsssr.prof ./flitsim route random:switches=256,hcas=2048,links=1024,seed=1 --links 1 \
		--routing dfsssp --vls 16 >/dev/null && \
	{ FLITSIM_CPUPROFILE=dfssspt.prof ./flitsim route torus:dims=10x10x10 --links 1 --routing dfsssp --vls 16 \
		>/dev/null 2>&1; test $$? = 1; } && \
	FLITSIM_CPUPROFILE=sssp.prof ./flitsim route $(PGO_XGFT) --routing sssp >/dev/null && \
	FLITSIM_CPUPROFILE=flit1.prof ./flitsim sim torus:dims=16x16 --routing torus-2qos --traffic uniform \
		--load 0.1 --msg-bytes 38 --max-time 484.64us --hw wire_bytes=false --sim min_samples=1073741824 >/dev/null && \
	FLITSIM_CPUPROFILE=ftree.prof ./flitsim sim $(PGO_XGFT) --routing ftree --traffic uniform --max-time 100us >/dev/null && \
	FLITSIM_CPUPROFILE=ugal.prof ./flitsim sim dragonfly:a=8,p=4,h=4,g=9 --links 1 --routing ugal --traffic uniform --max-time 500us >/dev/null
	$(GO) run ./cmd/pgo -o $(PGO) $(PGO_DIR)/*.prof

clean:
	rm -rf bin
