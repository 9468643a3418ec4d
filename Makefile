# twintorus — build, test, demo, install.
#
#   make            build libtwintorus.{a,so} and ttsim into build/
#   make check      install missing Debian packages, build, run every test
#   make demo       install missing Debian packages, build, show what ttsim does
#                   (about 10 s)
#   make install    PREFIX=/usr/local DESTDIR= : binaries, libraries, headers,
#                   pkg-config file, man pages (1, 5, 8), example configs, sample
#                   traces, the Wireshark dissector, ttbed and its helpers
#   make deps       install the Debian packages the project needs, if missing
#                   (apt-get); without apt-get or dpkg-query it names them and
#                   stops: install them by other means and add DEB_PKGS=
#                   (empty: no check) to make check, make demo, make deps
#   make clean

# The version lives in include/twintorus/version.h alone.
VERSION := $(shell sed -n 's/^#define TT_VERSION "\(.*\)"/\1/p' include/twintorus/version.h)
PREFIX  ?= /usr/local
DESTDIR ?=
BINDIR   = $(PREFIX)/bin
SBINDIR  = $(PREFIX)/sbin
UNITDIR ?= $(PREFIX)/lib/systemd/system
# LIBDIR may be a multiarch directory (LIBDIR=/usr/lib/x86_64-linux-gnu).
LIBDIR  ?= $(PREFIX)/lib
INCDIR   = $(PREFIX)/include
MANDIR   = $(PREFIX)/share/man
DATADIR  = $(PREFIX)/share/twintorus
# ttbed's helpers (its shell library, the MPI agent, tbroute): programs,
# not data, and not a library of LIBDIR's multiarch kind
PKGLIBDIR = $(PREFIX)/lib/twintorus
# Wireshark looks for Lua plugins in its global folder (tshark -G folders:
# "Global Lua Plugins"), /usr/lib/<multiarch>/wireshark/plugins on Debian:
# right with PREFIX=/usr.  Under another prefix Wireshark does not look;
# set WIRESHARK_PLUGINDIR, or copy the dissector to
# ~/.local/lib/wireshark/plugins (a copy stays in DATADIR/wireshark).
MULTIARCH := $(shell $(CC) -print-multiarch 2>/dev/null)
WIRESHARK_PLUGINDIR ?= $(PREFIX)/lib/$(if $(MULTIARCH),$(MULTIARCH)/)wireshark/plugins

CC      ?= cc
CFLAGS  ?= -O2 -g
WARN     = -Wall -Wextra -Wstrict-prototypes -Wmissing-prototypes \
           -Wmissing-declarations -Wshadow -Wpointer-arith -Wcast-qual \
           -Wsign-compare -Wformat=2
# CI builds with -Werror; a developer's build warns but goes on.
ifeq ($(CI),true)
WARN    += -Werror
endif
STD      = -std=c11 -D_GNU_SOURCE
# A packager's CPPFLAGS, CFLAGS and LDFLAGS (dpkg-buildflags, say) are used
# as given; what the build itself needs lives in its own variables.
BUILD_CPPFLAGS = -Iinclude
# make's dependency files (build/**/*.d): an object depends on the headers
# it includes, nothing more.
DEPFLAGS = -MMD -MP
# lib/'s private headers, named by their part ("engine/sim_part.h": the
# partitioned engine, which is not installed), for the library itself,
# ttsim and the unit tests, not for the daemon
PRIV_CPPFLAGS = -Ilib
YAML_CFLAGS := $(shell pkg-config --cflags yaml-0.1 2>/dev/null)
YAML_LIBS   := $(shell pkg-config --libs yaml-0.1 2>/dev/null || echo -lyaml)
CMOCKA_LIBS := $(shell pkg-config --libs cmocka 2>/dev/null || echo -lcmocka)
PCAP_LIBS   := $(shell pkg-config --libs libpcap 2>/dev/null || echo -lpcap)
HWLOC_LIBS  := $(shell pkg-config --libs hwloc 2>/dev/null || echo -lhwloc)
# Open MPI for ttsim, when present (make deps installs it); MPI=no builds
# the serial ttsim.  Only sim/mpi.c sees mpi.h.
MPI ?= auto
ifneq ($(MPI),no)
MPI_CFLAGS := $(patsubst -I%,-isystem %,$(shell pkg-config --cflags ompi-c 2>/dev/null))
MPI_LIBS   := $(shell pkg-config --libs ompi-c 2>/dev/null)
endif
ifneq ($(MPI_LIBS),)
MPI_KIND = mpi
MPI_DEF  = -DTTSIM_MPI
else
MPI_KIND = serial
endif
# AF_XDP for ttd (--backend xdp): libxdp's socket API and libbpf, and clang
# to build the XDP program (-target bpf); make deps installs them.  A build
# without them gives ttd the libpcap backend only, and says so; XDP=no
# asks for that build.
XDP ?= auto
ifneq ($(XDP),no)
XDP_LIBS := $(shell pkg-config --libs libxdp libbpf 2>/dev/null)
BPF_CC   := $(shell command -v clang 2>/dev/null)
endif
ifneq ($(and $(XDP_LIBS),$(BPF_CC)),)
XDP_DEF  = -DTTD_HAVE_XDP
XDP_OBJ  = build/daemon/xdp_obj.o
MULTIARCH := $(shell $(CC) -print-multiarch 2>/dev/null)
else
XDP_LIBS =
XDP_OBJ  =
ifeq ($(filter clean deps,$(MAKECMDGOALS)),)
$(info ttd: built without AF_XDP ($(if $(filter no,$(XDP)),XDP=no,libxdp-dev, libbpf-dev or clang missing: make deps installs them)): the libpcap backend only)
endif
endif
# OTF2 archives (lib/formats/otf2.c) through Debian's libotf2 (libotf2-trace-dev,
# whose pkg-config name is otf2); make deps installs it.  A build without
# it reads no OTF2 archive and says so; OTF2=no asks for that build.
OTF2 ?= auto
ifneq ($(OTF2),no)
OTF2_LIBS   := $(shell pkg-config --libs otf2 2>/dev/null)
OTF2_CFLAGS := $(shell pkg-config --cflags otf2 2>/dev/null)
endif
ifneq ($(OTF2_LIBS),)
OTF2_DEF = -DTT_HAVE_OTF2
OTF2_PC  = otf2
else
OTF2_CFLAGS =
OTF2_PC  =
ifeq ($(filter clean deps,$(MAKECMDGOALS)),)
$(info ttsim: built without OTF2 ($(if $(filter no,$(OTF2)),OTF2=no,libotf2-trace-dev missing: make deps installs it)): OTF2 archives are refused)
endif
endif
# what a program linking libtwintorus.a needs
LIB_LIBS     = $(YAML_LIBS) $(PCAP_LIBS) $(OTF2_LIBS) -lm
ALL_CFLAGS = $(STD) $(WARN) $(BUILD_CPPFLAGS) $(CPPFLAGS) $(YAML_CFLAGS) $(CFLAGS)
# The library exports only what its public headers declare (twintorus/api.h).
LIB_CFLAGS = -fPIC -fvisibility=hidden
SAN      = -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all

# ttmpitrace (tools/ttmpitrace/): an MPI program's calls recorded as an
# OTF2 archive through the profiling interface, preloaded into the ranks.
# Built where both Open MPI and libotf2 are.
ifneq ($(MPI_LIBS),)
ifneq ($(OTF2_LIBS),)
MPITRACE = build/libttmpitrace.so
endif
endif

# Debian packages: build, tests, and the components the tests exercise
# (dpkg-dev, debhelper and lintian: building the .debs, tests/pkg/deb.sh).
DEB_PKGS = gcc make pkg-config libyaml-dev libcmocka-dev libpcap-dev libhwloc-dev jq time \
           libxdp-dev libbpf-dev build-essential dpkg-dev debhelper lintian \
           gnuplot-nox tcpdump iproute2 iputils-ping tshark systemd man-db mandoc \
           clang libclang-rt-dev g++ universal-ctags \
           libopenmpi-dev openmpi-bin lammps libotf2-trace-dev libsimgrid-dev

LIB_SRC  = $(wildcard lib/*/*.c)
LIB_OBJ  = $(LIB_SRC:lib/%.c=build/lib/%.o)
# ttd: daemon modules (also linked by its unit tests) and main.c
TTD_SRC  = $(filter-out daemon/main.c,$(wildcard daemon/*.c))
TTD_OBJ  = $(TTD_SRC:daemon/%.c=build/daemon/%.o) $(XDP_OBJ)
SIM_SRC  = $(filter-out sim/mpi.c,$(wildcard sim/*.c))
SIM_OBJ  = $(SIM_SRC:sim/%.c=build/sim/%.o) build/sim/mpi-$(MPI_KIND).o
HDRS     = $(wildcard include/twintorus/*.h) $(wildcard lib/*/*.h) $(wildcard sim/*.h) \
           $(wildcard daemon/*.h)
UNIT_SRC = $(wildcard tests/unit/test_*.c)
UNIT_BIN = $(UNIT_SRC:tests/unit/%.c=build/tests/%)
UNIT_ASAN = $(UNIT_SRC:tests/unit/%.c=build/tests/asan/%)
LIB_ASAN_OBJ = $(LIB_SRC:lib/%.c=build/asan/lib/%.o)
# ttsim under ThreadSanitizer, for its threads (tests/cli/threads.sh);
# its instrumentation makes GCC see uninitialised values that are not
TSAN = -fsanitize=thread -Wno-maybe-uninitialized
LIB_TSAN_OBJ = $(LIB_SRC:lib/%.c=build/tsan/lib/%.o)
SIM_TSAN_OBJ = $(SIM_SRC:sim/%.c=build/tsan/sim/%.o) build/tsan/sim/mpi-serial.o
TTD_ASAN_OBJ = $(TTD_SRC:daemon/%.c=build/asan/daemon/%.o) $(XDP_OBJ)

.PHONY: fuzz fuzz-quick
.PHONY: all check check-build demo install install-dissector uninstall deps bench-deps clean unit unit-asan \
        cli examples bench paper-quick testbed testbed-if-possible deb-test

all: build/libtwintorus.a build/libtwintorus.so build/ttsim build/ttd $(MPITRACE)

build/lib/%.o: lib/%.c
	@mkdir -p $(@D)
	$(CC) $(ALL_CFLAGS) $(PRIV_CPPFLAGS) $(LIB_CFLAGS) $(DEPFLAGS) -c $< -o $@

# only the OTF2 reader sees libotf2's headers
build/lib/formats/otf2.o build/asan/lib/formats/otf2.o build/tsan/lib/formats/otf2.o: ALL_CFLAGS += $(OTF2_DEF) $(OTF2_CFLAGS)

build/sim/%.o: sim/%.c
	@mkdir -p $(@D)
	$(CC) $(ALL_CFLAGS) $(PRIV_CPPFLAGS) $(DEPFLAGS) -c $< -o $@

build/sim/mpi-$(MPI_KIND).o: sim/mpi.c
	@mkdir -p $(@D)
	$(CC) $(ALL_CFLAGS) $(PRIV_CPPFLAGS) $(MPI_CFLAGS) $(MPI_DEF) $(DEPFLAGS) -c $< -o $@

build/daemon/%.o: daemon/%.c
	@mkdir -p $(@D)
	$(CC) $(ALL_CFLAGS) $(XDP_DEF) $(DEPFLAGS) -c $< -o $@

# ttd's XDP program (daemon/bpf/steer.bpf.c): BPF code, built by clang,
# carried inside ttd as bytes (daemon/bpf/xdp_obj.S).  -g: libbpf reads
# the map's definition from its BTF.
build/daemon/steer.bpf.o: daemon/bpf/steer.bpf.c
	@mkdir -p $(@D)
	$(BPF_CC) -O2 -g -Wall -target bpf $(if $(MULTIARCH),-idirafter /usr/include/$(MULTIARCH)) -c $< -o $@

build/daemon/xdp_obj.o: daemon/bpf/xdp_obj.S build/daemon/steer.bpf.o
	$(CC) $(BUILD_CPPFLAGS) $(CPPFLAGS) -DTTD_XDP_OBJ='"build/daemon/steer.bpf.o"' $(CFLAGS) -c $< -o $@

build/ttd: $(TTD_OBJ) build/daemon/main.o build/libtwintorus.a
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $(TTD_OBJ) build/daemon/main.o build/libtwintorus.a $(LIB_LIBS) $(HWLOC_LIBS) $(XDP_LIBS) -lpthread

build/libtwintorus.a: $(LIB_OBJ)
	@mkdir -p $(@D)
	rm -f $@
	ar rcs $@ $^

build/libtwintorus.so: $(LIB_OBJ)
	$(CC) $(CFLAGS) $(LDFLAGS) -shared -Wl,-soname,libtwintorus.so.0 -o $@ $^ $(LIB_LIBS)

build/ttsim: $(SIM_OBJ) build/libtwintorus.a
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $(SIM_OBJ) build/libtwintorus.a $(LIB_LIBS) $(MPI_LIBS)

# Unit tests link the library objects and ttd's modules (all small).
build/tests/%: tests/unit/%.c $(LIB_OBJ) $(TTD_OBJ)
	@mkdir -p $(@D)
	$(CC) $(ALL_CFLAGS) $(PRIV_CPPFLAGS) $(DEPFLAGS) $(LDFLAGS) -o $@ $< $(LIB_OBJ) $(TTD_OBJ) $(LIB_LIBS) $(HWLOC_LIBS) $(XDP_LIBS) -lpthread $(CMOCKA_LIBS)

build/asan/lib/%.o: lib/%.c
	@mkdir -p $(@D)
	$(CC) $(ALL_CFLAGS) $(PRIV_CPPFLAGS) $(SAN) -O1 $(DEPFLAGS) -c $< -o $@

build/asan/daemon/%.o: daemon/%.c
	@mkdir -p $(@D)
	$(CC) $(ALL_CFLAGS) $(XDP_DEF) $(SAN) -O1 $(DEPFLAGS) -c $< -o $@

build/tests/asan/%: tests/unit/%.c $(LIB_ASAN_OBJ) $(TTD_ASAN_OBJ)
	@mkdir -p $(@D)
	$(CC) $(ALL_CFLAGS) $(PRIV_CPPFLAGS) $(SAN) -O1 $(DEPFLAGS) $(LDFLAGS) -o $@ $< $(LIB_ASAN_OBJ) $(TTD_ASAN_OBJ) $(LIB_LIBS) $(HWLOC_LIBS) $(XDP_LIBS) -lpthread $(CMOCKA_LIBS)

build/tsan/lib/%.o: lib/%.c
	@mkdir -p $(@D)
	$(CC) $(ALL_CFLAGS) $(PRIV_CPPFLAGS) $(TSAN) $(DEPFLAGS) -c $< -o $@

build/tsan/sim/%.o: sim/%.c
	@mkdir -p $(@D)
	$(CC) $(ALL_CFLAGS) $(PRIV_CPPFLAGS) $(TSAN) $(DEPFLAGS) -c $< -o $@

# serial: MPI's own threads are none of this test's business
build/tsan/sim/mpi-serial.o: sim/mpi.c
	@mkdir -p $(@D)
	$(CC) $(ALL_CFLAGS) $(PRIV_CPPFLAGS) $(TSAN) $(DEPFLAGS) -c $< -o $@

build/tsan/ttsim: $(SIM_TSAN_OBJ) $(LIB_TSAN_OBJ)
	$(CC) $(CFLAGS) -fsanitize=thread $(LDFLAGS) -o $@ $(SIM_TSAN_OBJ) $(LIB_TSAN_OBJ) $(LIB_LIBS)

# The Wireshark test's sample generator (tests/traces/README.md).
build/tests/make-frames: tests/traces/make-frames.c build/libtwintorus.a
	@mkdir -p $(@D)
	$(CC) $(ALL_CFLAGS) $(DEPFLAGS) $(LDFLAGS) -o $@ $< build/libtwintorus.a $(LIB_LIBS)

# mpitrace.sh's program of every call ttmpitrace records
build/tests/mpicalls: tests/data/mpi/mpicalls.c
	@mkdir -p $(@D)
	$(CC) $(ALL_CFLAGS) $(MPI_CFLAGS) $(DEPFLAGS) $(LDFLAGS) -o $@ $< $(MPI_LIBS)
build/libttmpitrace.so: tools/ttmpitrace/ttmpitrace.c
	@mkdir -p $(@D)
	$(CC) $(ALL_CFLAGS) $(MPI_CFLAGS) $(OTF2_CFLAGS) -fPIC $(DEPFLAGS) $(LDFLAGS) -shared -o $@ $< $(OTF2_LIBS) $(MPI_LIBS)

# The OTF2 test's archive writer (tests/data/otf2/README.md), where
# libotf2 is.
ifneq ($(OTF2_LIBS),)
MKOTF2 = build/tests/mkotf2
endif
build/tests/mkotf2: tests/data/otf2/mkotf2.c
	@mkdir -p $(@D)
	$(CC) $(ALL_CFLAGS) $(OTF2_CFLAGS) $(DEPFLAGS) $(LDFLAGS) -o $@ $< $(OTF2_LIBS)

# The testbed's oracle (tt_route() paths, node-level next hops, trace
# records) and its checked bulk transfer (tests/testbed/README.md).
TESTBED_BIN = build/tests/tbroute build/tests/tbstream build/tests/tbflows build/tests/tbflood \
              build/tests/tbblast
build/tests/tb%: tests/testbed/tb%.c build/libtwintorus.a
	@mkdir -p $(@D)
	$(CC) $(ALL_CFLAGS) $(DEPFLAGS) $(LDFLAGS) -o $@ $< build/libtwintorus.a $(LIB_LIBS)
# tbroute is also ttbed's (tools/ttbed/): the layout it wires.  Its
# source was tests/testbed/tbroute.c, which an older build's dependency
# file still names: the empty rule lets such a build go on.
tests/testbed/tbroute.c: ;
build/tests/tbroute: tools/ttbed/tbroute.c build/libtwintorus.a
	@mkdir -p $(@D)
	$(CC) $(ALL_CFLAGS) $(DEPFLAGS) $(LDFLAGS) -o $@ $< build/libtwintorus.a $(LIB_LIBS)

# The testbed's MPI halo program (tests/testbed/mpi.sh), when Open MPI is here.
# bench/predict's ping-pong (also run under SimGrid there) is built with it.
ifneq ($(MPI_LIBS),)
TESTBED_BIN += build/tests/mpihalo build/bench/pingpong
endif
build/tests/mpihalo: tests/testbed/mpihalo.c
	@mkdir -p $(@D)
	$(CC) $(ALL_CFLAGS) $(MPI_CFLAGS) $(DEPFLAGS) $(LDFLAGS) -o $@ $< $(MPI_LIBS)
build/bench/pingpong: bench/predict/simgrid/pingpong.c
	@mkdir -p $(@D)
	$(CC) $(ALL_CFLAGS) $(MPI_CFLAGS) $(DEPFLAGS) $(LDFLAGS) -o $@ $< $(MPI_LIBS)

# bench/forward-speed.sh's traffic source and latency probe.
build/bench/fwdprobe: bench/fwdprobe.c build/libtwintorus.a
	@mkdir -p $(@D)
	$(CC) $(ALL_CFLAGS) $(DEPFLAGS) $(LDFLAGS) -o $@ $< build/libtwintorus.a $(LIB_LIBS)

# bench/forward-speed.sh's AF_XDP ceiling: a bare forwarder on ttd's XDP
# program, built only where ttd gets AF_XDP.
ifneq ($(XDP_DEF),)
build/bench/xskfwd: bench/xskfwd.c build/daemon/steer.bpf.o
	@mkdir -p $(@D)
	$(CC) $(ALL_CFLAGS) $(DEPFLAGS) $(LDFLAGS) -o $@ $< $(XDP_LIBS)
endif

# libFuzzer targets (tests/fuzz/README.md), built with clang against the
# library sources, compiled once for all of them (coverage instrumented,
# -fsanitize=fuzzer-no-link) and linked into each.
FUZZ_CC     ?= clang
FUZZ_SAN     = address,undefined -fno-sanitize-recover=all
FUZZ_FLAGS   = -g -O1 -fsanitize=fuzzer,$(FUZZ_SAN)
FUZZ_TARGETS = frame config control trace replay deps causal infer netspec
FUZZ_BIN     = $(FUZZ_TARGETS:%=build/fuzz/fuzz_%)
FUZZ_LIB_OBJ = $(LIB_SRC:%.c=build/fuzz/obj/%.o)
FUZZ_SECONDS ?= 60

build/fuzz/obj/%.o: %.c $(HDRS)
	@mkdir -p $(@D)
	$(FUZZ_CC) $(STD) $(BUILD_CPPFLAGS) $(PRIV_CPPFLAGS) $(YAML_CFLAGS) -g -O1 \
	    -fsanitize=fuzzer-no-link,$(FUZZ_SAN) -c -o $@ $<

build/fuzz/%: tests/fuzz/%.c tests/fuzz/fuzz.h $(FUZZ_LIB_OBJ) $(HDRS)
	@mkdir -p $(@D)
	$(FUZZ_CC) $(STD) $(BUILD_CPPFLAGS) $(YAML_CFLAGS) $(FUZZ_FLAGS) -o $@ $< $(FUZZ_LIB_OBJ) $(LIB_LIBS)

# the control socket's request parser is the daemon's own
build/fuzz/fuzz_control: tests/fuzz/fuzz_control.c daemon/request.c $(HDRS)
	@mkdir -p $(@D)
	$(FUZZ_CC) $(STD) $(BUILD_CPPFLAGS) $(YAML_CFLAGS) $(FUZZ_FLAGS) -o $@ $< daemon/request.c

# Each target for FUZZ_SECONDS; new inputs go to build/fuzz/work-*.
fuzz: $(FUZZ_BIN)
	@for t in $(FUZZ_TARGETS); do \
	  echo "== fuzz_$$t for $(FUZZ_SECONDS) s"; mkdir -p build/fuzz/work-$$t; \
	  build/fuzz/fuzz_$$t -max_total_time=$(FUZZ_SECONDS) -print_final_stats=1 \
	    -artifact_prefix=build/fuzz/crash-$$t- build/fuzz/work-$$t tests/fuzz/corpus/$$t \
	    2>build/fuzz/fuzz_$$t.log || { tail -40 build/fuzz/fuzz_$$t.log; exit 1; }; \
	  grep -E "stat::number_of_executed_units|Done" build/fuzz/fuzz_$$t.log; \
	done

fuzz-quick:
	@$(MAKE) --no-print-directory fuzz FUZZ_SECONDS=5

# Keep the ASan objects between builds of single tests.
.SECONDARY: $(LIB_ASAN_OBJ) $(TTD_ASAN_OBJ) $(FUZZ_LIB_OBJ) $(LIB_TSAN_OBJ) $(SIM_TSAN_OBJ)

# ---- tests ----

# The README's test command.  deps first, then a fresh make so that the
# pkg-config lookups above see what deps installed.
check: deps
	@$(MAKE) --no-print-directory check-build

check-build: all $(UNIT_BIN) $(UNIT_ASAN)
	@$(MAKE) --no-print-directory unit unit-asan cli examples paper-quick fuzz-quick deb-test
	@$(MAKE) --no-print-directory testbed-if-possible

unit: $(UNIT_BIN)
	@for t in $(UNIT_BIN); do echo "== $$t"; $$t || exit 1; done

unit-asan: $(UNIT_ASAN)
	@for t in $(UNIT_ASAN); do echo "== $$t (ASan+UBSan)"; \
	  ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 $$t || exit 1; done

cli: build/ttsim build/ttd build/tests/make-frames build/tests/tbroute build/tests/tbflood $(MKOTF2) \
     $(MPITRACE) $(if $(MPITRACE),build/tests/mpihalo build/tests/mpicalls) build/tsan/ttsim
	@for s in tests/cli/*.sh; do [ "$$s" = tests/cli/lib.sh ] && continue; echo "== $$s"; TTSIM=build/ttsim TTSIM_TSAN=build/tsan/ttsim bash $$s || exit 1; done

# Every shipped example config is itself a test: it must load and verify.
examples: build/ttsim
	@for f in yaml/*.yaml; do \
	  echo "== example $$f"; \
	  build/ttsim analyze "$$f" >/dev/null || exit 1; \
	  build/ttsim verify "$$f" || exit 1; \
	done

# The Debian packages built from a copy of the working tree, checked by
# lintian, installed, used and purged in a private mount namespace
# (tests/pkg/deb.sh; root, else skipped).
deb-test:
	@echo "== tests/pkg/deb.sh"
	@bash tests/pkg/deb.sh

# A reduced seed 000 §7.3-7.4 reproduction: small sweeps and the findings
# that hold at that size (bench/paper/README.md).
paper-quick: build/ttsim
	@echo "== bench/paper/run.sh --quick"
	@TTSIM=build/ttsim bash bench/paper/run.sh --quick --out build/paper-quick

# The network-namespace testbed (tests/testbed/README.md): twin tori of
# namespaces and veth cables, one ttd per node.  Needs root.
testbed: all $(TESTBED_BIN)
	@echo "== tests/testbed/testbed.sh"
	@bash tests/testbed/testbed.sh
	@echo "== tests/testbed/ttbed.sh"
	@if why=$$(bash tests/testbed/ttbed.sh --why-not); then bash tests/testbed/ttbed.sh; \
	else echo "SKIP ttbed: $$why"; fi
	@echo "== tests/testbed/ifaces.sh"
	@bash tests/testbed/ifaces.sh
	@echo "== tests/testbed/mpi.sh"
	@if why=$$(bash tests/testbed/mpi.sh --why-not); then bash tests/testbed/mpi.sh; \
	else echo "SKIP mpi: $$why"; fi

# make check runs it where it can and says why not where it cannot.
testbed-if-possible: all $(TESTBED_BIN)
	@if why=$$(bash tests/testbed/testbed.sh --why-not); then \
	  $(MAKE) --no-print-directory testbed; \
	else echo "SKIP testbed: $$why"; fi

bench: all
	bash bench/analyze.sh
	bash bench/sim-speed.sh
	bash bench/replay-speed.sh

# The product's main job: predict, from a recorded trace, how the
# application would run on D, on A and on the 2D torus of as many PEs.
demo: deps
	@$(MAKE) --no-print-directory all
	build/ttsim trace stat traces/alltoall-4x4x4.pcap --top 3
	build/ttsim replay traces/alltoall-4x4x4.pcap yaml/3dt-4x4x4.yaml \
	  --compare D,A,2d --top 3
	build/ttsim replay traces/stencil-4x4x4 yaml/3dt-4x4x4.yaml \
	  --compare D,A,2d --top 3
	@echo; echo "== a real MPI run recorded by ttd (traces/README.md), predicted causally"
	build/ttsim trace infer traces/captured/mpihalo-2x2x2 --dims 2,2,2 \
	  -o build/mpihalo-2x2x2.deps
	build/ttsim replay traces/captured/mpihalo-2x2x2 --dims 2,2,2 --causal \
	  --deps build/mpihalo-2x2x2.deps --compare D,A,2d --top 1
	build/ttsim replay traces/captured/mpihalo-2x2x2 --dims 2,2,2 --causal \
	  --deps build/mpihalo-2x2x2.deps --compare D,A,2d --link-gbps 0.02 --top 1

# What bench/predict adds: NetPIPE and SimGrid's tools (make bench-deps;
# libsimgrid-dev, which tests/cli/simgrid-ti.sh needs, is in DEB_PKGS).
BENCH_PKGS = netpipe-openmpi simgrid
DEPS_PKGS ?= $(DEB_PKGS)

bench-deps:
	@$(MAKE) --no-print-directory deps DEPS_PKGS="$(DEB_PKGS) $(BENCH_PKGS)"

# Without dpkg-query (not Debian) or apt-get it names what it could not
# check or install and stops; DEB_PKGS= (empty) skips the check.
deps:
	@missing=""; \
	if [ -z "$(strip $(DEPS_PKGS))" ]; then exit 0; fi; \
	if ! command -v dpkg-query >/dev/null 2>&1; then \
	  echo "make deps: no dpkg-query here, so these Debian packages could not be checked:" >&2; \
	  echo "$(strip $(DEPS_PKGS))" | fold -s -w 72 | sed 's/^/  /; s/ *$$//' >&2; \
	  echo "make deps: the names are Debian's; install what they provide by other means," >&2; \
	  echo "make deps: then run make with DEB_PKGS= (empty: no check), e.g. make check DEB_PKGS=" >&2; \
	  exit 2; \
	fi; \
	for p in $(DEPS_PKGS); do \
	  dpkg-query -W -f='$${Status}' $$p 2>/dev/null | grep -q 'ok installed' || missing="$$missing $$p"; \
	done; \
	if [ -z "$$missing" ]; then exit 0; fi; \
	if ! command -v apt-get >/dev/null 2>&1; then \
	  echo "make deps: these Debian packages are missing and there is no apt-get to install them:" >&2; \
	  echo "$${missing# }" | fold -s -w 72 | sed 's/^/  /; s/ *$$//' >&2; \
	  echo "make deps: install them by other means," >&2; \
	  echo "make deps: then run make with DEB_PKGS= (empty: no check), e.g. make check DEB_PKGS=" >&2; \
	  exit 2; \
	fi; \
	echo "make deps: installing$$missing"; \
	SUDO=""; [ "$$(id -u)" -eq 0 ] || SUDO=sudo; \
	$$SUDO apt-get update -qq && \
	DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq --no-install-recommends $$missing

install: all build/tests/tbroute install-dissector
	install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(LIBDIR)/pkgconfig \
	  $(DESTDIR)$(INCDIR)/twintorus $(DESTDIR)$(MANDIR)/man1 $(DESTDIR)$(DATADIR)/yaml
	install -m 755 build/ttsim $(DESTDIR)$(BINDIR)/ttsim
	install -d $(DESTDIR)$(SBINDIR) $(DESTDIR)$(UNITDIR) $(DESTDIR)$(MANDIR)/man8
	install -m 755 build/ttd $(DESTDIR)$(SBINDIR)/ttd
	sed -e 's|@SBINDIR@|$(SBINDIR)|g' systemd/ttd.service.in > $(DESTDIR)$(UNITDIR)/ttd.service
	chmod 644 $(DESTDIR)$(UNITDIR)/ttd.service
	install -m 644 man/ttd.8 $(DESTDIR)$(MANDIR)/man8/ttd.8
	install -m 644 yaml/3dt-4x4x4.yaml $(DESTDIR)$(DATADIR)/ttd.yaml.example
	install -m 644 build/libtwintorus.a $(DESTDIR)$(LIBDIR)/libtwintorus.a
	install -m 755 build/libtwintorus.so $(DESTDIR)$(LIBDIR)/libtwintorus.so.$(VERSION)
	ln -sf libtwintorus.so.$(VERSION) $(DESTDIR)$(LIBDIR)/libtwintorus.so.0
	ln -sf libtwintorus.so.0 $(DESTDIR)$(LIBDIR)/libtwintorus.so
	install -m 644 include/twintorus/*.h $(DESTDIR)$(INCDIR)/twintorus/
	sed -e 's|@PREFIX@|$(PREFIX)|' -e 's|@LIBDIR@|$(LIBDIR)|' -e 's|@INCDIR@|$(INCDIR)|' \
	  -e 's|@VERSION@|$(VERSION)|' -e 's|@OTF2_PC@|$(if $(OTF2_PC), $(OTF2_PC))|' twintorus.pc.in > $(DESTDIR)$(LIBDIR)/pkgconfig/twintorus.pc
	install -m 644 man/ttsim.1 $(DESTDIR)$(MANDIR)/man1/ttsim.1
	install -d $(DESTDIR)$(MANDIR)/man5
	install -m 644 man/twintorus.yaml.5 $(DESTDIR)$(MANDIR)/man5/twintorus.yaml.5
	install -m 644 yaml/*.yaml $(DESTDIR)$(DATADIR)/yaml/
	install -d $(DESTDIR)$(DATADIR)/traces/stencil-4x4x4 $(DESTDIR)$(DATADIR)/wireshark
	install -m 644 traces/README.md traces/*.pcap $(DESTDIR)$(DATADIR)/traces/
	install -m 644 traces/stencil-4x4x4/*.pcap $(DESTDIR)$(DATADIR)/traces/stencil-4x4x4/
	install -d $(DESTDIR)$(DATADIR)/traces/captured/mpihalo-2x2x2
	install -m 644 traces/captured/mpihalo-2x2x2/*.pcap $(DESTDIR)$(DATADIR)/traces/captured/mpihalo-2x2x2/
	install -m 644 tools/wireshark/twintorus.lua $(DESTDIR)$(DATADIR)/wireshark/
	install -d $(DESTDIR)$(PKGLIBDIR)
	install -m 644 tools/ttbed/lib.sh tools/ttbed/mpi.sh $(DESTDIR)$(PKGLIBDIR)/
	install -m 755 tools/ttbed/mpi-agent.sh build/tests/tbroute $(DESTDIR)$(PKGLIBDIR)/
	$(if $(MPITRACE),install -m 644 $(MPITRACE) $(DESTDIR)$(PKGLIBDIR)/)
	sed -e 's|^TTBED_LIBDIR=$$|TTBED_LIBDIR=$(PKGLIBDIR)|' -e 's|^TTBED_SBINDIR=$$|TTBED_SBINDIR=$(SBINDIR)|' \
	  -e 's|^TTBED_BINDIR=$$|TTBED_BINDIR=$(BINDIR)|' -e 's|^TTBED_VERSION=$$|TTBED_VERSION=$(VERSION)|' \
	  tools/ttbed/ttbed > $(DESTDIR)$(SBINDIR)/ttbed
	chmod 755 $(DESTDIR)$(SBINDIR)/ttbed
	install -m 644 man/ttbed.8 $(DESTDIR)$(MANDIR)/man8/ttbed.8

install-dissector:
	install -d $(DESTDIR)$(WIRESHARK_PLUGINDIR)
	install -m 644 tools/wireshark/twintorus.lua $(DESTDIR)$(WIRESHARK_PLUGINDIR)/twintorus.lua

# Removes exactly what install put there (same PREFIX, LIBDIR, UNITDIR and
# DESTDIR), then the directories of its own that are left empty.
uninstall:
	rm -f $(DESTDIR)$(BINDIR)/ttsim $(DESTDIR)$(SBINDIR)/ttd $(DESTDIR)$(SBINDIR)/ttbed \
	  $(DESTDIR)$(UNITDIR)/ttd.service $(DESTDIR)$(MANDIR)/man8/ttd.8 $(DESTDIR)$(MANDIR)/man8/ttbed.8 \
	  $(DESTDIR)$(MANDIR)/man1/ttsim.1 $(DESTDIR)$(MANDIR)/man5/twintorus.yaml.5 \
	  $(DESTDIR)$(LIBDIR)/libtwintorus.a $(DESTDIR)$(LIBDIR)/libtwintorus.so \
	  $(DESTDIR)$(LIBDIR)/libtwintorus.so.0 $(DESTDIR)$(LIBDIR)/libtwintorus.so.$(VERSION) \
	  $(DESTDIR)$(LIBDIR)/pkgconfig/twintorus.pc
	rm -f $(DESTDIR)$(WIRESHARK_PLUGINDIR)/twintorus.lua
	rm -rf $(DESTDIR)$(INCDIR)/twintorus $(DESTDIR)$(DATADIR) $(DESTDIR)$(PKGLIBDIR)

clean:
	rm -rf build

# Header dependencies recorded by the compiler (DEPFLAGS).
-include $(shell find build -name '*.d' 2>/dev/null)
