package io.kvlog.spark.write;

import io.kvlog.spark.log.TopicPartition;
import java.util.List;
import org.apache.spark.sql.connector.write.WriterCommitMessage;

/**
 * What one task wrote: per partition, the offsets {@code [start, end)} and each segment's base and .log size; and
 * whether its input was batches encoded before the exchange ({@link SinkExchangeExec}) rather than rows.
 */
record SinkCommitMessage(List<Written> written, boolean fromBatches) implements WriterCommitMessage {
    private static final long serialVersionUID = 1L;

    record Written(TopicPartition tp, long start, long end, long[] bases, long[] sizes)
            implements java.io.Serializable {
        private static final long serialVersionUID = 1L;
    }
}
