#!/usr/bin/env bash
# ThreadSanitizer on kvlog's C kernels: the compiled layer built with -fsanitize=thread into a private copy of
# the package (build/tsan/src; the in-place .so files stay untouched, as fuzz/build_asan.sh keeps the ASan
# build apart), then the threaded tests run with it on PYTHON.
#
# PYTHON should be a free-threaded CPython built with TSan (`make tsan`: .venv-ft-tsan, from
# tools/freethreaded_python.sh --tsan): the kernels are then built by clang like the interpreter, and TSan
# sees the interpreter's own synchronisation too. With an uninstrumented interpreter the runtime must be
# preloaded (gcc's libtsan.so.2: clang 14's shared runtime crashes when preloaded, even into /bin/true), and
# a free-threaded one then reports every object handed between threads through its biased reference counts
# and PyMutex, which TSan cannot see: useful only on the GIL build, where the GIL hides most races anyway.
#
# Usage: tools/tsan.sh [python] [test files...]. Exit status: pytest's, or 66 when TSan reported a race,
# with the reports in build/tsan/report.*.
set -euo pipefail
cd "$(dirname "$0")/.."
PY=${1:-.venv-ft-tsan/bin/python}
shift || true
TESTS=${*:-tests/test_threads.py tests/test_codec_inline.py tests/test_checksum.py tests/test_offset_map.py}
instrumented=$("$PY" -c 'import sysconfig; print(int("--with-thread-sanitizer" in (sysconfig.get_config_var("CONFIG_ARGS") or "")))')
if [ "$instrumented" = 1 ]; then
  CC=clang
  PRELOAD=
else
  CC=gcc
  PRELOAD=$(readlink -f "$(gcc -print-file-name=libtsan.so)")
  [ -f "$PRELOAD" ] || { echo "tsan: needs gcc's libtsan (Debian: apt-get install libtsan2)" >&2; exit 1; }
fi
command -v $CC >/dev/null || { echo "tsan: needs $CC" >&2; exit 1; }
OUT=build/tsan
mkdir -p "$OUT/src"
tar -C src --exclude='*.so' --exclude=__pycache__ --exclude='*.html' -cf - . | tar -C "$OUT/src" -xf -
cp -p setup.py pyproject.toml README.md MANIFEST.in "$OUT/"
SAN="-fsanitize=thread -fno-omit-frame-pointer -g -O1"
# setup.py strips release builds (-s); drop that so reports carry symbol names
cat > "$OUT/ld_nostrip" <<LD
#!/bin/sh
for a in "\$@"; do shift; [ "\$a" = "-s" ] || set -- "\$@" "\$a"; done
exec $CC -shared $SAN "\$@"
LD
chmod +x "$OUT/ld_nostrip"
ABS=$(cd "$OUT" && pwd)
# each interpreter's generated C and objects in their own directories
tag=$("$PY" -c 'import sys, sysconfig; print(sys.implementation.cache_tag + ("t" if sysconfig.get_config_var("Py_GIL_DISABLED") else ""))')-$CC
(cd "$OUT" && CC=$CC CFLAGS="$SAN" LDSHARED="$ABS/ld_nostrip" KVLOG_CYTHON_BUILD_DIR="$ABS/cython-$tag" \
   "$OLDPWD/$PY" setup.py -q build_ext --inplace -j 2 --build-temp "tmp-$tag" >build.log 2>&1) \
  || { tail -40 "$OUT/build.log" >&2; exit 1; }
suffix=$("$PY" -c 'import sysconfig; print(sysconfig.get_config_var("EXT_SUFFIX"))')
for so in "$OUT"/src/kvlog/_core/*"$suffix"; do
  nm -D "$so" | grep " U __tsan_func_entry" >/dev/null || { echo "$so is not instrumented" >&2; exit 1; }
done
rm -f "$OUT"/report.*
echo "tsan: $("$PY" -c 'import sys; print(sys.version.split()[0], "free-threaded" if not getattr(sys, "_is_gil_enabled", lambda: True)() else "GIL")'), interpreter $([ "$instrumented" = 1 ] || echo "not ")instrumented, kvlog from $ABS/src" >&2
# PYTHON_GIL=0: cramjam 2.11 (3.13t) has not declared free-threading support and would turn the GIL on.
# PYTHONMALLOC=malloc on a GIL build: objects through malloc, which TSan intercepts (a free-threaded build
# has only mimalloc, instrumented with the interpreter). The suppressions name uninstrumented libraries.
malloc=$("$PY" -c 'import sysconfig; print("" if sysconfig.get_config_var("Py_GIL_DISABLED") else "malloc")')
set +e
PYTHON_GIL=0 PYTHONPATH="$ABS/src" PYTHONMALLOC=$malloc LD_PRELOAD="$PRELOAD" \
TSAN_OPTIONS="exitcode=66 halt_on_error=0 log_path=$ABS/report second_deadlock_stack=1 suppressions=$PWD/tools/tsan.supp" \
  "$PY" -m pytest -c pyproject.toml -p no:cacheprovider -q -p no:xdist -o addopts="" -m "not slow" $TESTS
status=$?
set -e
races=$(cat "$OUT"/report.* 2>/dev/null | grep -c "WARNING: ThreadSanitizer" || true)
if [ "$races" -gt 0 ]; then
  echo "tsan: $races reports in $OUT/report.* (the first below)" >&2
  grep -h -A 40 "WARNING: ThreadSanitizer" "$OUT"/report.* | head -60 >&2
  exit 66
fi
[ $status -ne 0 ] || echo "tsan: no data race reported" >&2
exit $status
