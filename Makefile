# platc: the targets a contributor and CI need.
GO      ?= go
BIN     := bin/platc
VERSION ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)
LDFLAGS := -X main.version=$(VERSION)

.PHONY: all build test bench lint fuzz clean

all: build test

build:
	$(GO) build -trimpath -ldflags "$(LDFLAGS)" -o $(BIN) ./cmd/platc

test:
	$(GO) test ./...

# Benchmarks print a table of time and allocations per operation.
bench:
	$(GO) test -run '^$$' -bench . -benchmem ./...

# Static checks on the Go code, then platc's own lint (with the example's
# manifests scanned) and fmt --check on the example.
lint: build
	@out=$$(gofmt -l $$(git ls-files '*.go')); if [ -n "$$out" ]; then echo "gofmt needed:"; echo "$$out"; exit 1; fi
	$(GO) vet ./...
	./$(BIN) lint --scan examples/apps examples/platform.hcl
	./$(BIN) fmt --check examples

# A short fuzzing run of the parser and compiler, and of the health
# language (Lua and Go agree; the health compiler never emits bad Lua);
# FUZZTIME=10m for longer.
FUZZTIME ?= 30s
fuzz:
	$(GO) test ./compiler -run '^$$' -fuzz FuzzCompile -fuzztime $(FUZZTIME) -fuzzminimizetime 5s
	$(GO) test ./health -run '^$$' -fuzz FuzzAgreement -fuzztime $(FUZZTIME) -fuzzminimizetime 5s
	$(GO) test ./health -run '^$$' -fuzz FuzzCompile -fuzztime $(FUZZTIME) -fuzzminimizetime 5s

clean:
	rm -rf bin
