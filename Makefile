# minitf: the two commands of the quick start, and the sanitizer check.
#
#   make run     install missing packages, build, run the main job
#   make test    install missing packages, build, run every test (ctest)
#   make check   AddressSanitizer+UBSan build for all tests but the
#                concurrency ones, ThreadSanitizer build for those (clang, so
#                the thread-safety annotations are checked too). The CUDA
#                parts are compiled by the main build, not again here.
#   make bench   build and run the benchmarks (bench_allocator runs with the
#                options docs/BENCHMARKS.md gives)

BUILD_DIR ?= build
JOBS ?= $(shell nproc)
CMAKE_FLAGS ?=
ifeq ($(CI),true)
  CMAKE_FLAGS += -DMINITF_WERROR=ON
endif

# Debian packages the build needs (see README.md for why each is used).
DEPS := cmake ninja-build g++ clang libclang-rt-14-dev \
        libabsl-dev libfmt-dev libspdlog-dev libeigen3-dev nlohmann-json3-dev \
        libgtest-dev libgmock-dev libbenchmark-dev libmimalloc-dev gnuplot-nox ccache \
        libprotobuf-dev protobuf-compiler libopenblas-dev libdnnl-dev ocl-icd-opencl-dev pkg-config \
        python3-dev pybind11-dev python3-numpy python3-pytest python3-pandas python3-matplotlib
# The tests ThreadSanitizer runs (only these are built in build-tsan).
CONCURRENCY_TESTS := $(basename $(notdir $(shell find tests -name "*_concurrency_test.cc")))
SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)
# ccache keys on paths relative to the checkout, so a fresh clone elsewhere
# (CI's) reuses the objects of an earlier build.
export CCACHE_BASEDIR := $(CURDIR)
export CCACHE_NOHASHDIR := 1

.PHONY: all deps configure build run test check bench clean

all: build

deps:
	@missing=""; \
	for p in $(DEPS); do \
	  dpkg-query -W -f='$${Status}' $$p 2>/dev/null | grep -q "install ok installed" || missing="$$missing $$p"; \
	done; \
	if [ -n "$$missing" ]; then \
	  echo "Installing missing packages:$$missing"; \
	  $(SUDO) apt-get update -qq && \
	  DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq --no-install-recommends $$missing; \
	fi

$(BUILD_DIR)/build.ninja:
	cmake -S . -B $(BUILD_DIR) -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo $(CMAKE_FLAGS)

configure: deps $(BUILD_DIR)/build.ninja

build: configure
	cmake --build $(BUILD_DIR) -j $(JOBS)

# The main job: the AntMan memory experiment on SimGPU, compressed to 45 s,
# with 10 s solo baselines (docs/EXPERIMENTS.md).
run: build
	$(BUILD_DIR)/bin/minitf colocate bench/scenarios/antman_harvest.json \
	  --seconds 45 --baseline --baseline-seconds 10 --processes --simgpu share=mps \
	  --opportunistic-below-normal --defer-opportunistic --out runs/antman_harvest

test: build
	cd $(BUILD_DIR) && ctest --output-on-failure -j $(JOBS)

check: deps
	cmake -S . -B build-asan -G Ninja -DCMAKE_BUILD_TYPE=Debug \
	  -DCMAKE_C_COMPILER=clang -DCMAKE_CXX_COMPILER=clang++ \
	  -DMINITF_SANITIZE=address -DMINITF_BUILD_BENCH=OFF -DMINITF_ENABLE_CUDA=OFF $(CMAKE_FLAGS)
	cmake --build build-asan -j $(JOBS)
	cd build-asan && ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 \
	  ctest --output-on-failure -j $(JOBS) -LE concurrency
	cmake -S . -B build-tsan -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
	  -DCMAKE_C_COMPILER=clang -DCMAKE_CXX_COMPILER=clang++ \
	  -DMINITF_SANITIZE=thread -DMINITF_BUILD_BENCH=OFF -DMINITF_ENABLE_CUDA=OFF \
	  -DMINITF_CONCURRENCY_TESTS_ONLY=ON $(CMAKE_FLAGS)
	cmake --build build-tsan -j $(JOBS) --target $(CONCURRENCY_TESTS)
	cd build-tsan && TSAN_OPTIONS=halt_on_error=1:second_deadlock_stack=1 \
	  ctest --output-on-failure -L concurrency

bench: build
	$(BUILD_DIR)/bin/bench_executor
	$(BUILD_DIR)/bin/bench_session
	$(BUILD_DIR)/bin/bench_sim_gpu
	$(BUILD_DIR)/bin/bench_gpu_copy
	$(BUILD_DIR)/bin/bench_pacing
	$(BUILD_DIR)/bin/bench_allocator --benchmark_min_time=0.2

clean:
	rm -rf $(BUILD_DIR) build-asan build-tsan
