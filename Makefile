# evtool — see README.md.
GO      ?= go
PYTHON  ?= python3
FUZZTIME ?= 60s

.PHONY: all build test test-beam check bench compare compare-targets instructions sameout fuzz fmt vet acp-measure bench-view bench-sessions bench-mixed screenshots types

all: build

# The version is stamped from git describe; a binary built otherwise reads
# its version from the build information (evtool --version).
VERSION ?= $(shell git describe --tags --always --dirty 2>/dev/null)
build:
	$(GO) build -ldflags "-X github.com/evtool/evtool/cli.version=$(VERSION)" -o bin/evtool ./cmd/evtool

# The test command CI runs: formatting, vet, and every test, including the
# python-jsonschema cross-check of the published schemas and a real ACP
# client (the official TypeScript SDK, installed from clients/acp's lock file).
test: check clients/acp/node_modules
	EVTOOL_PYTHON=$(PYTHON) $(GO) test ./...

clients/acp/node_modules: clients/acp/package-lock.json
	npm ci --prefix clients/acp --no-audit --no-fund
	@touch $@

# The ajv differential (internal/testkit/ajvdiff): ajv's draft 2020-12 build, pinned
# in its lock file, judges every line of every test stream against every
# schema/*.schema.json and must agree with evtool.
test: internal/testkit/ajvdiff/testdata/node_modules

internal/testkit/ajvdiff/testdata/node_modules: internal/testkit/ajvdiff/testdata/package-lock.json
	npm ci --prefix internal/testkit/ajvdiff/testdata --no-audit --no-fund
	@touch $@

# The ccusage differential (internal/testkit/ccusagediff): ccusage 20.0.24's native
# binary, pinned in its lock file, runs offline beside evtool's usage
# reports. npm install, not npm ci: the registry has only the linux-x64
# binary of the six platform packages the lock lists, which npm ci refuses;
# npm install follows the lock and leaves it unchanged.
test: internal/testkit/ccusagediff/node_modules

internal/testkit/ccusagediff/node_modules: internal/testkit/ccusagediff/package-lock.json
	npm install --prefix internal/testkit/ccusagediff --no-audit --no-fund
	@touch $@

# The TypeScript declarations of the published schemas (schema/types, see
# docs/schemas.md): json-schema-to-typescript makes them, and
# internal/testkit/tsdecl checks that they are current and compile under
# tsc --strict with a program over every test stream. Both tools are
# pinned in its lock file; the package they make has no dependencies.
types: internal/testkit/tsdecl/testdata/node_modules
	node internal/testkit/tsdecl/testdata/gen.mjs schema schema/types

test: internal/testkit/tsdecl/testdata/node_modules

internal/testkit/tsdecl/testdata/node_modules: internal/testkit/tsdecl/testdata/package-lock.json
	npm ci --prefix internal/testkit/tsdecl/testdata --no-audit --no-fund
	@touch $@

# The Beam module's tests (beam/, a module of its own; docs/scale.md): the
# transforms on Prism, Beam's embedded runner, against the command line on
# the same runs. Apart from make test, whose five minutes they would break:
# a first run downloads the Beam SDK's modules (about 1.3 GB) and builds
# them (5-10 minutes on 2 cores); once cached, 2-3 minutes. .ci/run runs
# both. gofmt and goimports of make check cover beam/ already.
test-beam:
	cd beam && $(GO) vet ./... && $(STATICCHECK) ./... && $(GO) test ./...

# goimports and staticcheck at pinned versions, built from the module
# proxy on first use (about a minute, then cached).
GOIMPORTS   ?= $(GO) run golang.org/x/tools/cmd/goimports@v0.53.0
STATICCHECK ?= $(GO) run honnef.co/go/tools/cmd/staticcheck@v0.8.2
GOCYCLO     ?= $(GO) run github.com/fzipp/gocyclo/cmd/gocyclo@v0.6.0

# The shape issue 22 set: no function above a cyclomatic complexity of 40
# but the schema interpreter's (internal/schemacheck) and generated code's,
# and no file above 800 lines but generated ones.
CYCLO_EXEMPT = internal/schemacheck/|_gen\.go$$

check:
	@out=$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go')); \
	  if [ -n "$$out" ]; then echo "gofmt would change:"; echo "$$out"; exit 1; fi
	@out=$$($(GOIMPORTS) -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go')); \
	  if [ -n "$$out" ]; then echo "goimports would change:"; echo "$$out"; exit 1; fi
	$(GO) vet ./...
	$(STATICCHECK) ./...
	@out=$$($(GOCYCLO) -over 40 -ignore '$(CYCLO_EXEMPT)' .); \
	  if [ -n "$$out" ]; then echo "functions above a complexity of 40:"; echo "$$out"; exit 1; fi
	@out=$$(git ls-files '*.go' | xargs grep -L '^// Code generated' | xargs wc -l | awk '$$2 != "total" && $$1 > 800'); \
	  if [ -n "$$out" ]; then echo "files above 800 lines:"; echo "$$out"; exit 1; fi

# Throughput and allocation figures on generated streams (internal/testkit/streamgen);
# see docs/performance.md. About 3–4 minutes on 2 cores.
BENCH ?= .
bench:
	$(GO) test -run '^$$' -bench '$(BENCH)' -benchmem -count 3 ./ndjson/ ./stream/ ./adapters/ ./validate/ ./convert/ ./internal/jsonobj/

# evtool side by side with ajv and jq, every dialect in three shapes
# (large, small, captures; bench/compare.sh; needs Node.js, npm and jq).
# SIZE_MB, RUNS, DIALECTS, SHAPES, KEEP and EXTRA=1 pass through; with the
# defaults it takes hours on two cores (docs/performance.md).
compare:
	bench/compare.sh

# Peak memory of convert from every dialect to every dialect against the
# allowance of 64 MiB + 2x the longest line (bench/targets.sh).
compare-targets:
	bench/targets.sh

# Instructions executed by validate and convert on a generated 10 MB basis
# stream, counted by valgrind (bench/instructions.sh): a measure of work
# that repeats from run to run where wall time does not. BINS="old new"
# compares two evtool binaries.
instructions:
	bench/instructions.sh $(BINS)

# Two evtool binaries over every test stream and shared capture: validate
# and convert to every dialect, stdout, stderr and exit status compared
# (bench/sameout.sh). A refactoring must show no difference:
#   make sameout OLD=/tmp/evtool-before NEW=bin/evtool
sameout:
	bench/sameout.sh $(OLD) $(NEW)

# A generated recording of at least 200 MB replayed under both official ACP
# SDKs: initialize latency, evtool's peak RSS, the longest message
# (clients/measure.sh; needs Node.js). MB and DIALECT choose the recording.
acp-measure: clients/acp/node_modules
	clients/measure.sh $(or $(MB),210) $(or $(DIALECT),basis)

# Long fuzzing runs, one target after another: every dialect's kit
# (dialecttest.Fuzz, FuzzRoundTrip in adapters/*/kit_test.go), then the rest.
fuzz:
	for d in adapters/*/; do if [ -f $$d/kit_test.go ]; then $(GO) test -run '^$$' -fuzz FuzzRoundTrip -fuzztime $(FUZZTIME) ./$$d || exit 1; fi; done
	$(GO) test -run '^$$' -fuzz FuzzInvariants -fuzztime $(FUZZTIME) ./adapters/acp/
	$(GO) test -run '^$$' -fuzz FuzzStream -fuzztime $(FUZZTIME) ./validate/
	$(GO) test -run '^$$' -fuzz FuzzConvert -fuzztime $(FUZZTIME) ./convert/
	$(GO) test -run '^$$' -fuzz FuzzCheck -fuzztime $(FUZZTIME) ./ndjson/
	$(GO) test -run '^$$' -fuzz FuzzUTF8 -fuzztime $(FUZZTIME) ./ndjson/
	$(GO) test -run '^$$' -fuzz FuzzForEach -fuzztime $(FUZZTIME) ./internal/jsonobj/
	$(GO) test -run '^$$' -fuzz FuzzString -fuzztime $(FUZZTIME) ./internal/jsonenc/
	$(GO) test -run '^$$' -fuzz FuzzFastAgreesWithEngine -fuzztime $(FUZZTIME) ./stream/
	$(GO) test -run '^$$' -fuzz FuzzReader -fuzztime $(FUZZTIME) ./stream/
	$(GO) test -run '^$$' -fuzz FuzzOneVerdict -fuzztime $(FUZZTIME) -fuzzminimizetime 5s ./cmd/evtool/

# Sessions on disk and usage reports beside ccusage (bench/sessions.sh): a
# generated 4 GB history of 750 Claude Code transcripts and one 700 MB file.
bench-sessions: internal/testkit/ccusagediff/node_modules
	bench/sessions.sh $(DIR)

# The daily report over a 10 GB history of three agents, beside ccusage.
bench-mixed: internal/testkit/ccusagediff/node_modules
	bench/mixed.sh $(DIR)

# evtool view: the 10,000-turn run's page, its load and "show all" in headless Chromium.
bench-view:
	$(GO) test ./view -run '^$$' -bench View -benchtime 3x

# The README's screenshots of evtool view (needs chromium and ../shared).
screenshots:
	$(GO) test ./view -run 'Browser(Streams|Pages)' -update-screenshots

fmt:
	gofmt -w $$(git ls-files '*.go')
