# The two commands of the README, and what they need.
#   make demo  — install what is missing, build (release), make the sample store, run the books pipeline
#   make test  — install what is missing, run every test
# Both run as root on a fresh Debian machine with only the Swift toolchain.

SWIFT ?= swift
ROWS ?= 20000
DEMO_STORE := out/books-v1.sqlite

.PHONY: demo test deps build release clean

# apt-get only when a header is missing, so a machine that has them is left alone.
deps:
	@if [ ! -f /usr/include/sqlite3.h ] || [ ! -f /usr/include/zstd.h ]; then \
		echo "installing libsqlite3-dev and libzstd-dev"; \
		apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y libsqlite3-dev libzstd-dev; \
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
	$(SWIFT) build --build-tests
	$(SWIFT) test --skip-build --disable-swift-testing

clean:
	rm -rf .build out
