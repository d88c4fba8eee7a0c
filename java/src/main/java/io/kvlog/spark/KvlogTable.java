package io.kvlog.spark;

import io.kvlog.spark.read.KvlogScanBuilder;
import io.kvlog.spark.write.KvlogWrite;
import java.util.EnumSet;
import java.util.Set;
import org.apache.spark.sql.connector.catalog.SupportsRead;
import org.apache.spark.sql.connector.catalog.SupportsWrite;
import org.apache.spark.sql.connector.catalog.TableCapability;
import org.apache.spark.sql.connector.read.ScanBuilder;
import org.apache.spark.sql.connector.write.LogicalWriteInfo;
import org.apache.spark.sql.connector.write.WriteBuilder;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.sql.util.CaseInsensitiveStringMap;

/**
 * The partition logs under a path, as a table that supports batch and micro-batch reads and writes
 * ({@link KvlogWrite}). {@code viaCatalog}: the table came through {@link KvlogCatalog}, so a write may ask Spark
 * to cluster rows by a function of that catalog.
 */
final class KvlogTable implements SupportsRead, SupportsWrite {
    private final StructType schema;
    private final String name;
    private final boolean viaCatalog;

    KvlogTable(StructType schema, String name, boolean viaCatalog) {
        this.schema = schema;
        this.name = name;
        this.viaCatalog = viaCatalog;
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    @SuppressWarnings("deprecation") // Spark still reads a V2 table's schema through schema()
    public StructType schema() {
        return schema;
    }

    @Override
    public Set<TableCapability> capabilities() {
        return EnumSet.of(TableCapability.BATCH_READ, TableCapability.MICRO_BATCH_READ,
                TableCapability.BATCH_WRITE, TableCapability.STREAMING_WRITE, TableCapability.TRUNCATE,
                TableCapability.ACCEPT_ANY_SCHEMA);
    }

    @Override
    public ScanBuilder newScanBuilder(CaseInsensitiveStringMap options) {
        return new KvlogScanBuilder(options, schema); // options are parsed once Spark says: batch or stream
    }

    @Override
    public WriteBuilder newWriteBuilder(LogicalWriteInfo info) {
        return new KvlogWrite.Builder(info, viaCatalog);
    }
}
