package kvlog.bench;

import java.util.Date;
import java.util.Map;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.data.SchemaBuilder;
import org.apache.kafka.connect.data.Struct;
import org.apache.kafka.connect.data.Timestamp;
import org.apache.kafka.connect.sink.SinkRecord;
import org.apache.kafka.connect.transforms.Transformation;

/**
 * A sink record of raw bytes (ByteArrayConverter) as the row kvlog.iceberg exports for it: key, value, partition,
 * offset, timestamp. Iceberg's sink takes only Struct or Map values, and Kafka's own transforms cannot put the key
 * and the record's position beside the value; a tombstone passes through (the sink skips it).
 */
public final class RecordAsRow implements Transformation<SinkRecord> {
    static final Schema ROW = SchemaBuilder.struct().name("kvlog.bench.Row")
            .field("key", Schema.OPTIONAL_BYTES_SCHEMA)
            .field("value", Schema.OPTIONAL_BYTES_SCHEMA)
            .field("partition", Schema.INT32_SCHEMA)
            .field("offset", Schema.INT64_SCHEMA)
            .field("timestamp", Timestamp.builder().optional().build())
            .build();

    @Override
    public SinkRecord apply(SinkRecord r) {
        if (r.value() == null) {
            return r;
        }
        Struct row = new Struct(ROW)
                .put("key", r.key())
                .put("value", r.value())
                .put("partition", r.kafkaPartition())
                .put("offset", r.kafkaOffset())
                .put("timestamp", r.timestamp() == null ? null : new Date(r.timestamp()));
        return r.newRecord(r.topic(), r.kafkaPartition(), r.keySchema(), r.key(), ROW, row, r.timestamp());
    }

    @Override
    public ConfigDef config() {
        return new ConfigDef();
    }

    @Override
    public void configure(Map<String, ?> configs) {
    }

    @Override
    public void close() {
    }
}
