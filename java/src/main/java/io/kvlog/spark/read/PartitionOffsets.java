package io.kvlog.spark.read;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.kvlog.spark.log.TopicPartition;
import java.io.IOException;
import java.util.Map;
import java.util.TreeMap;
import org.apache.spark.sql.connector.read.streaming.Offset;

/** A stream position: the next offset to read per partition, as Kafka's {"topic":{"0":23}} JSON. */
final class PartitionOffsets extends Offset {
    private static final ObjectMapper JSON = new ObjectMapper();

    final Map<TopicPartition, Long> offsets;

    PartitionOffsets(Map<TopicPartition, Long> offsets) {
        this.offsets = new TreeMap<>(offsets);
    }

    static PartitionOffsets parse(String json) {
        try {
            Map<TopicPartition, Long> out = new TreeMap<>();
            for (Map.Entry<String, JsonNode> t : JSON.readTree(json).properties()) {
                for (Map.Entry<String, JsonNode> p : t.getValue().properties()) {
                    out.put(new TopicPartition(t.getKey(), Integer.parseInt(p.getKey())), p.getValue().asLong());
                }
            }
            return new PartitionOffsets(out);
        } catch (IOException | RuntimeException e) {
            throw new IllegalArgumentException("not a kvlog stream offset: '" + json + "'", e);
        }
    }

    @Override
    public String json() {
        ObjectNode root = JSON.createObjectNode();
        offsets.forEach((tp, off) -> {
            JsonNode topic = root.get(tp.topic());
            ObjectNode node = topic == null ? root.putObject(tp.topic()) : (ObjectNode) topic;
            node.put(Integer.toString(tp.partition()), off);
        });
        return root.toString();
    }
}
