# weft: the two set-up commands are `make demo` and `make test`.
BUILD ?= build
ASAN_BUILD ?= build-asan
JOBS ?= $(shell nproc 2>/dev/null || echo 2)
CONFORMANCE ?= ../shared/conformance

.PHONY: all deps build demo test unit asan conformance bench clean

all: build

deps:
	@scripts/deps.sh

build: deps
	@cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
	@cmake --build $(BUILD) -j $(JOBS)

demo: build
	$(BUILD)/weft -Q "$$(cat examples/demo.sql)" examples/phone.json

# Every test: unit + end-to-end, then the same suite under ASan+UBSan (with
# LeakSanitizer), then the conformance ratchet.
test: build
	cd $(BUILD) && ctest --output-on-failure -j $(JOBS)
	@$(MAKE) --no-print-directory asan
	scripts/conformance_ratchet.sh $(BUILD)/weft $(CONFORMANCE)

asan: deps
	@CC=clang cmake -S . -B $(ASAN_BUILD) -DCMAKE_BUILD_TYPE=Debug -DWEFT_SANITIZE=ON >/dev/null
	@cmake --build $(ASAN_BUILD) -j $(JOBS)
	cd $(ASAN_BUILD) && ctest --output-on-failure -j $(JOBS)

conformance: build
	scripts/conformance_ratchet.sh $(BUILD)/weft $(CONFORMANCE)

bench: build
	bench/run.sh $(BUILD)

clean:
	rm -rf $(BUILD) $(ASAN_BUILD)
