#!/usr/bin/env bash
# The system libraries kvlog's build links when present: liblz4 and libzstd with their headers, so the record
# decoder inflates lz4 and zstd batches without the GIL (setup.py, csrc/codec.c). Installs Debian's
# liblz4-dev and libzstd-dev with apt-get (as root, or through password-less sudo) when they are missing, and
# says what to install otherwise. Exit status 0 when the headers are there afterwards.
set -euo pipefail
have() { [ -f /usr/include/lz4frame.h ] && [ -f /usr/include/zstd.h ]; }
have && exit 0
if command -v apt-get >/dev/null; then
  if [ "$(id -u)" = 0 ]; then apt=(apt-get)
  elif command -v sudo >/dev/null && sudo -n true 2>/dev/null; then apt=(sudo apt-get)
  else apt=()
  fi
  if [ ${#apt[@]} -gt 0 ]; then
    echo "system_libs: apt-get install liblz4-dev libzstd-dev (once)" >&2
    DEBIAN_FRONTEND=noninteractive "${apt[@]}" install -y -qq --no-install-recommends liblz4-dev libzstd-dev >/dev/null 2>&1 ||
      { "${apt[@]}" update -qq && DEBIAN_FRONTEND=noninteractive "${apt[@]}" install -y -qq --no-install-recommends \
          liblz4-dev libzstd-dev >/dev/null; }
  fi
fi
have || { echo "system_libs: liblz4 and libzstd's headers are missing; install them (Debian: liblz4-dev libzstd-dev," \
  "RHEL: lz4-devel libzstd-devel), or build with KVLOG_REQUIRE_SYSTEM_CODECS=0" >&2; exit 1; }
