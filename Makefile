# vkbd: build, test, install. `make check` is the one test command.

PREFIX ?= /usr/local
DESTDIR ?=
SWIFT ?= $(shell command -v swift 2>/dev/null || echo /opt/swift/usr/bin/swift)

# Debian packages the build and the tests need, and those the daemon needs to run.
BUILD_PACKAGES := pkg-config libevdev-dev libudev-dev libxkbcommon-dev xkb-data libx11-data
RUN_PACKAGES := libevdev2 libudev1 libxkbcommon0 xkb-data libx11-data

.PHONY: all release check unit-tests build-deps run-deps clean format

all: release

release: build-deps
	$(SWIFT) build -c release

# Unit tests (Swift Testing). Later suites join here.
check: build-deps unit-tests

unit-tests: build-deps
	$(SWIFT) build --build-tests
	$(SWIFT) test

build-deps:
	@./scripts/install-packages $(BUILD_PACKAGES)

run-deps:
	@./scripts/install-packages $(RUN_PACKAGES)

format:
	$(SWIFT) format --in-place --recursive Package.swift Sources Tests

clean:
	rm -rf .build
