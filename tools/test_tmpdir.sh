#!/bin/sh
# Prints a new, empty directory for one test run's temporary files (pytest's tmp_path, TMPDIR, Spark's local
# dirs): on the tmpfs /dev/shm when it has room, since the suite writes and syncs many small logs and on a
# virtual disk that costs it both system time and waits; otherwise under $TMPDIR (or /tmp).
# KVLOG_TEST_TMP=<dir> names the parent to use instead (KVLOG_TEST_TMP=/tmp: run on the disk).
# KVLOG_TEST_TMP_MIN_GIB: the free space /dev/shm needs to be chosen (default 2; a run peaked at 0.45 GiB).
set -eu
parent=${KVLOG_TEST_TMP:-}
if [ -z "$parent" ]; then
    parent=${TMPDIR:-/tmp}
    min_kib=$(( ${KVLOG_TEST_TMP_MIN_GIB:-2} * 1024 * 1024 ))
    if [ "$(stat -f -c %T /dev/shm 2>/dev/null || true)" = tmpfs ] && [ -w /dev/shm ]; then
        free_kib=$(df -Pk /dev/shm | awk 'NR == 2 { print $4 }')
        if [ "${free_kib:-0}" -ge "$min_kib" ]; then
            parent=/dev/shm
        fi
    fi
fi
mktemp -d "$parent/kvlog-tests.XXXXXX"
