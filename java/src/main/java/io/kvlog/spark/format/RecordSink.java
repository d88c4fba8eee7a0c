package io.kvlog.spark.format;

/** Where decoded records go: the columns of a Spark batch, or a search over timestamps. */
public interface RecordSink {
    /** Whether the sink needs each record's fields (key, value, timestamp, headers) or offsets suffice. */
    boolean needsRecordFields();

    /**
     * Whether the records of control batches (transaction markers, KRaft control records) come too: a timestamp
     * search sees them, as Kafka's ListOffsets does; the rows of a read never do.
     */
    default boolean includesControlRecords() {
        return false;
    }

    /** {@code count} consecutive offsets from {@code first}, all with timestamp type {@code timestampType}. */
    void offsetRun(long first, int count, int timestampType);

    /** One record; a length of -1 is a null key or value. */
    void record(long offset, long timestampMs, int timestampType, byte[] buf, int keyOff, int keyLen,
                int valueOff, int valueLen);

    /** The headers of the record just given: {@code count} calls to {@link #header} follow; -1 means v0/v1 (no headers at all). */
    void headers(int count);

    void header(byte[] buf, int keyOff, int keyLen, int valueOff, int valueLen);
}
