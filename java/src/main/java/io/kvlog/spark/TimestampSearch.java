package io.kvlog.spark;

/** Finds the first record with a timestamp at or after a target and an offset at or after a floor. */
final class TimestampSearch implements RecordSink {
    private final long target;
    private final long floor;
    long found = -1;

    TimestampSearch(long target, long floor) {
        this.target = target;
        this.floor = floor;
    }

    @Override
    public boolean needsRecordFields() {
        return true;
    }

    @Override
    public void offsetRun(long first, int count, int timestampType) {
        throw new IllegalStateException("a timestamp search needs the records");
    }

    @Override
    public void record(long offset, long timestampMs, int timestampType, byte[] buf, int keyOff, int keyLen,
                       int valueOff, int valueLen) {
        if (found < 0 && timestampMs >= target && offset >= floor) {
            found = offset;
        }
    }

    @Override
    public void headers(int count) {
    }

    @Override
    public void header(byte[] buf, int keyOff, int keyLen, int valueOff, int valueLen) {
    }
}
