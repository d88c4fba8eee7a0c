package io.kvlog.spark.log;

import io.kvlog.spark.format.Bytes;
import java.util.ArrayList;
import java.util.List;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;

/**
 * A segment's {@code .txnindex}: Kafka's 34-byte {@code AbortedTxn} entries (version int16, producer id, first
 * offset, last offset = the ABORT marker's offset, last stable offset), one per transaction aborted by a marker in
 * that segment. Read whole; a missing file has no entries (Kafka writes one only when there is an abort).
 */
public final class TxnIndexFile {
    static final int ENTRY = 34;

    private TxnIndexFile() {
    }

    /** The entries ({producer id, first offset, marker offset}) of the index beside {@code logFile}. */
    public static List<long[]> entries(FileSystem fs, Path logFile) {
        byte[] data = OffsetIndexLookup.readEntries(fs, logFile, ".txnindex", ENTRY);
        List<long[]> out = new ArrayList<>();
        if (data == null) {
            return out;
        }
        for (int p = 0; p + ENTRY <= data.length; p += ENTRY) {
            out.add(new long[] {Bytes.int64(data, p + 2), Bytes.int64(data, p + 10), Bytes.int64(data, p + 18)});
        }
        return out;
    }
}
