package io.kvlog.spark.read;

import io.kvlog.spark.format.RecordSink;

/**
 * Finds the first record with a timestamp at or after a target (or, {@link #exactly}, equal to it) and an offset
 * at or after a floor. Control records count as records, as in Kafka's ListOffsets: its search
 * ({@code FileRecords.searchForTimestamp}) walks every batch whose max timestamp reaches the target, control
 * batches included, so a transaction marker (stamped with the broker's clock when the transaction ended) answers
 * when it is the first entry at or after the target; and a control batch holding the largest timestamp answers
 * with its record carrying it ({@code RecordBatch.offsetOfMaxTimestamp}).
 */
final class TimestampSearch implements RecordSink {
    private final long target;
    private final long floor;
    private final boolean exact;
    long found = -1;

    TimestampSearch(long target, long floor) {
        this(target, floor, false);
    }

    private TimestampSearch(long target, long floor, boolean exact) {
        this.target = target;
        this.floor = floor;
        this.exact = exact;
    }

    /** The first record whose timestamp is {@code timestamp} exactly (Kafka's {@code offsetOfMaxTimestamp}). */
    static TimestampSearch exactly(long timestamp) {
        return new TimestampSearch(timestamp, Long.MIN_VALUE, true);
    }

    @Override
    public boolean needsRecordFields() {
        return true;
    }

    @Override
    public boolean includesControlRecords() {
        return true;
    }

    @Override
    public void offsetRun(long first, int count, int timestampType) {
        throw new IllegalStateException("a timestamp search needs the records");
    }

    @Override
    public void record(long offset, long timestampMs, int timestampType, byte[] buf, int keyOff, int keyLen,
                       int valueOff, int valueLen) {
        if (found < 0 && (exact ? timestampMs == target : timestampMs >= target) && offset >= floor) {
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
