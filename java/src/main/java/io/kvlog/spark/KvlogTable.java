package io.kvlog.spark;

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
 * The partition logs under a path, as a table that supports batch and micro-batch reads.
 *
 * <p>It also declares writes, only to refuse them with a message that names the sink: without that Spark falls
 * back to a V1 lookup of the class and reports "not a valid data source", which tells a user nothing.
 */
final class KvlogTable implements SupportsRead, SupportsWrite {
    static final String WRITE_REFUSAL = "the JVM kvlog source reads only; write with the Python sink: "
            + "kvlog.spark.register(spark), then df.write.format(\"kvlog_python\") (or writeStream.format(\"kvlog_python\"))";

    private final StructType schema;
    private final String name;

    KvlogTable(StructType schema, String name) {
        this.schema = schema;
        this.name = name;
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
                TableCapability.BATCH_WRITE, TableCapability.STREAMING_WRITE, TableCapability.ACCEPT_ANY_SCHEMA);
    }

    @Override
    public ScanBuilder newScanBuilder(CaseInsensitiveStringMap options) {
        return new KvlogScanBuilder(options, schema); // options are parsed once Spark says: batch or stream
    }

    @Override
    public WriteBuilder newWriteBuilder(LogicalWriteInfo info) {
        throw new UnsupportedOperationException(WRITE_REFUSAL);
    }
}
