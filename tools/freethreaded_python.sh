#!/usr/bin/env bash
# A free-threaded CPython (configure --disable-gil) built from the upstream source tarball Debian serves as
# the orig.tar.xz of its python3.X source package, into PREFIX (default build/cpython-ft). Built once: a
# second run finds PREFIX/bin/python3 (the free-threaded interpreter: python3.13t/python3.14t) and returns at once. Prints the interpreter's path on its last line.
#
# Why from source: python.org and GitHub are out of reach on these machines (so pyenv, uv and
# python-build-standalone downloads fail), no Debian suite ships a free-threaded python3.X-nogil binary
# package, and PyPI serves no interpreter. Debian's source pool is reachable and carries upstream's tarballs.
#
# CANDIDATES: "package version sha256" lines, tried in order; the first one the pool serves is built. The
# sha256 comes from the Checksums-Sha256 field of the dists/<suite>/main/source/Sources entry (looked up
# when the pin was made). When Debian drops a pinned version from the pool the next line is tried; when
# none is served the script says so and how to pin a newer one.
#
# With --tsan (make tsan): the same interpreter built by clang with ThreadSanitizer (--with-thread-sanitizer),
# default PREFIX build/cpython-ft-tsan. TSan needs the interpreter instrumented too: free-threaded CPython
# hands objects between threads through its own locks (biased reference counting, PyMutex), which TSan
# cannot see in an uninstrumented interpreter, and reports every such hand-over as a race.
set -euo pipefail
cd "$(dirname "$0")/.."
TSAN=0
if [ "${1:-}" = --tsan ]; then TSAN=1; shift; fi
PREFIX=${1:-$([ $TSAN = 1 ] && echo build/cpython-ft-tsan || echo build/cpython-ft)}
# Debian's archive as this machine's apt is configured (the first deb URI ending in /debian), or
# KVLOG_DEBIAN_MIRROR.
apt_mirror() {
  cat /etc/apt/sources.list /etc/apt/sources.list.d/*.list /etc/apt/sources.list.d/*.sources 2>/dev/null |
    grep -oE '(https?://[^ ]+/debian)/?( |$)' | head -1 | tr -d ' ' | sed 's|/$||'
}
MIRROR=${KVLOG_DEBIAN_MIRROR:-$(apt_mirror || true)}
[ -n "$MIRROR" ] || { echo "freethreaded_python: no Debian mirror in apt's sources; set KVLOG_DEBIAN_MIRROR" >&2; exit 1; }
SRC=build/cpython-src
# 3.14 first (PEP 779: free-threading supported); at the time of writing the pool answered 404 for every
# python3.14 file sid/forky's Sources list, while python3.13's 3.13.15 (forky and sid) was served.
CANDIDATES="python3.14 3.14.10 de414a57119abef52784d8993e341d53aed635fc2b05c2607d9f98a2c5b72032
python3.14 3.14.9 e02d9ac21cebda6e46435369744a92c65cc7cd8669697694122cf97ffacd1e53
python3.14 3.14.8 c2215904f02b175596dc49351585104f4bc20341e1c47378b26a2c274360ce73
python3.13 3.13.15 1e66a7945a48390ee4c2a4268a0e4185884059a13c4aab6d148aa208deea4a76"

if [ -x "$PREFIX/bin/python3" ] && "$PREFIX/bin/python3" -c 'import sys, ssl, zlib, lzma, bz2, ctypes, sqlite3; sys.exit(sys._is_gil_enabled())' 2>/dev/null; then
  echo "$PREFIX/bin/python3"
  exit 0
fi

# Build dependencies (Debian): the headers of the stdlib's C modules pip, numpy, pyarrow and the suite use.
# (the TSan build adds clang; an `if`, since a failing substitution in an assignment would end the script)
TSAN_DEPS=""
if [ $TSAN = 1 ]; then TSAN_DEPS="clang libclang-rt-14-dev"; fi
DEPS="$TSAN_DEPS build-essential pkg-config libssl-dev zlib1g-dev libffi-dev libbz2-dev liblzma-dev libsqlite3-dev
libreadline-dev libncurses-dev libgdbm-dev uuid-dev"
missing=$(for d in $DEPS; do [ "$d" = build-essential ] && continue; dpkg -s "$d" >/dev/null 2>&1 || echo "$d"; done)
if [ -n "$missing" ]; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
    echo "freethreaded_python: apt-get install $missing" >&2
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $missing >/dev/null
  else
    echo "freethreaded_python: missing build dependencies (install them): $missing" >&2
    exit 1
  fi
fi

mkdir -p "$SRC"
tarball=""
tried=""
while read -r pkg ver sum; do
  file="${pkg}_${ver}.orig.tar.xz"
  if [ -f "$SRC/$file" ] && echo "$sum  $SRC/$file" | sha256sum -c --quiet - 2>/dev/null; then
    tarball="$SRC/$file"; break
  fi
  url="$MIRROR/pool/main/p/$pkg/$file"
  if curl -sS -f -L --retry 2 -o "$SRC/$file.part" "$url" 2>/dev/null; then
    if echo "$sum  $SRC/$file.part" | sha256sum -c --quiet -; then
      mv "$SRC/$file.part" "$SRC/$file"; tarball="$SRC/$file"; break
    fi
    echo "freethreaded_python: $url does not match its pinned sha256 $sum; not used" >&2
  fi
  rm -f "$SRC/$file.part"
  tried="$tried
  $url"
done <<< "$CANDIDATES"
if [ -z "$tarball" ]; then
  cat >&2 <<MSG
freethreaded_python: none of the pinned CPython source tarballs is served any more:$tried
Pin a newer one in tools/freethreaded_python.sh: find python3.1X's entry (Version, orig.tar.xz and its
sha256 under Checksums-Sha256) in $MIRROR/dists/sid/main/source/Sources.xz, e.g.
  curl -s $MIRROR/dists/sid/main/source/Sources.xz | xz -dc | awk '/^Package: python3.14\$/,/^\$/' | grep -E '^Version|orig.tar.xz'
MSG
  exit 1
fi

start=$(date +%s)
work=$(mktemp -d "${TMPDIR:-/tmp}/cpython-ft.XXXXXX")
trap 'rm -rf "$work"' EXIT
tar -C "$work" -xJf "$tarball"
top=$(ls "$work")
abs_prefix=$(mkdir -p "$PREFIX" && cd "$PREFIX" && pwd)
echo "freethreaded_python: building $(basename "$tarball") with --disable-gil into $abs_prefix (log: $work/$top/build.log)" >&2
(
  cd "$work/$top"
  # No --enable-optimizations: PGO runs the test suite (an hour here); -O3 as upstream's default otherwise.
  if [ $TSAN = 1 ]; then
    CC=clang CXX=clang++ ./configure --disable-gil --with-thread-sanitizer --prefix="$abs_prefix" \
      --with-ensurepip=install >build.log 2>&1
  else
    ./configure --disable-gil --prefix="$abs_prefix" --with-ensurepip=install >build.log 2>&1
  fi
  make -j"$(nproc)" >>build.log 2>&1
  make install >>build.log 2>&1
) || { tail -40 "$work/$top/build.log" >&2; exit 1; }
"$abs_prefix/bin/python3" -c 'import sys, ssl, zlib, lzma, bz2, ctypes, sqlite3
assert not sys._is_gil_enabled(), "the interpreter was built with the GIL"
print("freethreaded_python:", sys.version, file=sys.stderr)'
echo "freethreaded_python: built in $(( $(date +%s) - start )) s" >&2
echo "$PREFIX/bin/python3"
