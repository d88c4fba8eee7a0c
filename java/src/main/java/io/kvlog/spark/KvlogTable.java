package io.kvlog.spark;

import java.util.EnumSet;
import java.util.Set;
import org.apache.spark.sql.connector.catalog.SupportsRead;
import org.apache.spark.sql.connector.catalog.TableCapability;
import org.apache.spark.sql.connector.read.ScanBuilder;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.sql.util.CaseInsensitiveStringMap;

/** The partition logs under a path, as a table that supports batch and micro-batch reads. */
final class KvlogTable implements SupportsRead {
    private final StructType schema;

    KvlogTable(StructType schema) {
        this.schema = schema;
    }

    @Override
    public String name() {
        return "kvlog_jvm";
    }

    @Override
    @SuppressWarnings("deprecation") // Spark still reads a V2 table's schema through schema()
    public StructType schema() {
        return schema;
    }

    @Override
    public Set<TableCapability> capabilities() {
        return EnumSet.of(TableCapability.BATCH_READ, TableCapability.MICRO_BATCH_READ);
    }

    @Override
    public ScanBuilder newScanBuilder(CaseInsensitiveStringMap options) {
        return new KvlogScanBuilder(options, schema); // options are parsed once Spark says: batch or stream
    }
}
