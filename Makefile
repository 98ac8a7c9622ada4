# platc: the targets a contributor and CI need.
GO      ?= go
BIN     := bin/platc
VERSION ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)
LDFLAGS := -X main.version=$(VERSION)

.PHONY: all build test bench bench-rss lint fuzz clean e2e e2e-tools e2e-apiserver e2e-run e2e-bench

all: build test

build:
	$(GO) build -trimpath -ldflags "$(LDFLAGS)" -o $(BIN) ./cmd/platc

# Every test, as CI runs it. Plain go test ./... prints "ok" for a
# package whose integration tests skipped; testsum lists each skipped
# test with its reason instead (CI sets PLATC_REQUIRE_* so they fail).
# emit/argo's run of Argo's own validation over every output takes 90 s
# alone and passed go test's 10-minute default only narrowly on a loaded
# machine: 30 minutes per package still stops a hang.
test:
	$(GO) test -json -timeout 30m ./... | $(GO) run ./internal/cmd/testsum

# Benchmarks of parse, compile, every emitter, write and platc build at
# 43, 1,000 and 10,000 apps, BENCHCOUNT runs each (6: the fewest for a 95%
# interval of the median); the raw output goes to
# bin/bench.txt (for benchstat) and a table of medians to the terminal.
# Then the wall time and peak RSS of platc build at each size.
# BENCH=Parse narrows the benchmarks; make bench-rss runs only the second part.
BENCH      ?= .
BENCHCOUNT ?= 6
bench:
	@mkdir -p bin
	$(GO) test -run '^$$' -bench '$(BENCH)' -benchmem -count $(BENCHCOUNT) ./... > bin/bench.txt || { cat bin/bench.txt; exit 1; }
	@$(GO) run ./internal/cmd/benchtab < bin/bench.txt
	@scripts/build-rss.sh

bench-rss:
	@scripts/build-rss.sh

# Static checks on the Go code (gofmt, go vet, staticcheck: pinned and
# built once by scripts/staticcheck.sh, configured in staticcheck.conf),
# then platc's own lint (with the example's manifests scanned) and
# fmt --check on the example.
lint: build
	@out=$$(gofmt -l $$(git ls-files '*.go')); if [ -n "$$out" ]; then echo "gofmt needed:"; echo "$$out"; exit 1; fi
	$(GO) vet ./...
	scripts/staticcheck.sh ./...
	./$(BIN) lint --scan examples/apps examples/platform.hcl
	./$(BIN) fmt --check examples

# A short fuzzing run of the parser's nesting check, the parser and
# compiler, of the health language (Lua and Go agree; the health compiler
# never emits bad Lua), of platc import (no panic, and its result
# compiles) and of the decoder of untrusted YAML (what it accepts expands
# within its alias bound); FUZZTIME=10m for longer.
FUZZTIME ?= 30s
fuzz:
	$(GO) test ./lang -run '^$$' -fuzz FuzzNesting -fuzztime $(FUZZTIME) -fuzzminimizetime 5s
	$(GO) test ./compiler -run '^$$' -fuzz FuzzCompile -fuzztime $(FUZZTIME) -fuzzminimizetime 5s
	$(GO) test ./health -run '^$$' -fuzz FuzzAgreement -fuzztime $(FUZZTIME) -fuzzminimizetime 5s
	$(GO) test ./health -run '^$$' -fuzz FuzzCompile -fuzztime $(FUZZTIME) -fuzzminimizetime 5s
	$(GO) test ./emit -run '^$$' -fuzz FuzzYAML -fuzztime $(FUZZTIME) -fuzzminimizetime 5s
	$(GO) test ./importer -run '^$$' -fuzz FuzzImport -fuzztime $(FUZZTIME) -fuzzminimizetime 5s
	$(GO) test ./internal/safeyaml -run '^$$' -fuzz FuzzAliases -fuzztime $(FUZZTIME) -fuzzminimizetime 5s

# The platform-in-a-box (e2e/, docs/e2e.md): the real control plane,
# Argo CD and Argo Workflows controller on loopback, kwok as the kubelet.
# .ci/e2e/build.sh builds their binaries once into a cache outside the
# repository (cold: about 25 minutes on 2 cores; warm: a second).
E2E_BIN = $(shell .ci/e2e/build.sh)
e2e-tools:
	@.ci/e2e/build.sh

# The scenarios: the example deploys, resumes, scopes and tears down on
# the real components; E2E_RUN narrows them (E2E_RUN=TestExample).
E2E_RUN ?= .
e2e: build e2e-apiserver
	PLATC_E2E=1 PLATC_E2E_BIN="$(E2E_BIN)" $(GO) test ./e2e -count=1 -timeout 80m -v -run '$(E2E_RUN)'

# Every object platc build writes for the 10,000-app synthetic platform,
# created on the real kube-apiserver and etcd with their default request
# limits (emit/all; make test runs 1,000 apps).
e2e-apiserver:
	PLATC_APISERVER_10K=1 PLATC_REQUIRE_APISERVER=1 PLATC_KUBE_APISERVER="$(E2E_BIN)/kube-apiserver" $(GO) test ./emit/all -count=1 -timeout 40m -v -run '^TestSyntheticOnAPIServer$$'

# Any platform through deploy, validate, (with FAIL) fix and resume, and
# teardown; the run's files go to OUT.
#   make e2e-run PLATFORM=examples OUT=/tmp/run [ENV=production] [FAIL=app,...]
# PLATFORM=dir1,dir2,... deploys each later directory as a day-2 change of
# the first on the same environment (deploy-2, deploy-3, ...); PRUNE=true
# passes PRUNE=true to every deploy. CHARTS=dir installs the upstream
# charts of dir (<chart>-<version>.tgz) in place of the stand-ins; build
# it with scripts/e2e-charts.sh from local checkouts of their repositories.
PLATFORM ?= examples
OUT      ?= bin/e2e-run
e2e-run: build
	PLATC_E2E_BIN="$(E2E_BIN)" $(GO) run ./e2e/cmd/e2e-run -platform "$(PLATFORM)" -out "$(OUT)" \
		$(if $(ENV),-env "$(ENV)") $(if $(FAIL),-fail "$(FAIL)") $(if $(filter true,$(PRUNE)),-prune) \
		$(if $(CHARTS),-charts "$(CHARTS)") -platc $(BIN)

# Deploy a 1,000-app synthetic platform (internal/synth) and report wall
# time, the critical path of simulated durations, the orchestration
# overhead, CPU-seconds per app and the peak RSS of the controllers.
# APPS=N deploys N apps instead, PARALLELISM=P with
# platform.workflows.parallelism P (default 20); BENCH_OUT=file.json also
# writes the figures as JSON (wall_seconds, critical_path_seconds,
# CPU-seconds per app, the workflow layout, the largest object and
# Workflow sizes, the API server's requests by verb and resource and its
# watch events by resource). PROFILE=dir takes 30 s CPU profiles of
# kube-apiserver and Argo CD's application controller a minute into the deploy, into
# dir. DIAGNOSE=1 makes it a diagnostic run (requests by client from a
# full audit log, the object updates that requeued apps from Argo CD's
# debug log), whose CPU figures are not comparable with a plain run's.
APPS ?=
PROFILE ?=
DIAGNOSE ?=
PARALLELISM ?=
BENCH_OUT ?=
e2e-bench: build
	PLATC_BENCH_APPS="$(APPS)" PLATC_BENCH_PARALLELISM="$(PARALLELISM)" PLATC_BENCH_OUT="$(abspath $(BENCH_OUT))" PLATC_BENCH_PROFILE="$(abspath $(PROFILE))" PLATC_BENCH_DIAGNOSE="$(DIAGNOSE)" PLATC_E2E=1 PLATC_E2E_BIN="$(E2E_BIN)" $(GO) test ./e2e -run '^$$' -bench BenchmarkDeploy -benchtime 1x -timeout 120m -v

clean:
	rm -rf bin
