# HCL: the two commands for a fresh Debian 12 / Ubuntu 24.04 machine are `make bench` and `make test`.
#
#   make deps    install the missing Debian/Ubuntu packages (as root; says what to run otherwise), and Intel's OpenCL
#                CPU runtime from PyPI into .deps/intel-opencl (a second OpenCL vendor for the tests);
#                HCL_DEPS=minimal: only what the host and OpenCL backends need (default full: every backend, Intel's
#                runtime)
#   make deps-list   which packages each backend needs (deps-packages: the list make deps checks, one line)
#   make build   configure build/ (Ninja, RelWithDebInfo, warnings as errors) once, then build it
#   make test    deps + build + every ctest test, then the same suite built with ASan+UBSan in build-asan/
#   make bench   deps + build + ./build/bin/bench (BENCH_ARGS="--help" for its options)
#   make info    build + ./build/bin/hcl-info
#   make format  format every C, CUDA and OpenCL source as .clang-format says (ctest `format` checks it)
#   make clean   remove build/ and build-asan/
#
# Variables: BUILD_DIR, ASAN_DIR, JOBS, CMAKE_ARGS (extra -D options for both configurations), BENCH_ARGS,
# HCL_DEPS (full or minimal).

SHELL := /bin/bash
.DEFAULT_GOAL := build
# The recipes run in order (deps before build before test); the parallelism is inside ninja and ctest.
.NOTPARALLEL:

BUILD_DIR ?= build
ASAN_DIR ?= build-asan
JOBS ?= $(shell nproc 2>/dev/null || echo 2)
CMAKE_ARGS ?=
BENCH_ARGS ?=

# The Debian/Ubuntu packages, by what needs them (`make deps-list` prints this table; docs: README "Dependencies").
# libc6-dev is listed because gcc only recommends it (apt-get runs with --no-install-recommends).
DEPS_common    := cmake ninja-build gcc libc6-dev pkg-config libcriterion-dev clang-format openmpi-bin libopenmpi-dev \
                  python3-dev python3-venv
DEPS_host      := libopenblas-dev qemu-user
DEPS_opencl    := ocl-icd-opencl-dev opencl-headers pocl-opencl-icd clinfo libclblast-dev
DEPS_levelzero := libze-dev libze1 clang-14 llvm-spirv-14 spirv-tools g++ dpkg-dev
DEPS_hip       := libamdhip64-dev hipcc rocm-device-libs g++
DEPS_cuda      :=
DEPS_vulkan    := libvulkan-dev mesa-vulkan-drivers glslang-tools spirv-tools
DEPS_intel     := python3 python3-venv
WHY_common    := the build (CMake, Ninja, gcc), the conformance suite (Criterion), ctest format (clang-format); \
                 Open MPI (mpirun, mpi.h): the mpi engine's tests and example under mpirun (HCL itself opens \
                 libmpi at run time and needs no MPI to build); python3-dev (Python.h) and python3-venv: the Python \
                 package's extension and its tests (ctest python-pytest, python-wheel: numpy, pytest and \
                 scikit-build-core from PyPI into a virtual environment under the build folder)
WHY_host      := the driver needs only gcc (OpenMP included); OpenBLAS is bench's host GEMM baseline; qemu-user \
                 runs the host kernels' CPU dispatch on emulated CPUs without AVX-512 or AVX2 (kernels-host-gemm-cpus)
WHY_opencl    := CL/cl.h and the ICD loader; PoCL, a CPU OpenCL device for the tests; clinfo (hcl-info's \
                 cross-check); CLBlast (bench's OpenCL GEMM baseline)
WHY_levelzero := ze_api.h and the loader; clang-14, llvm-spirv-14, spirv-val (SPIR-V built-ins); g++ and \
                 dpkg-dev (the loader's null driver, built for the tests)
WHY_hip       := the HIP headers and runtime (hiprtc); hipcc and the device libraries (the code-object bundle); \
                 g++ (the MFMA emulation test)
WHY_intel     := Intel's OpenCL CPU runtime, the OpenCL suite's second vendor (ctest conformance-opencl-intel): \
                 python3's venv and pip install PyPI's intel-opencl-rt and intel-cmplr-lib-rt (INTEL_OCL_VERSION) \
                 into .deps/intel-opencl (in the source tree, git-ignored; nothing system-wide)
WHY_vulkan    := the Vulkan headers (types only: the driver opens libvulkan.so.1 at run time) and the loader; \
                 lavapipe (Mesa's Vulkan on the CPU) for the tests; glslangValidator compiles the built-in \
                 kernels' GLSL to SPIR-V, spirv-link joins them into one module; glslangValidator \
                 also compiles GLSL user kernels at run time (a child process). The cooperative-matrix gemm \
                 (GL_KHR_cooperative_matrix, bf16) needs a newer glslang than Debian 12's: make deps takes the \
                 one inside PyPI's slangpy wheel (SLANGPY_VERSION) into .deps/glslang (git-ignored)
WHY_cuda      := no Debian package: NVIDIA's CUDA toolkit, where installed, gives cuda.h and nvrtc.h (the \
                 driver), nvcc (the fatbin, bench's CUB library) and cuBLAS; running needs only the NVIDIA \
                 driver (libcuda.so.1)

# HCL_DEPS picks what `make deps` (and so `make bench` and `make test`) installs: full (default) every backend's
# packages and Intel's OpenCL CPU runtime; minimal only the common ones and the host and OpenCL backends' (the other
# drivers are then reported as not built by CMake, with what they need, and conformance-opencl-intel as skipped).
HCL_DEPS ?= full
DEPS_SETS_full    := common host opencl intel levelzero hip cuda vulkan
DEPS_SETS_minimal := common host opencl
DEPS_SETS := $(DEPS_SETS_$(HCL_DEPS))
ifeq ($(DEPS_SETS),)
$(error HCL_DEPS=$(HCL_DEPS) is not known: use HCL_DEPS=full (every backend) or HCL_DEPS=minimal (host and OpenCL))
endif
DEB_PACKAGES := $(sort $(foreach set,$(DEPS_SETS),$(DEPS_$(set))))

# Intel's OpenCL CPU runtime (set intel): PyPI's wheels in a virtual environment of their own under the source tree,
# where conformance/CMakeLists.txt looks (HCL_INTEL_OPENCL_LIB); libintelocl.so finds the compiler runtime's libraries
# (libimf, libsvml, libirng, libintlc) beside it through its $ORIGIN RUNPATH. The stamp, written last, names the
# version: an interrupted install is redone, a finished one only checked.
INTEL_OCL_VERSION := 2026.2.0
INTEL_OCL_DIR := $(CURDIR)/.deps/intel-opencl
INTEL_OCL_STAMP := $(INTEL_OCL_DIR)/hcl-installed-$(INTEL_OCL_VERSION)
# glslang newer than Debian 12's, for the Vulkan cooperative-matrix kernels (cmake/fetch-glslang.sh; CMake finds it there)
SLANGPY_VERSION := 0.43.1
GLSLANG_DIR := $(CURDIR)/.deps/glslang

# Sanitizer settings of the ASan run. Reports go to files under $(ASAN_DIR)/sanitizer-logs as well as failing
# the process, so a report from a child process (Criterion forks each test) cannot go unnoticed.
# intercept_tls_get_addr=0: the sanitizer runtime of GCC 12 (Debian 12) takes a dynamic TLS block that happens to
# start 16 bytes into a page for a pre-2.25 glibc header, and LeakSanitizer's tracer then dies at exit ("Tracer
# caught signal 11", no leak report); here it failed comm-mpi-np3 in 2 of 8 runs and tools-bench-opencl once, and
# 0 of 8 with this setting, the whole suite clean.
SAN_LOG_DIR := $(CURDIR)/$(ASAN_DIR)/sanitizer-logs
LSAN_SUPP := $(wildcard $(CURDIR)/conformance/lsan.supp)
SAN_ENV := ASAN_OPTIONS=detect_leaks=1:intercept_tls_get_addr=0:log_path=$(SAN_LOG_DIR)/asan \
           LSAN_OPTIONS=print_suppressions=0:log_path=$(SAN_LOG_DIR)/lsan$(if $(LSAN_SUPP),:suppressions=$(LSAN_SUPP)) \
           UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1:log_path=$(SAN_LOG_DIR)/ubsan

.PHONY: all deps deps-intel deps-glslang deps-list deps-packages build test test-asan bench info format clean help

all: build

help:
	@sed -n '/^#/!q;p' $(firstword $(MAKEFILE_LIST)) | sed 's/^# \{0,1\}//'

# The table of packages by backend; the sets HCL_DEPS=$(HCL_DEPS) installs are marked with *.
deps-list:
	@echo "backend    Debian/Ubuntu packages (* = installed by make deps with HCL_DEPS=$(HCL_DEPS))"
	@$(foreach set,$(DEPS_SETS_full),printf '%-10s %s\n' "$(set)$(if $(filter $(set),$(DEPS_SETS)),*)" \
	  "$(or $(DEPS_$(set)),(none))"; \
	  echo "$(strip $(WHY_$(set)))" | fold -s -w 104 | sed -e 's/ *$$//' -e 's/^/           /';)
	@echo "HCL_DEPS=full (default): every set; HCL_DEPS=minimal: common, host and opencl only"

# The packages `make deps` checks and installs with this HCL_DEPS, one line (for scripts and the deps test).
deps-packages:
	@echo $(DEB_PACKAGES)

deps:
	@echo "make deps: HCL_DEPS=$(HCL_DEPS): $(DEPS_SETS) ($(words $(DEB_PACKAGES)) packages; make deps-list says which)"
	@set -e; \
	if ! command -v dpkg-query >/dev/null 2>&1; then \
	  echo "make deps: dpkg-query not found (not Debian/Ubuntu): install the equivalents of: $(DEB_PACKAGES)"; \
	  exit 0; \
	fi; \
	missing=""; \
	for p in $(DEB_PACKAGES); do \
	  dpkg-query -W -f='$${db:Status-Abbrev}' "$$p" 2>/dev/null | grep -q '^ii' || missing="$$missing $$p"; \
	done; \
	if [ -z "$$missing" ]; then echo "make deps: all required packages are installed"; exit 0; fi; \
	echo "make deps: missing packages:$$missing"; \
	if [ "$$(id -u)" -ne 0 ]; then \
	  echo "make deps: not root; install them with:"; \
	  echo "  sudo apt-get update && sudo apt-get install -y --no-install-recommends$$missing"; \
	  exit 1; \
	fi; \
	export DEBIAN_FRONTEND=noninteractive; \
	apt-get update; \
	apt-get install -y --no-install-recommends $$missing
	@$(if $(filter intel,$(DEPS_SETS)),$(MAKE) --no-print-directory deps-intel)
	@$(if $(filter vulkan,$(DEPS_SETS)),$(MAKE) --no-print-directory deps-glslang)

# glslang from PyPI's slangpy wheel (only its library is kept; no root needed, nothing outside the folder).
deps-glslang:
	@bash cmake/fetch-glslang.sh "$(GLSLANG_DIR)" "$(SLANGPY_VERSION)"

# Intel's OpenCL CPU runtime from PyPI (pip in a new virtual environment; no root needed, nothing outside the folder).
deps-intel:
	@set -e; dir="$(INTEL_OCL_DIR)"; \
	if [ -f "$(INTEL_OCL_STAMP)" ] && [ -e "$$dir/lib/libintelocl.so" ]; then \
	  echo "make deps: Intel's OpenCL CPU runtime $(INTEL_OCL_VERSION) is installed ($$dir)"; exit 0; \
	fi; \
	if ! python3 -c 'import ensurepip, venv' >/dev/null 2>&1; then \
	  echo "make deps: Intel's OpenCL CPU runtime needs python3 with venv (Debian/Ubuntu: python3-venv)"; exit 1; \
	fi; \
	echo "make deps: installing Intel's OpenCL CPU runtime $(INTEL_OCL_VERSION) from PyPI into $$dir (about 270 MB)"; \
	rm -rf "$$dir"; \
	python3 -m venv "$$dir"; \
	if ! "$$dir/bin/python" -m pip install --quiet --disable-pip-version-check --no-warn-script-location \
	    intel-opencl-rt==$(INTEL_OCL_VERSION) intel-cmplr-lib-rt==$(INTEL_OCL_VERSION); then \
	  echo "make deps: pip could not install Intel's OpenCL CPU runtime (HCL_DEPS=minimal leaves it out)"; \
	  rm -rf "$$dir"; exit 1; \
	fi; \
	test -e "$$dir/lib/libintelocl.so" || { echo "make deps: the wheels put no lib/libintelocl.so in $$dir"; exit 1; }; \
	touch "$(INTEL_OCL_STAMP)"; \
	echo "make deps: Intel's OpenCL CPU runtime $(INTEL_OCL_VERSION) installed ($$dir)"

build:
	@if [ ! -f $(BUILD_DIR)/CMakeCache.txt ]; then \
	  echo "cmake -S . -B $(BUILD_DIR) -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DHCL_WERROR=ON $(CMAKE_ARGS)"; \
	  cmake -S . -B $(BUILD_DIR) -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DHCL_WERROR=ON $(CMAKE_ARGS); \
	fi
	cmake --build $(BUILD_DIR) -j $(JOBS)

# One line per conformance run (from ctest's full log): what ran, passed and failed, and why a backend skipped (or
# why conformance/with-icd.sh did not run it: a vendor library missing).
CONF_SUMMARY = awk '/^[0-9]+\/[0-9]+ Test: /{name = $$3 ~ /^conformance-/ ? $$3 : ""} name == "" {next} \
  /^hcl-conformance: [0-9]+ ran/{print "   " name ": " substr($$0, 18)} \
  /^with-icd: skipped: /{print "   " name ": skipped: " substr($$0, 20, 160)} \
  /backend unavailable:/ && !seen[name]++ {s=$$0; sub(/.*backend unavailable: /,"",s); \
  print "   " name ": skipped, backend unavailable: " substr(s, 1, 160)}'

test: deps build
	@rc=0; ctest --test-dir $(BUILD_DIR) --output-on-failure -j $(JOBS) || rc=$$?; \
	echo "== conformance summary ($(BUILD_DIR))"; \
	$(CONF_SUMMARY) $(BUILD_DIR)/Testing/Temporary/LastTest.log; \
	exit $$rc
	$(MAKE) --no-print-directory test-asan

# The whole ctest suite again, built with AddressSanitizer + UndefinedBehaviorSanitizer (+ LeakSanitizer).
# Fails when a test fails or when any sanitizer report appears anywhere: ASan/LSan reports are also written to
# files under $(ASAN_DIR)/sanitizer-logs, and every test's full output (passed tests included) is kept in
# $(ASAN_DIR)/sanitizer-junit.xml and searched, so a report from a process whose exit status is lost (a forked
# Criterion test, a helper process) still fails the run.
SAN_PATTERN := ERROR: [A-Za-z]*Sanitizer|: runtime error: |SUMMARY: [A-Za-z]*Sanitizer
SAN_CTEST := ctest --test-dir $(ASAN_DIR) --output-on-failure -j $(JOBS) --output-junit sanitizer-junit.xml \
             --test-output-size-passed 100000000 --test-output-size-failed 100000000
# The sanitizer build copies the plain build's device code (the CUDA fatbin and HIP bundle: nvcc's and hipcc's minutes;
# no host flag changes them) instead of compiling it again: kernels/CMakeLists.txt, HCL_DEVICE_CODE_FROM.
DEVICE_FROM = $(abspath $(BUILD_DIR))/kernels

test-asan: build
	@if [ ! -f $(ASAN_DIR)/CMakeCache.txt ]; then \
	  echo "cmake -S . -B $(ASAN_DIR) -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DHCL_SANITIZE=ON -DHCL_BUILD_TOOLS=ON -DHCL_BUILD_TESTS=ON -DHCL_WERROR=ON -DHCL_DEVICE_CODE_FROM=$(DEVICE_FROM) $(CMAKE_ARGS)"; \
	  cmake -S . -B $(ASAN_DIR) -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DHCL_SANITIZE=ON -DHCL_BUILD_TOOLS=ON \
	    -DHCL_BUILD_TESTS=ON -DHCL_WERROR=ON -DHCL_DEVICE_CODE_FROM=$(DEVICE_FROM) $(CMAKE_ARGS); \
	fi
	cmake --build $(ASAN_DIR) -j $(JOBS)
	@rm -rf $(SAN_LOG_DIR) $(ASAN_DIR)/sanitizer-junit.xml && mkdir -p $(SAN_LOG_DIR)
	@echo "$(SAN_ENV) $(SAN_CTEST)"
	@rc=0; $(SAN_ENV) $(SAN_CTEST) || rc=$$?; \
	found=0; \
	for f in $(SAN_LOG_DIR)/*; do \
	  [ -e "$$f" ] || continue; \
	  if grep -qE '$(SAN_PATTERN)' "$$f"; then found=1; echo "==== sanitizer report $$f"; cat "$$f"; fi; \
	done; \
	if grep -qE '$(SAN_PATTERN)' $(ASAN_DIR)/sanitizer-junit.xml 2>/dev/null; then \
	  found=1; echo "==== sanitizer reports in the test output ($(ASAN_DIR)/sanitizer-junit.xml):"; \
	  grep -nE -B2 -A12 '$(SAN_PATTERN)' $(ASAN_DIR)/sanitizer-junit.xml | head -n 300; \
	fi; \
	if [ $$found -ne 0 ]; then echo "make test-asan: FAILED: sanitizer reports above"; exit 1; fi; \
	echo "== conformance summary ($(ASAN_DIR), ASan+UBSan)"; \
	$(CONF_SUMMARY) $(ASAN_DIR)/Testing/Temporary/LastTest.log; \
	if [ $$rc -ne 0 ]; then echo "make test-asan: FAILED: ctest exit status $$rc"; exit $$rc; fi; \
	echo "make test-asan: passed, no sanitizer reports"

bench: deps build
	./$(BUILD_DIR)/bin/bench $(BENCH_ARGS)

info: build
	./$(BUILD_DIR)/bin/hcl-info

format:
	git ls-files '*.c' '*.h' '*.cu' '*.cl' | xargs clang-format -i

clean:
	rm -rf $(BUILD_DIR) $(ASAN_DIR)
