#!/usr/bin/env bash
# Build kvlog's compiled layer with AddressSanitizer + UndefinedBehaviorSanitizer + libFuzzer coverage
# into a private copy of the package (build/asan/src), so the in-place release .so files stay untouched.
# Usage: fuzz/build_asan.sh [python]   (default: .venv/bin/python); prints the directory to put on sys.path.
set -euo pipefail
cd "$(dirname "$0")/.."
PY=${1:-.venv/bin/python}
command -v clang >/dev/null || { echo "the sanitized build needs clang (Debian: apt-get install clang libclang-rt-14-dev)" >&2; exit 1; }
OUT=build/asan
mkdir -p "$OUT/src"
# tar keeps mtimes, so only changed .pyx/.c files are regenerated and recompiled.
tar -C src --exclude='*.so' --exclude=__pycache__ --exclude='*.html' -cf - . | tar -C "$OUT/src" -xf -
cp -p setup.py pyproject.toml README.md "$OUT/"
SAN="-fsanitize=address,undefined,fuzzer-no-link -fno-sanitize-recover=undefined -fno-omit-frame-pointer -g"
# setup.py strips release builds (-s); drop that so sanitizer reports carry symbol names.
cat > "$OUT/ld_nostrip" <<LD
#!/bin/sh
for a in "\$@"; do shift; [ "\$a" = "-s" ] || set -- "\$@" "\$a"; done
exec clang -shared $SAN "\$@"
LD
chmod +x "$OUT/ld_nostrip"
ABS=$(cd "$OUT" && pwd)
(cd "$OUT" && CC=clang CFLAGS="$SAN" LDSHARED="$ABS/ld_nostrip" \
   "$OLDPWD/$PY" setup.py -q build_ext --inplace -j 2 --build-temp tmp >build.log 2>&1) \
  || { tail -40 "$OUT/build.log" >&2; exit 1; }
for so in "$OUT"/src/kvlog/_core/*.so; do
  nm -D "$so" | grep " U __asan_init" >/dev/null || { echo "$so is not instrumented" >&2; exit 1; }
done
echo "$ABS/src"
