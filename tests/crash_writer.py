"""Writer process for the kill -9 tests: appends, flushes, acknowledges on stdout, forever."""

import sys

import kvlog
from kvlog.log import Log


def value(i: int) -> bytes:
    return b"record-%08d-" % i + bytes([i % 251]) * (i % 97)


def main() -> None:
    path, seed = sys.argv[1], int(sys.argv[2])
    cfg = kvlog.LogConfig(segment_bytes=4096 + (seed % 7) * 1024, index_interval_bytes=256,
                          segment_index_bytes=4096)
    log = Log.open(path, cfg)
    i = log.log_end_offset
    print("ready", i, flush=True)
    batch = 1 + seed % 5
    while True:
        recs = [kvlog.Record(b"k%d" % (i + j), value(i + j), 1_700_000_000_000 + i + j) for j in range(batch)]
        info = log.append(recs, compression=["none", "lz4", "zstd", "gzip"][seed % 4])
        i = info.last_offset + 1
        if i % 3 == 0:
            log.flush()
            print("ack", log.recovery_point, flush=True)
        if i % 50 == 0:
            log.delete_records(max(log.log_start_offset, i - 200))
            log.delete_old_segments()


if __name__ == "__main__":
    main()
