# garc — build, test and release targets. Run `make help` for the list.
SHELL     := /bin/bash
GO        ?= go
PKGS      ?= ./...
BIN       ?= bin/garc
FUZZTIME  ?= 10s
BENCHTIME ?= 1x

# Version, commit and date that `garc --version` prints, stamped with
# -ldflags so that they are right with GOFLAGS=-buildvcs=false too.
VERSION   ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo devel)
COMMIT    ?= $(shell git rev-parse --short=12 HEAD 2>/dev/null)
DATE      ?= $(shell TZ=UTC git log -1 --format=%cd --date=format-local:%Y-%m-%dT%H:%M:%SZ 2>/dev/null)
CLIPKG    := github.com/garc-dev/garc/internal/cli
LDFLAGS   := -X $(CLIPKG).Version=$(VERSION) -X $(CLIPKG).Commit=$(COMMIT) -X $(CLIPKG).Date=$(DATE)
MANDIR    ?= man
# honnef.co/go/tools/cmd/staticcheck and golang.org/x/tools/cmd/deadcode,
# from PATH or go install's directory.
STATICCHECK ?= $(shell command -v staticcheck 2>/dev/null || echo $$(go env GOPATH)/bin/staticcheck)
DEADCODE    ?= $(shell command -v deadcode 2>/dev/null || echo $$(go env GOPATH)/bin/deadcode)

.PHONY: help build man completions test test-short bench bench-matrix fuzz lint vet fmt conformance compare release clean cross

help:
	@echo "build        build ./bin/garc (version, commit and date stamped)"
	@echo "man          write the man page, generated from the commands, to $(MANDIR)/garc.1"
	@echo "completions  write bash, zsh, fish and powershell completions to completions/"
	@echo "test         run every test (the command CI runs)"
	@echo "bench        run the benchmarks (BENCHTIME=$(BENCHTIME))"
	@echo "bench-matrix garc against 7zz and each format's tools on eight data classes (BENCH_SIZE, BENCH_DIR)"
	@echo "fuzz         run every Fuzz target for FUZZTIME=$(FUZZTIME)"
	@echo "lint         gofmt check, go vet, staticcheck, and deadcode from ./cmd/garc"
	@echo "conformance  run the shared-corpus conformance harness and print the per-format table"
	@echo "compare      compare garc with 7zz on the standard mixed-data input"
	@echo "release      check the goreleaser configuration"
	@echo "cross        cross-compile for windows and darwin"

build:
	CGO_ENABLED=0 $(GO) build -trimpath -ldflags "$(LDFLAGS)" -o $(BIN) ./cmd/garc

man:
	@mkdir -p $(MANDIR)
	$(GO) run -ldflags "$(LDFLAGS)" ./cmd/garc man > $(MANDIR)/garc.1

completions:
	@mkdir -p completions
	$(GO) run ./cmd/garc completion bash > completions/garc.bash
	$(GO) run ./cmd/garc completion zsh > completions/_garc
	$(GO) run ./cmd/garc completion fish > completions/garc.fish
	$(GO) run ./cmd/garc completion powershell > completions/garc.ps1

# The run's events go through scripts/testsummary, which prints what plain
# `go test` prints and ends with a line counting the skipped tests by reason.
test:
	set -o pipefail; $(GO) test -json -timeout 30m $(PKGS) | $(GO) run ./scripts/testsummary

test-short:
	$(GO) test -short $(PKGS)

bench:
	$(GO) test -run '^$$' -bench . -benchmem -benchtime $(BENCHTIME) $(PKGS)

# garc against 7zz and each format's own tools: data classes × operations,
# a markdown table on stdout and in $BENCH_DIR/matrix.md (scripts/bench-matrix).
bench-matrix:
	./scripts/bench-matrix

# Every Fuzz target, one after the other, each for FUZZTIME.
fuzz:
	@set -e; for pkg in $$($(GO) list $(PKGS)); do \
	  for f in $$($(GO) test -list '^Fuzz' $$pkg 2>/dev/null | grep '^Fuzz' || true); do \
	    echo "== $$pkg $$f"; $(GO) test -run '^$$' -fuzz "^$$f$$" -fuzztime $(FUZZTIME) $$pkg; \
	  done; \
	done

fmt:
	gofmt -w $$(git ls-files '*.go')

lint: vet
	@out=$$(gofmt -l $$(git ls-files '*.go')); if [ -n "$$out" ]; then echo "gofmt needed:"; echo "$$out"; exit 1; fi
	$(STATICCHECK) $(PKGS)
	@out=$$($(DEADCODE) ./cmd/garc); if [ -n "$$out" ]; then echo "functions unreachable from ./cmd/garc:"; echo "$$out"; exit 1; fi

vet:
	$(GO) vet $(PKGS)

conformance:
	@$(GO) test -count=1 -run 'Conformance' -v ./internal/conformance | grep -vE '^[[:space:]]*(=== (RUN|PAUSE|CONT)|--- PASS)'

compare:
	./scripts/compare.sh

cross:
	GOOS=windows GOARCH=amd64 CGO_ENABLED=0 $(GO) build ./...
	GOOS=darwin GOARCH=arm64 CGO_ENABLED=0 $(GO) build ./...
	GOOS=linux GOARCH=arm64 CGO_ENABLED=0 $(GO) build ./...

release:
	$(GO) run github.com/goreleaser/goreleaser/v2@v2.15.1 check

clean:
	rm -rf bin dist $(MANDIR) completions
