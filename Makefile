# Builds the release engine and copies it to $(EXE), as OpenBench expects
# (`make EXE=<name>`, run in the repository root). OpenBench may also pass
# CC or CXX; a Rust build uses neither.
#
# `make release` writes the binaries a user downloads into dist/, named with
# the version, the system and the CPU level, and their SHA-256 sums
# (dist/SHA256SUMS):
#   sessa-<version>-linux-x86-64          any x86-64 CPU, static
#   sessa-<version>-linux-x86-64-v3       AVX2, BMI2 and friends compiled in
#                                         (Intel Haswell, AMD Zen and later)
#   sessa-<version>-windows-x86-64.exe    the same two levels for Windows
#   sessa-<version>-windows-x86-64-v3.exe
#   sessa-<version>-linux-aarch64         64-bit ARM (Raspberry Pi), static
#
# A target whose standard library is installed for $(RUSTC) (`rustup target
# add ...`) is built with $(CARGO). Otherwise Debian's Rust builds the
# standard library from source (packages rustc-web, cargo-web, rust-web-src,
# called by full path as rustup's come first on the PATH) and links with the
# cross compilers (gcc-mingw-w64-x86-64, gcc-aarch64-linux-gnu).

EXE ?= sessa
CARGO ?= cargo
RUSTC ?= rustc
DEBIAN_CARGO ?= /usr/bin/cargo
DEBIAN_RUSTC ?= /usr/bin/rustc
TARGET_DIR ?= $(or $(CARGO_TARGET_DIR),target)
DIST ?= dist
VERSION := $(shell sed -n 's/^version = "\(.*\)"/\1/p' Cargo.toml | head -n 1)
LINUX_TARGET := x86_64-unknown-linux-gnu
WINDOWS_TARGET := x86_64-pc-windows-gnu
ARM_TARGET := aarch64-unknown-linux-gnu
# RUSTFLAGS replaces .cargo/config.toml's CPU level.
STRIP_FLAGS := -C strip=symbols
# Static glibc.
STATIC_FLAGS := -C target-feature=+crt-static $(STRIP_FLAGS)
# A cross build for 64-bit ARM links with the cross GCC where there is one.
ARM_LINKER ?= $(shell command -v aarch64-linux-gnu-gcc)
export CARGO_TARGET_AARCH64_UNKNOWN_LINUX_GNU_LINKER ?= $(or $(ARM_LINKER),cc)
# Elsewhere than on 64-bit ARM, its tests run under qemu.
ARM_RUNNER ?= $(if $(filter aarch64 arm64,$(shell uname -m)),env,qemu-aarch64)

ifeq ($(OS),Windows_NT)
    BINARY := $(TARGET_DIR)/release/sessa.exe
else
    BINARY := $(TARGET_DIR)/release/sessa
endif

# Whether $(RUSTC) has the standard library of target $(1).
has_std = $(wildcard $(shell $(RUSTC) --print target-libdir --target $(1) 2>/dev/null)/libstd-*.rlib)

# $(call cross_cargo,target,rustflags,cargo arguments): cargo for a target,
# with the installed standard library or else with Debian's Rust.
define cross_cargo
	$(if $(call has_std,$(1)),\
	RUSTFLAGS="$(2)" $(CARGO) $(3),\
	@test -x $(DEBIAN_CARGO) && test -x $(DEBIAN_RUSTC) || { echo "make: no standard library for $(1) (rustup target add $(1)), nor Debian's Rust (apt-get install rustc-web cargo-web rust-web-src)" >&2; exit 1; }
	RUSTC_BOOTSTRAP=1 RUSTC=$(DEBIAN_RUSTC) RUSTFLAGS="$(2)" \
		$(DEBIAN_CARGO) -Z build-std=std,panic_abort $(3))
endef

RELEASE_FILES := \
	sessa-$(VERSION)-linux-x86-64 \
	sessa-$(VERSION)-linux-x86-64-v3 \
	sessa-$(VERSION)-windows-x86-64.exe \
	sessa-$(VERSION)-windows-x86-64-v3.exe \
	sessa-$(VERSION)-linux-aarch64

.PHONY: all release test-aarch64

all:
	$(CARGO) build --release --bin sessa
	cp $(BINARY) $(EXE)

release: $(addprefix $(DIST)/,$(RELEASE_FILES))
	cd $(DIST) && sha256sum $(RELEASE_FILES) > SHA256SUMS

$(DIST)/sessa-$(VERSION)-linux-x86-64 $(DIST)/sessa-$(VERSION)-linux-x86-64-v3: $(DIST)/sessa-$(VERSION)-linux-%: FORCE
	mkdir -p $(DIST)
	RUSTFLAGS="-C target-cpu=$* $(STATIC_FLAGS)" $(CARGO) build --release --bin sessa \
		--target $(LINUX_TARGET) --target-dir $(TARGET_DIR)/dist-$*
	cp $(TARGET_DIR)/dist-$*/$(LINUX_TARGET)/release/sessa $@

$(DIST)/sessa-$(VERSION)-windows-%.exe: FORCE
	mkdir -p $(DIST)
	$(call cross_cargo,$(WINDOWS_TARGET),-C target-cpu=$* $(STRIP_FLAGS),build --release --bin sessa \
		--target $(WINDOWS_TARGET) --target-dir $(TARGET_DIR)/dist-windows-$*)
	cp $(TARGET_DIR)/dist-windows-$*/$(WINDOWS_TARGET)/release/sessa.exe $@

$(DIST)/sessa-$(VERSION)-linux-aarch64: FORCE
	mkdir -p $(DIST)
	$(call cross_cargo,$(ARM_TARGET),$(STATIC_FLAGS),build --release --bin sessa \
		--target $(ARM_TARGET) --target-dir $(TARGET_DIR)/dist-aarch64)
	cp $(TARGET_DIR)/dist-aarch64/$(ARM_TARGET)/release/sessa $@

# The network kernels' tests for 64-bit ARM (NEON against the portable
# kernel), statically linked so that qemu needs no ARM system libraries.
test-aarch64: export CARGO_TARGET_AARCH64_UNKNOWN_LINUX_GNU_RUNNER = $(ARM_RUNNER)
test-aarch64:
	$(call cross_cargo,$(ARM_TARGET),-C target-feature=+crt-static,test --target $(ARM_TARGET) \
		--target-dir $(TARGET_DIR)/test-aarch64 -p sessa-engine --lib nnue)

.PHONY: FORCE
FORCE:
