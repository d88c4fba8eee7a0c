package io.kvlog.spark;

/**
 * {@code format("kvlog_jvm")}: the same source under a name that only the JVM answers to, for a job that must
 * fail rather than fall back to the Python source when the jar is missing.
 */
public final class KvlogJvmSource extends KvlogSource {
    public static final String ALIAS = "kvlog_jvm";

    @Override
    public String shortName() {
        return ALIAS;
    }
}
