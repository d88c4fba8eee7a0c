package io.kvlog.spark;

import io.kvlog.spark.read.KafkaSchema;
import io.kvlog.spark.read.ReadOptions;
import io.kvlog.spark.read.Typing;
import io.kvlog.spark.write.KafkaPartitionFunction;
import java.net.URLDecoder;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.TreeMap;
import org.apache.spark.sql.catalyst.analysis.NoSuchFunctionException;
import org.apache.spark.sql.catalyst.analysis.NoSuchNamespaceException;
import org.apache.spark.sql.connector.catalog.FunctionCatalog;
import org.apache.spark.sql.connector.catalog.Identifier;
import org.apache.spark.sql.connector.catalog.Table;
import org.apache.spark.sql.connector.catalog.TableCatalog;
import org.apache.spark.sql.connector.catalog.TableChange;
import org.apache.spark.sql.connector.catalog.functions.UnboundFunction;
import org.apache.spark.sql.connector.expressions.Transform;
import org.apache.spark.sql.util.CaseInsensitiveStringMap;

/**
 * The catalog that {@code format("kvlog")} reads and writes go through, so that a batch write can ask Spark to
 * cluster rows by their Kafka partition: the partition of a keyed row is {@code murmur2(key) % partitions}, which
 * no Spark expression computes, and a write's required distribution may name a function only when its table
 * came from a {@link FunctionCatalog}. The "identifier" is the reader's or writer's options, encoded: there are
 * no named tables. The source registers this catalog in the session on first use ({@link KvlogSource}).
 */
public class KvlogCatalog implements TableCatalog, FunctionCatalog {
    static final String NAME = "kvlog_catalog";
    private static final String[] NAMESPACE = {"kvlog"};

    private String name = NAME;

    @Override
    public void initialize(String name, CaseInsensitiveStringMap options) {
        this.name = name;
    }

    @Override
    public String name() {
        return name;
    }

    /** The options as an identifier: {@code key=value} pairs, URL-encoded, sorted, joined by {@code &}. */
    static Identifier identifier(Map<String, String> options) {
        StringBuilder b = new StringBuilder();
        new TreeMap<>(options).forEach((k, v) -> b.append(b.length() == 0 ? "" : "&")
            .append(URLEncoder.encode(k, StandardCharsets.UTF_8)).append('=')
            .append(URLEncoder.encode(v, StandardCharsets.UTF_8)));
        return Identifier.of(NAMESPACE, b.toString());
    }

    static Map<String, String> options(Identifier ident) {
        Map<String, String> out = new TreeMap<>();
        for (String pair : ident.name().split("&")) {
            int eq = pair.indexOf('=');
            if (eq > 0) {
                out.put(URLDecoder.decode(pair.substring(0, eq), StandardCharsets.UTF_8),
                    URLDecoder.decode(pair.substring(eq + 1), StandardCharsets.UTF_8));
            }
        }
        return out;
    }

    @Override
    public Table loadTable(Identifier ident) {
        Map<String, String> opts = options(ident);
        Map<String, String> readOpts = new java.util.HashMap<>(opts);
        readOpts.remove(KvlogSource.SOURCE_KEY);
        return KvlogSource.table(Typing.schema(new CaseInsensitiveStringMap(readOpts)), new Transform[0], opts, true);
    }

    /** No: a data directory is no named table, and saying so lets the default mode reach {@link #createTable}. */
    @Override
    public boolean tableExists(Identifier ident) {
        return false;
    }

    @Override
    public Identifier[] listTables(String[] namespace) {
        return new Identifier[0];
    }

    @Override
    public Table createTable(Identifier ident, org.apache.spark.sql.connector.catalog.TableInfo info) {
        throw new UnsupportedOperationException("kvlog writes add to (or overwrite) a data directory: use "
            + "df.write.format(\"kvlog\").mode(\"append\") or .mode(\"overwrite\"), not the default error-if-exists");
    }

    @Override
    public Table alterTable(Identifier ident, TableChange... changes) {
        throw new UnsupportedOperationException("kvlog data directories have no table to alter");
    }

    @Override
    public boolean dropTable(Identifier ident) {
        throw new UnsupportedOperationException("kvlog does not drop data directories through Spark");
    }

    @Override
    public void renameTable(Identifier oldIdent, Identifier newIdent) {
        throw new UnsupportedOperationException("kvlog data directories have no table to rename");
    }

    @Override
    public Identifier[] listFunctions(String[] namespace) throws NoSuchNamespaceException {
        return new Identifier[] {Identifier.of(namespace, KafkaPartitionFunction.NAME),
            Identifier.of(namespace, KafkaPartitionFunction.BUCKET_NAME)};
    }

    @Override
    public UnboundFunction loadFunction(Identifier ident) throws NoSuchFunctionException {
        if (KafkaPartitionFunction.NAME.equals(ident.name()) || KafkaPartitionFunction.BUCKET_NAME.equals(ident.name())) {
            return new KafkaPartitionFunction(KafkaPartitionFunction.BUCKET_NAME.equals(ident.name()));
        }
        throw new NoSuchFunctionException(ident);
    }
}
