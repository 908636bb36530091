# gsync top-level Makefile. See README.md for the commands.
#
#   make                 module (against KDIR), userspace tools, host tests
#   make modules KDIR=…  the module against any kernel build directory
#   make check           every test stage; ends with "N passed, N failed"
#   make demo            boot the VM with the nine-city islands
#   make deps            install the Debian packages the build and tests need
#   make bench           CPU reduction, offload path and WAN all-reduce benchmarks,
#                        and the user's schedule against the model in UML time-travel
#   make bench-base      WAN all-reduce of this tree next to BASE= (default 8b5cfc1)
#   make soak            minutes of random traffic and disruptions, debug kernel
#   make install         userspace, man pages, Wireshark dissector, Python module
#                        (PREFIX=/usr/local, DESTDIR=, LIBDIR=, PYTHONDIR=, ... as each
#                        directory's Makefile says; INSTALL_PYTHON=no leaves out python/)
#   make deb             Debian packages into build/deb/ (see debian/README.source)
#   make deb-check       make deb, lintian, tshark with the packaged dissector, DKMS
#                        build and install for 6.1 and 6.12, the packages in a clean root
#
# VM_PROFILE=fast|debug selects the test kernel (see tests/vm/config/).

SHELL := /bin/bash
VM_PROFILE ?= fast
GSYNC_CACHE ?= /var/cache/gsync
export VM_PROFILE GSYNC_CACHE

# Default KDIR: the harness's test kernel if built, else the running kernel's.
KDIR ?= $(shell tests/vm/build-kernel --if-built 2>/dev/null || echo /lib/modules/$$(uname -r)/build)

# Out-of-tree builds put objects next to the sources; to build the same
# sources against several kernels (test kernel, Debian 6.1 and 6.12 headers)
# each kernel gets its own copy under build/modules/<hash of KDIR>/.
MODDIR = build/modules/$(shell echo '$(abspath $(KDIR))' | sha256sum | cut -c1-12)
# A User-Mode Linux kernel (the uml test profile) builds modules as ARCH=um.
KARCH = $(if $(shell grep -sx CONFIG_UML=y $(KDIR)/.config),ARCH=um SUBARCH=x86_64)
MODULE_SRCS := Kbuild $(shell find kmod uapi xrt_kernels/ref -name '*.[ch]' -o -name Kbuild)

USERSPACE_DIRS := $(patsubst %/Makefile,%,$(wildcard userspace/*/Makefile xrt_kernels/Makefile))

.PHONY: all modules modules-dir userspace check demo deps clean checkpatch bench bench-base \
	soak install deb deb-check

all: userspace
	@if [ -d "$(KDIR)" ]; then $(MAKE) --no-print-directory modules; \
	else echo "make: no kernel build directory at $(KDIR); skipping the module (set KDIR=...)"; fi

modules: $(MODULE_SRCS)
	@test -d "$(KDIR)" || { echo "KDIR=$(KDIR) is not a kernel build directory" >&2; exit 1; }
	@mkdir -p $(MODDIR)
	@rsync -a --delete --include='*/' --include='*.[ch]' --include=Kbuild \
		--exclude='*' Kbuild kmod uapi $(MODDIR)/
	@mkdir -p $(MODDIR)/xrt_kernels/ref
	@rsync -a --delete --include='*.[ch]' --exclude='*' xrt_kernels/ref/ $(MODDIR)/xrt_kernels/ref/
	$(MAKE) -C $(KDIR) M=$(abspath $(MODDIR)) $(KARCH) W=1 modules
	@echo "module: $(MODDIR)/kmod/gsync.ko"

# Print where `make modules` puts gsync.ko for this KDIR (used by scripts).
modules-dir:
	@echo $(abspath $(MODDIR))

userspace:
	@for d in $(USERSPACE_DIRS); do $(MAKE) --no-print-directory -C $$d || exit 1; done

check:
	@tests/check

# debian/rules installs python/ with pybuild instead: INSTALL_PYTHON=no.
INSTALL_DIRS := userspace/libgsync userspace/gsyncctl userspace/sched userspace/offloadd man wireshark \
	$(if $(filter no,$(INSTALL_PYTHON)),,python)
install:
	@for d in $(INSTALL_DIRS); do $(MAKE) --no-print-directory -C $$d install || exit 1; done

deb:
	@tests/deb build

deb-check:
	@tests/deb check

demo:
	@tests/demo

deps:
	@tests/deps

checkpatch:
	@tests/checkpatch

# Benchmarks print numbers (and ratios against baselines measured in the
# same run); they are not tests and never fail on the numbers.
bench:
	@$(MAKE) --no-print-directory -C tests/bench/reduce run
	@tests/bench/offload/run
	@tests/bench/aead/run
	@tests/bench/gsync-bench
	@tests/bench/loss-bench
	@tests/bench/python-sync
	@VM_PROFILE=uml VM_TIME_TRAVEL=inf-cpu tests/bench/sched-bench

# This tree's WAN all-reduce against an earlier commit's, in one VM boot.
bench-base:
	@tests/bench/base-compare $(if $(BASE),--base $(BASE))

# Minutes of random traffic, kills, netns deletions and module reloads on
# the debug kernel (unless VM_PROFILE is given); not part of check
# (SOAK_MINUTES, default 10).
soak:
	@VM_PROFILE=$(if $(filter command line environment,$(origin VM_PROFILE)),$(VM_PROFILE),debug) \
		tests/soak/run --minutes $(or $(SOAK_MINUTES),10)

clean:
	rm -rf build
	@for d in $(USERSPACE_DIRS); do $(MAKE) --no-print-directory -C $$d clean; done
