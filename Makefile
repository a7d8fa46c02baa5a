# The two commands of the README, and what they need.
#   make demo  — install what is missing, build (release), make the sample store, run the books pipeline
#   make test  — install what is missing, run every test
# Both run as root on a fresh Debian machine with only the Swift toolchain.

SWIFT ?= swift
# bash: release-check reads the build's exit status through a pipe (PIPESTATUS).
SHELL := /bin/bash
ROWS ?= 20000
DEMO_STORE := out/books-v1.sqlite

.PHONY: demo test test-fast deps build release clean

# apt-get only when a header is missing, so a machine that has them is left alone.
deps:
	@if [ ! -f /usr/include/sqlite3.h ] || [ ! -f /usr/include/zstd.h ] || [ ! -f /usr/include/zlib.h ]; then \
		echo "installing libsqlite3-dev, libzstd-dev and zlib1g-dev"; \
		apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y libsqlite3-dev libzstd-dev zlib1g-dev; \
	fi
	@# man -l for DistTests' check of the generated man page (issue 46): a test that would skip without it
	@if ! command -v man >/dev/null 2>&1 || ! command -v groff >/dev/null 2>&1; then \
		echo "installing man-db and groff-base"; \
		apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y man-db groff-base; \
	fi

build: deps
	$(SWIFT) build

release: deps
	$(SWIFT) build -c release

demo: release
	@mkdir -p out
	.build/release/etl sample books --version 1 --rows $(ROWS) --seed 1 --out $(DEMO_STORE) --force
	.build/release/etl run pipelines/books.json --source $(DEMO_STORE) --force

test: deps
	python3 scripts/engine-layers.py
	python3 -m unittest discover -s Benchmarks/tests
	$(SWIFT) build --build-tests
	$(SWIFT) test --skip-build --disable-swift-testing

# The unit level alone: one target per module (Package.swift), in seconds. `make test` runs
# it too, with the end-to-end targets (ETLMigrationTests: whole migrations, resumes, damaged
# stores; etlTests: the executable, kills, batches).
UNIT_TARGETS = ETLStoreTests|ETLDocumentTests|ETLModelTests|ETLExpressionTests|ETLCoreDataTests|ETLPipelineTests|ETLEngineTests|ETLBatchTests|ETLCommandLineTests
test-fast: deps
	python3 scripts/engine-layers.py
	$(SWIFT) build --build-tests
	$(SWIFT) test --skip-build --disable-swift-testing --filter '^($(UNIT_TARGETS))\.'

clean:
	rm -rf .build .build-dist .build-tools out dist

# The release archive (issue 46), and installing it.
#   make dist                    dist/etl-VERSION-linux-ARCH.tar.gz: bin/etl, share/man/man1/etl.1 and the
#                                shell completions (bash, zsh, fish), as `make install` lays them out
#   make install PREFIX=/opt/etl the same files under PREFIX (default /usr/local)
#   make release-check           a release build of every product, failing on any compiler warning (.ci/run)
#
# The Swift runtime and Foundation are linked in (--static-swift-stdlib), and so is libxml2
# (FoundationXML reads Xcode's model and mapping files) with the ICU and lzma it needs: the
# binary needs only libc, libm, libstdc++, libgcc_s, SQLite, zstd and zlib (docs/deploy.md).
VERSION = $(shell sed -n 's/.*ETLVersion { public static let current = "\(.*\)" }.*/\1/p' Sources/ETLEngine/Core/Version.swift)
ARCH := $(shell uname -m)
MULTIARCH := $(ARCH)-linux-gnu
DIST_NAME = etl-$(VERSION)-linux-$(ARCH)
PREFIX ?= /usr/local
STATIC_LIBS = $(BUILD_DIR)/static-libs
# Only archives in this folder: ld takes -lxml2 from here, not the shared library beside the
# archive. ld searches the -L folders in order, and SwiftPM puts the ones of the pkg-config
# files (-L/usr/lib/ARCH for SQLite, zstd, zlib) first: their .pc files are read from a copy
# without -L (the default search finds their shared libraries all the same).
STATIC_LINK = --static-swift-stdlib --pkg-config-path $(CURDIR)/$(STATIC_LIBS)/pkgconfig \
	-Xlinker -L$(CURDIR)/$(STATIC_LIBS) \
	-Xlinker -lxml2 -Xlinker -licuuc -Xlinker -licudata -Xlinker -llzma -Xlinker -lz
# SCRATCH=DIR builds in DIR instead of .build (the dist test: `swift test` holds .build's lock).
SCRATCH ?=
BUILD_DIR = $(or $(SCRATCH),.build)
SWIFT_PATHS = $(if $(SCRATCH),--scratch-path $(SCRATCH))
MAN_PAGE = $(BUILD_DIR)/man/etl.1

.PHONY: dist install install-files release-check static-libs man

static-libs: deps
	@if [ ! -f /usr/lib/$(MULTIARCH)/libxml2.a ] || [ ! -f /usr/lib/$(MULTIARCH)/libicuuc.a ] || [ ! -f /usr/lib/$(MULTIARCH)/liblzma.a ]; then \
		echo "installing libxml2-dev, libicu-dev and liblzma-dev (their static archives)"; \
		apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y libxml2-dev libicu-dev liblzma-dev; \
	fi
	@mkdir -p $(STATIC_LIBS)/pkgconfig
	@for lib in xml2 icuuc icudata lzma; do ln -sf /usr/lib/$(MULTIARCH)/lib$$lib.a $(STATIC_LIBS)/lib$$lib.a; done
	@for pc in sqlite3 libzstd zlib; do \
		sed -e 's/-L$${libdir}//' -e 's/-L$${sharedlibdir}//' /usr/lib/$(MULTIARCH)/pkgconfig/$$pc.pc > $(STATIC_LIBS)/pkgconfig/$$pc.pc; \
	done

# The release build `make dist` packs, and every other program's, so that every file is
# compiled and its warnings shown (on a fresh clone: .ci/run runs this before `make test`,
# whose dist test then reuses the build). Product by product: `swift build -c release` of
# everything would build ETLTestSupport too, which imports XCTest, which the static Swift
# libraries (--static-swift-stdlib compiles against them) do not have.
# The linker's note on mktemp comes from Foundation's own archive.
RELEASE_PRODUCTS = etl post-sections car-makers etl-bench-closure
release-check: static-libs
	@rm -f $(BUILD_DIR)/release-build.log
	@for product in $(RELEASE_PRODUCTS); do \
		$(SWIFT) build -c release $(SWIFT_PATHS) --product $$product $(STATIC_LINK) 2>&1 | tee -a $(BUILD_DIR)/release-build.log; \
		status=$${PIPESTATUS[0]}; [ $$status -eq 0 ] || exit $$status; \
	done
	@warnings=$$(grep 'warning:' $(BUILD_DIR)/release-build.log | grep -v "the use of \`mktemp' is dangerous" | sort -u); \
	if [ -n "$$warnings" ]; then echo "$$warnings"; echo "release build: $$(echo "$$warnings" | wc -l) compiler warning(s)"; exit 1; fi; \
	echo "release build: no compiler warning"

# The man page, from the command definitions: swift-argument-parser's manual generator (the
# `generate-manual` tool its plugin runs, built on its own, in a folder of its own) asks the
# built etl for them (--experimental-dump-help). Blank lines become mdoc paragraphs.
TOOLS_DIR = .build-tools
man:
	$(SWIFT) build --scratch-path $(TOOLS_DIR) --product generate-manual
	@mkdir -p $(dir $(MAN_PAGE))
	set -o pipefail; $(TOOLS_DIR)/debug/generate-manual $(BUILD_DIR)/release/etl --authors "the etl authors" -o - \
		| sed 's/^$$/.Pp/' > $(MAN_PAGE)

dist: static-libs
	$(SWIFT) build -c release $(SWIFT_PATHS) --product etl $(STATIC_LINK)
	$(MAKE) --no-print-directory man
	@rm -rf dist/$(DIST_NAME) && mkdir -p dist/$(DIST_NAME)
	$(MAKE) --no-print-directory install-files ETL_BINARY=$(BUILD_DIR)/release/etl MAN_PAGE=$(MAN_PAGE) PREFIX=$(CURDIR)/dist/$(DIST_NAME)
	tar -C dist -czf dist/$(DIST_NAME).tar.gz $(DIST_NAME)
	@rm -rf dist/$(DIST_NAME)
	@echo "dist/$(DIST_NAME).tar.gz"

# The archive's files, as they are in it, under PREFIX.
install: dist
	@rm -rf $(BUILD_DIR)/install && mkdir -p $(BUILD_DIR)/install
	tar -C $(BUILD_DIR)/install -xzf dist/$(DIST_NAME).tar.gz
	install -d $(PREFIX)
	cp -R $(BUILD_DIR)/install/$(DIST_NAME)/. $(PREFIX)/
	@echo "installed $(PREFIX)/bin/etl, its man page and completions"

# The layout of an install (and of the archive): the binary, the man page, and each shell's
# completions where that shell looks under PREFIX.
install-files:
	install -d $(PREFIX)/bin $(PREFIX)/share/man/man1 $(PREFIX)/share/bash-completion/completions \
		$(PREFIX)/share/zsh/site-functions $(PREFIX)/share/fish/vendor_completions.d
	install -m 755 $(ETL_BINARY) $(PREFIX)/bin/etl
	install -m 644 $(MAN_PAGE) $(PREFIX)/share/man/man1/etl.1
	$(ETL_BINARY) --generate-completion-script bash > $(PREFIX)/share/bash-completion/completions/etl
	$(ETL_BINARY) --generate-completion-script zsh > $(PREFIX)/share/zsh/site-functions/_etl
	$(ETL_BINARY) --generate-completion-script fish > $(PREFIX)/share/fish/vendor_completions.d/etl.fish

# Benchmarks (issue 6): the books v1 → v2 step by the sqlite3 CLI (one SQL script), a
# Python script, etl run and etl-bench-closure (etl plus a Swift policy), timed,
# memory-measured and checked against each other. `swift build -c release` builds every
# product, etl-bench-closure too; run.py takes it from beside --etl. Also (issue 18) the
# whole books pipeline (v1 → v3) and a conversion of text values, each etl against a
# hand-written SQL script.
#   make bench ROWS=1000000                        one size (default "100000 1000000")
#   make bench SIZES="100000 1000000 5000000" ROUNDS=3
#   make bench-smoke     2,000 books, one round, in a temp folder: do all tools agree? (< 1 min)
#   make bench-report    Benchmarks/RESULTS.md and results.png again from results.json
#   make bench-scale ROWS=50000000   (a) sqlite3 and (c) etl alone, one round (ROUNDS=N for more),
#                        kept in Benchmarks/scale.json (issue 18); RESULTS.md and results.png again
# Writes Benchmarks/RESULTS.md, results.json, results.png (bench-scale: scale.json); the stores
# go to out/bench.
ROUNDS ?= 3
BENCH_PYTHON ?= python3
# ROWS and ROUNDS have defaults of their own (the demo's, make bench's): used here only when given.
given = $(filter command line environment environment override,$(origin $(1)))
BENCH_SIZES = $(or $(SIZES),$(if $(call given,ROWS),$(ROWS),100000 1000000))

SCALE_ROWS = $(if $(call given,ROWS),$(ROWS),50000000)
SCALE_ROUNDS = $(if $(call given,ROUNDS),$(ROUNDS),1)

.PHONY: bench bench-smoke bench-report bench-scale bench-deps bench-plot-deps

# The sqlite3 CLI and GNU time (/usr/bin/time -v) from apt, only when missing.
bench-deps:
	@if ! command -v sqlite3 >/dev/null 2>&1 || [ ! -x /usr/bin/time ]; then \
		echo "installing sqlite3 and time"; \
		apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y sqlite3 time; \
	fi

# matplotlib for results.png; without it the report says there is no plot.
bench-plot-deps:
	@$(BENCH_PYTHON) -c 'import matplotlib' 2>/dev/null || $(BENCH_PYTHON) -m pip install --quiet matplotlib \
		|| echo "matplotlib could not be installed: no plot"

bench: deps bench-deps bench-plot-deps
	$(SWIFT) build -c release
	BENCH_COMMAND='make bench SIZES="$(BENCH_SIZES)" ROUNDS=$(ROUNDS)' \
		$(BENCH_PYTHON) Benchmarks/run.py run --etl .build/release/etl --sizes $(BENCH_SIZES) --rounds $(ROUNDS)

bench-smoke: deps bench-deps
	$(SWIFT) build -c release
	$(BENCH_PYTHON) Benchmarks/run.py smoke --etl .build/release/etl

bench-report:
	$(BENCH_PYTHON) Benchmarks/run.py report

bench-scale: deps bench-deps bench-plot-deps
	$(SWIFT) build -c release
	BENCH_COMMAND='make bench-scale ROWS=$(SCALE_ROWS) ROUNDS=$(SCALE_ROUNDS)' \
		$(BENCH_PYTHON) Benchmarks/run.py scale --etl .build/release/etl --rows $(SCALE_ROWS) --rounds $(SCALE_ROUNDS)

# Hardening (sanitizers and hostile source stores).
#   make test-tsan          ThreadSanitizer over the engine's concurrent tests (own build folder .build-tsan)
#   make test-asan          AddressSanitizer over the store, zstd and JSON parser tests (.build-asan)
#   make fuzz-stores N=5000 N mutated source stores (flipped bytes, truncations, lying headers and
#                           schemas, views, damaged WALs) through `etl run`: counts of successes, clear
#                           errors, crashes and timeouts; the bad ones are kept in out/fuzz-stores
.PHONY: test-tsan test-asan fuzz-stores

test-tsan: deps
	$(SWIFT) test --sanitize=thread --scratch-path .build-tsan --disable-swift-testing \
		--filter 'ChunkPipelineTests|DeterminismTests|ResumeTests|AheadWorkTests'

# Leaks are not checked by default: at exit LeakSanitizer reports only XCTest's own test-case
# objects (one direct 32-byte leak in XCTest's awaitUsingExpectation, everything else hanging
# off it), nothing of ETL, SQLite or zstd. ASAN_OPTIONS=detect_leaks=1 shows them.
ASAN_OPTIONS ?= detect_leaks=0
test-asan: deps
	ASAN_OPTIONS=$(ASAN_OPTIONS) $(SWIFT) test --sanitize=address --scratch-path .build-asan --disable-swift-testing \
		--filter 'ETLStoreTests|ZstdTests|JSONParserTests'

fuzz-stores: build
	python3 scripts/fuzz-stores.py --etl .build/debug/etl --count $(or $(N),1000) --seed $(or $(SEED),1) \
		$(if $(JOBS),--jobs $(JOBS))

# make fuzz-pipelines SECONDS=60: libFuzzer + ASan on the pipeline decoder/planner and the expression
# compiler/evaluator (Fuzz/ package), SECONDS per target; findings in out/fuzz-pipelines
.PHONY: fuzz-pipelines
fuzz-pipelines:
	scripts/fuzz-pipelines.sh $(or $(SECONDS),60)

# make fuzz-archives SECONDS=60: the same on the binary property list + keyed archive readers
# (archived expressions and models, a store's Z_PLIST) and on mapping-model XML; an input over 2 s is a finding
.PHONY: fuzz-archives
fuzz-archives:
	TARGETS="PropertyListFuzzer:plists MappingModelFuzzer:mappings" TIMEOUT=2 scripts/fuzz-pipelines.sh $(or $(SECONDS),60)

# make fuzz-wal SECONDS=60: the same on a source's -wal check (WALCheck: frames, salts, page
# numbers, commits as SQLite's recovery reads them); seeds in Fuzz/corpus/wal
.PHONY: fuzz-wal
fuzz-wal:
	TARGETS="WALFuzzer:wal" TIMEOUT=2 scripts/fuzz-pipelines.sh $(or $(SECONDS),60)

# make fuzz-keptmodels SECONDS=60: the same on the model a Core Data store keeps (Z_MODELCACHE: read,
# hashed, written as XML; issue 45); an input over 2 s is a finding
.PHONY: fuzz-keptmodels
fuzz-keptmodels:
	TARGETS="KeptModelFuzzer:keptmodels" TIMEOUT=2 scripts/fuzz-pipelines.sh $(or $(SECONDS),60)
