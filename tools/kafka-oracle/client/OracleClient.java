package io.kvlog.oracle;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;

import java.io.File;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.atomic.AtomicLong;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.Config;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.clients.admin.DescribeClusterResult;
import org.apache.kafka.clients.admin.FeatureMetadata;
import org.apache.kafka.clients.admin.FinalizedVersionRange;
import org.apache.kafka.clients.admin.GroupListing;
import org.apache.kafka.clients.admin.ListOffsetsOptions;
import org.apache.kafka.clients.admin.ListOffsetsResult;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.KafkaShareConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.IsolationLevel;
import org.apache.kafka.common.Node;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.TopicPartitionInfo;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.internals.RecordHeader;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.StreamsBuilder;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.kstream.Consumed;
import org.apache.kafka.streams.kstream.Produced;

/**
 * kvlog's broker tests' Kafka client: Kafka's own Java client, driven from a JSON request, answering in JSON.
 *
 * <p>What a consumer reads (every field), what ListOffsets answers, the groups' committed offsets and the
 * cluster's metadata are the "truth" the tests hold kvlog's readers against; producing with transactions
 * (TV2 on a 4.x broker), a KIP-848 consumer group, a share group and a streams group make data that the
 * Python clients cannot. Usage: {@code OracleClient <request.json> <answer.json>}.
 */
public final class OracleClient {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final JsonNodeFactory NODES = JsonNodeFactory.instance;
    private static final Base64.Encoder B64 = Base64.getEncoder();
    private static final Base64.Decoder B64D = Base64.getDecoder();

    private OracleClient() {
    }

    public static void main(String[] args) throws Exception {
        JsonNode request = JSON.readTree(new File(args[0]));
        String bootstrap = request.get("bootstrap").asText();
        ObjectNode answer = NODES.objectNode();
        for (JsonNode step : request.get("steps")) {
            String op = step.get("op").asText();
            String name = step.has("name") ? step.get("name").asText() : op;
            JsonNode result;
            switch (op) {
                case "resume": result = resume(bootstrap, step); break;
                case "open_transaction": result = openTransaction(bootstrap, step); break;
                case "read": result = read(bootstrap, step); break;
                case "offsets": result = offsets(bootstrap, step); break;
                case "groups": result = groups(bootstrap); break;
                case "metadata": result = metadata(bootstrap, step); break;
                case "produce": result = produce(bootstrap, step); break;
                case "consume": result = consume(bootstrap, step); break;
                case "share": result = share(bootstrap, step); break;
                case "streams": result = streams(bootstrap, step); break;
                case "producers": result = producers(bootstrap, step); break;
                default: throw new IllegalArgumentException("unknown op " + op);
            }
            answer.set(name, result);
        }
        JSON.writerWithDefaultPrettyPrinter().writeValue(new File(args[1]), answer);
    }

    private static Properties common(String bootstrap) {
        Properties p = new Properties();
        p.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        p.put(AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, "30000");
        p.put(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, "60000");
        return p;
    }

    /** {@code o[key] = value}, or JSON null when the Optional is empty. */
    private static void putOptional(ObjectNode o, String key, java.util.Optional<? extends Number> value) {
        if (value.isPresent()) {
            o.put(key, value.get().longValue());
        } else {
            o.putNull(key);
        }
    }

    private static String b64(byte[] b) {
        return b == null ? null : B64.encodeToString(b);
    }

    private static byte[] unb64(JsonNode n) {
        return n == null || n.isNull() ? null : B64D.decode(n.asText());
    }

    private static List<TopicPartition> partitions(JsonNode step) {
        List<TopicPartition> tps = new ArrayList<>();
        for (JsonNode tp : step.get("partitions")) {
            tps.add(new TopicPartition(tp.get(0).asText(), tp.get(1).asInt()));
        }
        return tps;
    }

    private static String key(TopicPartition tp) {
        return tp.topic() + "-" + tp.partition();
    }

    // ---- reads --------------------------------------------------------------------------------------------
    /** Every record of each partition from its log start to its end (HW, or LSO for read_committed). */
    private static JsonNode read(String bootstrap, JsonNode step) {
        String isolation = step.path("isolation").asText("read_uncommitted");
        Properties p = common(bootstrap);
        p.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
        p.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
        p.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, isolation);
        p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
        p.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        p.put(ConsumerConfig.CHECK_CRCS_CONFIG, "true");
        ObjectNode out = NODES.objectNode();
        List<TopicPartition> tps = partitions(step);
        try (KafkaConsumer<byte[], byte[]> c = new KafkaConsumer<>(p)) {
            c.assign(tps);
            Map<TopicPartition, Long> begin = c.beginningOffsets(tps);
            Map<TopicPartition, Long> end = c.endOffsets(tps);
            c.seekToBeginning(tps);
            Map<TopicPartition, ArrayNode> recs = new HashMap<>();
            for (TopicPartition tp : tps) {
                recs.put(tp, NODES.arrayNode());
            }
            long deadline = System.currentTimeMillis() + 120_000;
            Set<TopicPartition> open = new HashSet<>(tps);
            while (!open.isEmpty()) {
                if (System.currentTimeMillis() > deadline) {
                    throw new IllegalStateException("read timed out on " + open);
                }
                ConsumerRecords<byte[], byte[]> batch = c.poll(Duration.ofMillis(200));
                for (ConsumerRecord<byte[], byte[]> r : batch) {
                    TopicPartition tp = new TopicPartition(r.topic(), r.partition());
                    if (r.offset() >= end.get(tp)) {
                        continue;
                    }
                    ArrayNode headers = NODES.arrayNode();
                    for (Header h : r.headers()) {
                        headers.add(NODES.arrayNode().add(h.key()).add(b64(h.value())));
                    }
                    ObjectNode o = NODES.objectNode();
                    o.put("offset", r.offset());
                    o.put("timestamp", r.timestamp());
                    o.put("timestamp_type", r.timestampType().name);
                    o.put("key", b64(r.key()));
                    o.put("value", b64(r.value()));
                    o.set("headers", headers);
                    putOptional(o, "leader_epoch", r.leaderEpoch());
                    recs.get(tp).add(o);
                }
                open.removeIf(tp -> c.position(tp) >= end.get(tp));
            }
            for (TopicPartition tp : tps) {
                ObjectNode part = NODES.objectNode();
                part.put("log_start_offset", begin.get(tp));
                part.put("end_offset", end.get(tp));
                part.set("records", recs.get(tp));
                out.set(key(tp), part);
            }
        }
        return out;
    }

    // ---- ListOffsets ---------------------------------------------------------------------------------------
    private static JsonNode listOffset(Admin admin, TopicPartition tp, OffsetSpec spec, IsolationLevel iso) {
        ObjectNode o = NODES.objectNode();
        try {
            ListOffsetsResult.ListOffsetsResultInfo info = admin
                .listOffsets(Map.of(tp, spec), new ListOffsetsOptions(iso)).partitionResult(tp).get();
            o.put("offset", info.offset());
            o.put("timestamp", info.timestamp());
            putOptional(o, "leader_epoch", info.leaderEpoch());
        } catch (ExecutionException | InterruptedException e) {
            Throwable cause = e.getCause() == null ? e : e.getCause();
            o.put("error", cause.getClass().getSimpleName() + ": " + cause.getMessage());
        }
        return o;
    }

    /** Earliest, latest (both isolation levels), max-timestamp, earliest-local and each sampled timestamp. */
    private static JsonNode offsets(String bootstrap, JsonNode step) {
        ObjectNode out = NODES.objectNode();
        try (Admin admin = Admin.create(common(bootstrap))) {
            for (TopicPartition tp : partitions(step)) {
                ObjectNode part = NODES.objectNode();
                part.set("earliest", listOffset(admin, tp, OffsetSpec.earliest(), IsolationLevel.READ_UNCOMMITTED));
                part.set("latest", listOffset(admin, tp, OffsetSpec.latest(), IsolationLevel.READ_UNCOMMITTED));
                part.set("latest_committed", listOffset(admin, tp, OffsetSpec.latest(), IsolationLevel.READ_COMMITTED));
                part.set("max_timestamp", listOffset(admin, tp, OffsetSpec.maxTimestamp(), IsolationLevel.READ_UNCOMMITTED));
                part.set("earliest_local", listOffset(admin, tp, OffsetSpec.earliestLocal(), IsolationLevel.READ_UNCOMMITTED));
                ObjectNode times = NODES.objectNode();
                JsonNode stamps = step.path("timestamps").path(key(tp));
                for (JsonNode ts : stamps) {
                    times.set(ts.asText(), listOffset(admin, tp, OffsetSpec.forTimestamp(ts.asLong()),
                        IsolationLevel.READ_UNCOMMITTED));
                }
                part.set("for_timestamp", times);
                out.set(key(tp), part);
            }
        }
        return out;
    }

    // ---- groups --------------------------------------------------------------------------------------------
    private static JsonNode groups(String bootstrap) throws Exception {
        ObjectNode out = NODES.objectNode();
        try (Admin admin = Admin.create(common(bootstrap))) {
            Collection<GroupListing> listings = admin.listGroups().all().get();
            for (GroupListing g : listings) {
                ObjectNode group = NODES.objectNode();
                group.put("type", g.type().map(Object::toString).orElse(null));
                group.put("protocol", g.protocol());
                String type = g.type().map(t -> t.toString().toLowerCase()).orElse("classic");
                ObjectNode offsets = NODES.objectNode();
                Map<TopicPartition, ?> committed;
                if (type.equals("share")) {
                    committed = admin.listShareGroupOffsets(
                        Map.of(g.groupId(), new org.apache.kafka.clients.admin.ListShareGroupOffsetsSpec()))
                        .partitionsToOffsetInfo(g.groupId()).get();
                } else if (type.equals("streams")) {
                    committed = admin.listStreamsGroupOffsets(
                        Map.of(g.groupId(), new org.apache.kafka.clients.admin.ListStreamsGroupOffsetsSpec()))
                        .partitionsToOffsetAndMetadata(g.groupId()).get();
                } else {
                    committed = admin.listConsumerGroupOffsets(g.groupId()).partitionsToOffsetAndMetadata().get();
                }
                for (Map.Entry<TopicPartition, ?> e : toSorted(committed).entrySet()) {
                    ObjectNode o = NODES.objectNode();
                    Object v = e.getValue();
                    if (v instanceof OffsetAndMetadata) {
                        OffsetAndMetadata om = (OffsetAndMetadata) v;
                        o.put("offset", om.offset());
                        o.put("metadata", om.metadata());
                        putOptional(o, "leader_epoch", om.leaderEpoch());
                    } else if (v instanceof org.apache.kafka.clients.admin.SharePartitionOffsetInfo) {
                        org.apache.kafka.clients.admin.SharePartitionOffsetInfo si =
                            (org.apache.kafka.clients.admin.SharePartitionOffsetInfo) v;
                        o.put("start_offset", si.startOffset());
                        if (si.lag().isPresent()) {
                            o.put("lag", si.lag().get());
                        }
                        putOptional(o, "leader_epoch", si.leaderEpoch());
                    } else if (v == null) {
                        o.putNull("offset");
                    } else {
                        o.put("offset", String.valueOf(v));
                    }
                    offsets.set(e.getKey().topic() + "-" + e.getKey().partition(), o);
                }
                group.set("offsets", offsets);
                out.set(g.groupId(), group);
            }
        }
        return out;
    }

    private static Map<TopicPartition, Object> toSorted(Map<TopicPartition, ?> m) {
        Map<TopicPartition, Object> sorted = new TreeMap<>((a, b) -> {
            int c = a.topic().compareTo(b.topic());
            return c != 0 ? c : Integer.compare(a.partition(), b.partition());
        });
        sorted.putAll(m);
        return sorted;
    }

    // ---- metadata ------------------------------------------------------------------------------------------
    private static JsonNode metadata(String bootstrap, JsonNode step) throws Exception {
        ObjectNode out = NODES.objectNode();
        try (Admin admin = Admin.create(common(bootstrap))) {
            DescribeClusterResult cluster = admin.describeCluster();
            out.put("cluster_id", cluster.clusterId().get());
            Node controller = cluster.controller().get();
            out.put("controller", controller == null ? -1 : controller.id());
            ArrayNode nodes = NODES.arrayNode();
            for (Node n : cluster.nodes().get()) {
                nodes.add(NODES.objectNode().put("id", n.id()).put("host", n.host()).put("port", n.port())
                    .put("rack", n.rack()));
            }
            out.set("brokers", nodes);
            Set<String> names = admin.listTopics(new org.apache.kafka.clients.admin.ListTopicsOptions()
                .listInternal(true)).names().get();
            ObjectNode topics = NODES.objectNode();
            Map<String, TopicDescription> described = admin.describeTopics(names).allTopicNames().get();
            List<ConfigResource> resources = new ArrayList<>();
            for (String t : new TreeMap<>(described).keySet()) {
                TopicDescription d = described.get(t);
                ObjectNode topic = NODES.objectNode();
                topic.put("topic_id", d.topicId().toString());
                topic.put("internal", d.isInternal());
                ArrayNode parts = NODES.arrayNode();
                for (TopicPartitionInfo pi : d.partitions()) {
                    ObjectNode po = NODES.objectNode();
                    po.put("partition", pi.partition());
                    po.put("leader", pi.leader() == null ? -1 : pi.leader().id());
                    ArrayNode replicas = NODES.arrayNode();
                    pi.replicas().forEach(n -> replicas.add(n.id()));
                    ArrayNode isr = NODES.arrayNode();
                    pi.isr().forEach(n -> isr.add(n.id()));
                    po.set("replicas", replicas);
                    po.set("isr", isr);
                    parts.add(po);
                }
                topic.set("partitions", parts);
                topics.set(t, topic);
                resources.add(new ConfigResource(ConfigResource.Type.TOPIC, t));
            }
            Map<ConfigResource, Config> configs = admin.describeConfigs(resources).all().get();
            for (Map.Entry<ConfigResource, Config> e : configs.entrySet()) {
                ObjectNode dyn = NODES.objectNode();
                for (ConfigEntry ce : e.getValue().entries()) {
                    if (ce.source() == ConfigEntry.ConfigSource.DYNAMIC_TOPIC_CONFIG) {
                        dyn.put(ce.name(), ce.value());
                    }
                }
                ((ObjectNode) topics.get(e.getKey().name())).set("configs", dyn);
            }
            out.set("topics", topics);
            ObjectNode features = NODES.objectNode();
            try {
                FeatureMetadata fm = admin.describeFeatures().featureMetadata().get();
                for (Map.Entry<String, FinalizedVersionRange> f : new TreeMap<>(fm.finalizedFeatures()).entrySet()) {
                    features.put(f.getKey(), f.getValue().maxVersionLevel());
                }
            } catch (ExecutionException e) {
                features.put("error", e.getCause().toString());
            }
            out.set("features", features);
        }
        return out;
    }

    // ---- producing -----------------------------------------------------------------------------------------
    /**
     * Records through one producer: {@code transactional_id} makes it transactional (then each entry of
     * {@code transactions} is committed or aborted), else {@code idempotent} chooses; {@code records} are
     * [topic, partition, key, value, timestamp, headers].
     */
    private static JsonNode produce(String bootstrap, JsonNode step) throws Exception {
        Properties p = common(bootstrap);
        p.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
        p.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
        p.put(ProducerConfig.ACKS_CONFIG, "all");
        p.put(ProducerConfig.LINGER_MS_CONFIG, step.path("linger_ms").asText("5"));
        p.put(ProducerConfig.COMPRESSION_TYPE_CONFIG, step.path("compression").asText("none"));
        p.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, step.path("idempotent").asText("true"));
        String txn = step.path("transactional_id").asText(null);
        if (txn != null) {
            p.put(ProducerConfig.TRANSACTIONAL_ID_CONFIG, txn);
        }
        ObjectNode out = NODES.objectNode();
        AtomicLong acked = new AtomicLong();
        try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(p)) {
            if (txn != null) {
                producer.initTransactions();
                int n = 0;
                for (JsonNode t : step.get("transactions")) {
                    producer.beginTransaction();
                    for (JsonNode r : t.get("records")) {
                        producer.send(record(r), (m, e) -> acked.incrementAndGet());
                    }
                    producer.flush();
                    if (t.path("commit").asBoolean(true)) {
                        producer.commitTransaction();
                    } else {
                        producer.abortTransaction();
                    }
                    n++;
                }
                out.put("transactions", n);
            } else {
                for (JsonNode r : step.get("records")) {
                    producer.send(record(r), (m, e) -> acked.incrementAndGet()).get();
                }
            }
            producer.flush();
        }
        out.put("records", acked.get());
        return out;
    }

    private static ProducerRecord<byte[], byte[]> record(JsonNode r) {
        List<Header> headers = new ArrayList<>();
        for (JsonNode h : r.path(5)) {
            headers.add(new RecordHeader(h.get(0).asText(), unb64(h.get(1))));
        }
        Long ts = r.get(4).isNull() ? null : r.get(4).asLong();
        return new ProducerRecord<>(r.get(0).asText(), r.get(1).asInt(), ts, unb64(r.get(2)), unb64(r.get(3)),
            headers);
    }

    // ---- producer state ----------------------------------------------------------------------------------
    /** DescribeProducers (KIP-664): each partition's active producers as the leader's producer state holds them. */
    private static JsonNode producers(String bootstrap, JsonNode step) throws Exception {
        ObjectNode out = NODES.objectNode();
        List<TopicPartition> tps = partitions(step);
        try (Admin admin = Admin.create(common(bootstrap))) {
            Map<TopicPartition, org.apache.kafka.clients.admin.DescribeProducersResult.PartitionProducerState> all =
                admin.describeProducers(tps).all().get();
            for (TopicPartition tp : tps) {
                ArrayNode list = NODES.arrayNode();
                List<org.apache.kafka.clients.admin.ProducerState> states =
                    new ArrayList<>(all.get(tp).activeProducers());
                states.sort((a, b) -> Long.compare(a.producerId(), b.producerId()));
                for (org.apache.kafka.clients.admin.ProducerState s : states) {
                    ObjectNode o = NODES.objectNode();
                    o.put("producer_id", s.producerId());
                    o.put("producer_epoch", s.producerEpoch());
                    o.put("last_sequence", s.lastSequence());
                    o.put("last_timestamp", s.lastTimestamp());
                    if (s.coordinatorEpoch().isPresent()) {
                        o.put("coordinator_epoch", s.coordinatorEpoch().getAsInt());
                    } else {
                        o.putNull("coordinator_epoch");
                    }
                    if (s.currentTransactionStartOffset().isPresent()) {
                        o.put("current_txn_start_offset", s.currentTransactionStartOffset().getAsLong());
                    } else {
                        o.putNull("current_txn_start_offset");
                    }
                    list.add(o);
                }
                out.set(key(tp), list);
            }
        }
        return out;
    }

    // ---- groups of the newer protocols ---------------------------------------------------------------------
    /** A consumer in a group ({@code protocol}: classic or consumer, KIP-848) that reads and commits. */
    private static JsonNode consume(String bootstrap, JsonNode step) {
        Properties p = common(bootstrap);
        p.put(ConsumerConfig.GROUP_ID_CONFIG, step.get("group").asText());
        p.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
        p.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
        p.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
        p.put("group.protocol", step.path("protocol").asText("consumer"));
        int want = step.get("count").asInt();
        int got = 0;
        try (KafkaConsumer<byte[], byte[]> c = new KafkaConsumer<>(p)) {
            List<String> topics = new ArrayList<>();
            step.get("topics").forEach(t -> topics.add(t.asText()));
            c.subscribe(topics);
            long deadline = System.currentTimeMillis() + 90_000;
            while (got < want && System.currentTimeMillis() < deadline) {
                got += c.poll(Duration.ofMillis(200)).count();
            }
            Map<TopicPartition, OffsetAndMetadata> commit = new HashMap<>();
            for (TopicPartition tp : c.assignment()) {
                commit.put(tp, new OffsetAndMetadata(c.position(tp), step.path("metadata").asText("")));
            }
            c.commitSync(commit);
        }
        return NODES.objectNode().put("records", got);
    }

    /** A share-group consumer (KIP-932) that reads, acknowledges and commits. */
    private static JsonNode share(String bootstrap, JsonNode step) {
        Properties p = common(bootstrap);
        p.put(ConsumerConfig.GROUP_ID_CONFIG, step.get("group").asText());
        p.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
        p.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
        int want = step.get("count").asInt();
        int got = 0;
        // A share group starts at the latest offset unless its group config says otherwise.
        try (Admin admin = Admin.create(common(bootstrap))) {
            ConfigResource group = new ConfigResource(ConfigResource.Type.GROUP, step.get("group").asText());
            admin.incrementalAlterConfigs(Map.of(group, List.of(new org.apache.kafka.clients.admin.AlterConfigOp(
                new ConfigEntry("share.auto.offset.reset", "earliest"),
                org.apache.kafka.clients.admin.AlterConfigOp.OpType.SET)))).all().get();
        } catch (ExecutionException | InterruptedException e) {
            throw new IllegalStateException("share.auto.offset.reset", e);
        }
        try (KafkaShareConsumer<byte[], byte[]> c = new KafkaShareConsumer<>(p)) {
            List<String> topics = new ArrayList<>();
            step.get("topics").forEach(t -> topics.add(t.asText()));
            c.subscribe(topics);
            long deadline = System.currentTimeMillis() + 90_000;
            while (got < want && System.currentTimeMillis() < deadline) {
                got += c.poll(Duration.ofMillis(200)).count();
                c.commitSync();
            }
        }
        return NODES.objectNode().put("records", got);
    }

    /** A Kafka Streams application in a streams group (KIP-1071) copying a topic, until it copied count records. */
    private static JsonNode streams(String bootstrap, JsonNode step) throws Exception {
        Properties p = new Properties();
        p.put(StreamsConfig.APPLICATION_ID_CONFIG, step.get("group").asText());
        p.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        p.put(StreamsConfig.STATE_DIR_CONFIG, step.get("state_dir").asText());
        p.put(StreamsConfig.COMMIT_INTERVAL_MS_CONFIG, "100");
        p.put("group.protocol", step.path("protocol").asText("streams"));
        p.put(StreamsConfig.consumerPrefix(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG), "earliest");
        StreamsBuilder b = new StreamsBuilder();
        AtomicLong seen = new AtomicLong();
        b.stream(step.get("source").asText(), Consumed.with(Serdes.ByteArray(), Serdes.ByteArray()))
            .peek((k, v) -> seen.incrementAndGet())
            .to(step.get("sink").asText(), Produced.with(Serdes.ByteArray(), Serdes.ByteArray()));
        long want = step.get("count").asLong();
        try (KafkaStreams app = new KafkaStreams(b.build(), p)) {
            app.start();
            long deadline = System.currentTimeMillis() + 90_000;
            while (seen.get() < want && System.currentTimeMillis() < deadline) {
                Thread.sleep(100);
            }
            Thread.sleep(500);  // one more commit interval: the offsets of what it copied are committed
        }
        return NODES.objectNode().put("records", seen.get());
    }

    // ---- restored state: groups resuming, a transaction left open ------------------------------------------
    /**
     * A member of each group of {@code groups} ([{group, protocol, topics}], run side by side): where it starts
     * in each partition it is assigned (its position once assigned, i.e. the committed offset it resumes from;
     * auto.offset.reset=none, so a partition without one is reported as an error) and the offset of the first
     * record it fetches there. Commits nothing.
     */
    private static JsonNode resume(String bootstrap, JsonNode step) throws Exception {
        ObjectNode out = NODES.objectNode();
        List<Thread> threads = new ArrayList<>();
        Map<String, ObjectNode> answers = new java.util.concurrent.ConcurrentHashMap<>();
        for (JsonNode g : step.get("groups")) {
            Thread t = new Thread(() -> answers.put(g.get("group").asText(), resumeOne(bootstrap, g)));
            t.start();
            threads.add(t);
        }
        for (Thread t : threads) {
            t.join();
        }
        for (String g : new TreeMap<>(answers).keySet()) {
            out.set(g, answers.get(g));
        }
        return out;
    }

    private static ObjectNode resumeOne(String bootstrap, JsonNode g) {
        Properties p = common(bootstrap);
        p.put(ConsumerConfig.GROUP_ID_CONFIG, g.get("group").asText());
        p.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
        p.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
        p.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "none");
        p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
        p.put("group.protocol", g.path("protocol").asText("classic"));
        ObjectNode out = NODES.objectNode();
        Map<TopicPartition, ObjectNode> parts = new java.util.concurrent.ConcurrentHashMap<>();
        try (KafkaConsumer<byte[], byte[]> c = new KafkaConsumer<>(p)) {
            List<String> topics = new ArrayList<>();
            g.get("topics").forEach(t -> topics.add(t.asText()));
            c.subscribe(topics, new org.apache.kafka.clients.consumer.ConsumerRebalanceListener() {
                @Override
                public void onPartitionsRevoked(Collection<TopicPartition> revoked) {
                }

                @Override
                public void onPartitionsAssigned(Collection<TopicPartition> assigned) {
                    for (TopicPartition tp : assigned) {
                        ObjectNode o = NODES.objectNode();
                        try {
                            o.put("start", c.position(tp));
                        } catch (RuntimeException e) {
                            o.put("error", e.getClass().getSimpleName() + ": " + e.getMessage());
                        }
                        parts.putIfAbsent(tp, o);
                    }
                }
            });
            long deadline = System.currentTimeMillis() + 60_000;
            Map<TopicPartition, Long> end = null;
            while (System.currentTimeMillis() < deadline) {
                try {
                    for (ConsumerRecord<byte[], byte[]> r : c.poll(Duration.ofMillis(200))) {
                        ObjectNode o = parts.get(new TopicPartition(r.topic(), r.partition()));
                        if (o != null && !o.has("first")) {
                            o.put("first", r.offset());
                        }
                    }
                } catch (RuntimeException e) {
                    out.put("error", e.getClass().getSimpleName() + ": " + e.getMessage());
                    break;
                }
                if (parts.isEmpty()) {
                    continue;
                }
                if (end == null) {
                    end = c.endOffsets(parts.keySet());
                }
                boolean done = true;
                for (Map.Entry<TopicPartition, ObjectNode> e : parts.entrySet()) {
                    ObjectNode o = e.getValue();
                    if (!o.has("first") && !o.has("error") && o.get("start").asLong() < end.get(e.getKey())) {
                        done = false;
                    }
                }
                if (done) {
                    break;
                }
            }
        }
        for (Map.Entry<TopicPartition, Object> e : toSorted(parts).entrySet()) {
            out.set(key(e.getKey()), (ObjectNode) e.getValue());
        }
        return out;
    }

    /** A transactional producer that sends {@code records} in a transaction it leaves open: flushed, never
     * committed or aborted, the producer never closed (a closing producer aborts it); the JVM then exits. */
    private static final List<KafkaProducer<byte[], byte[]>> OPEN = new ArrayList<>();

    private static JsonNode openTransaction(String bootstrap, JsonNode step) throws Exception {
        Properties p = common(bootstrap);
        p.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
        p.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
        p.put(ProducerConfig.ACKS_CONFIG, "all");
        p.put(ProducerConfig.TRANSACTIONAL_ID_CONFIG, step.get("transactional_id").asText());
        p.put(ProducerConfig.TRANSACTION_TIMEOUT_CONFIG, step.path("timeout_ms").asText("600000"));
        KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(p);
        OPEN.add(producer);
        producer.initTransactions();
        producer.beginTransaction();
        long n = 0;
        for (JsonNode r : step.get("records")) {
            producer.send(record(r)).get();
            n++;
        }
        producer.flush();
        return NODES.objectNode().put("records", n);
    }
}
