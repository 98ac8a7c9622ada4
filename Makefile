# platc: the targets a contributor and CI need.
GO      ?= go
BIN     := bin/platc
VERSION ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)
LDFLAGS := -X main.version=$(VERSION)

.PHONY: all build test bench bench-rss lint fuzz clean

all: build test

build:
	$(GO) build -trimpath -ldflags "$(LDFLAGS)" -o $(BIN) ./cmd/platc

test:
	$(GO) test ./...

# Benchmarks of parse, compile, every emitter, write and platc build at
# 43, 1,000 and 10,000 apps, BENCHCOUNT runs each; the raw output goes to
# bin/bench.txt (for benchstat) and a table of medians to the terminal.
# Then the wall time and peak RSS of platc build at each size.
# BENCH=Parse narrows the benchmarks; make bench-rss runs only the second part.
BENCH      ?= .
BENCHCOUNT ?= 5
bench:
	@mkdir -p bin
	$(GO) test -run '^$$' -bench '$(BENCH)' -benchmem -count $(BENCHCOUNT) ./... > bin/bench.txt || { cat bin/bench.txt; exit 1; }
	@$(GO) run ./internal/cmd/benchtab < bin/bench.txt
	@scripts/build-rss.sh

bench-rss:
	@scripts/build-rss.sh

# Static checks on the Go code, then platc's own lint (with the example's
# manifests scanned) and fmt --check on the example.
lint: build
	@out=$$(gofmt -l $$(git ls-files '*.go')); if [ -n "$$out" ]; then echo "gofmt needed:"; echo "$$out"; exit 1; fi
	$(GO) vet ./...
	./$(BIN) lint --scan examples/apps examples/platform.hcl
	./$(BIN) fmt --check examples

# A short fuzzing run of the parser's nesting check, the parser and
# compiler, and of the health
# language (Lua and Go agree; the health compiler never emits bad Lua);
# FUZZTIME=10m for longer.
FUZZTIME ?= 30s
fuzz:
	$(GO) test ./lang -run '^$$' -fuzz FuzzNesting -fuzztime $(FUZZTIME) -fuzzminimizetime 5s
	$(GO) test ./compiler -run '^$$' -fuzz FuzzCompile -fuzztime $(FUZZTIME) -fuzzminimizetime 5s
	$(GO) test ./health -run '^$$' -fuzz FuzzAgreement -fuzztime $(FUZZTIME) -fuzzminimizetime 5s
	$(GO) test ./health -run '^$$' -fuzz FuzzCompile -fuzztime $(FUZZTIME) -fuzzminimizetime 5s
	$(GO) test ./emit -run '^$$' -fuzz FuzzYAML -fuzztime $(FUZZTIME) -fuzzminimizetime 5s

clean:
	rm -rf bin
