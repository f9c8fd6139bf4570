# Builds the release engine and copies it to $(EXE), as OpenBench expects
# (`make EXE=<name>`, run in the repository root). OpenBench may also pass
# CC or CXX; a Rust build uses neither.

EXE ?= sessa
CARGO ?= cargo
TARGET_DIR ?= $(or $(CARGO_TARGET_DIR),target)

ifeq ($(OS),Windows_NT)
    BINARY := $(TARGET_DIR)/release/sessa.exe
else
    BINARY := $(TARGET_DIR)/release/sessa
endif

.PHONY: all

all:
	$(CARGO) build --release --bin sessa
	cp $(BINARY) $(EXE)
