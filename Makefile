# Builds the release engine and copies it to $(EXE), as OpenBench expects
# (`make EXE=<name>`, run in the repository root). OpenBench may also pass
# CC or CXX; a Rust build uses neither.
#
# `make release` writes the binaries a user downloads into dist/: statically
# linked x86-64 Linux builds named with the version and the CPU level,
# `sessa-<version>-linux-x86-64` (any x86-64 CPU) and
# `sessa-<version>-linux-x86-64-v3` (AVX2, BMI2 and friends compiled in:
# Intel Haswell, AMD Zen and later).

EXE ?= sessa
CARGO ?= cargo
TARGET_DIR ?= $(or $(CARGO_TARGET_DIR),target)
DIST ?= dist
VERSION := $(shell sed -n 's/^version = "\(.*\)"/\1/p' Cargo.toml | head -n 1)
LINUX_TARGET := x86_64-unknown-linux-gnu
# Static glibc; RUSTFLAGS replaces .cargo/config.toml's CPU level.
STATIC_FLAGS := -C target-feature=+crt-static -C strip=symbols

ifeq ($(OS),Windows_NT)
    BINARY := $(TARGET_DIR)/release/sessa.exe
else
    BINARY := $(TARGET_DIR)/release/sessa
endif

.PHONY: all release

all:
	$(CARGO) build --release --bin sessa
	cp $(BINARY) $(EXE)

release: $(DIST)/sessa-$(VERSION)-linux-x86-64 $(DIST)/sessa-$(VERSION)-linux-x86-64-v3

$(DIST)/sessa-$(VERSION)-linux-%: FORCE
	mkdir -p $(DIST)
	RUSTFLAGS="-C target-cpu=$* $(STATIC_FLAGS)" $(CARGO) build --release --bin sessa \
		--target $(LINUX_TARGET) --target-dir $(TARGET_DIR)/dist-$*
	cp $(TARGET_DIR)/dist-$*/$(LINUX_TARGET)/release/sessa $@

.PHONY: FORCE
FORCE:
