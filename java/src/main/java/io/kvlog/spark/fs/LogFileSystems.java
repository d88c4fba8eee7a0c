package io.kvlog.spark.fs;

import java.io.IOException;
import java.util.Locale;
import java.util.Set;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.LocalFileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.fs.UnsupportedFileSystemException;
import org.apache.hadoop.util.VersionInfo;

/**
 * The Hadoop file system for a log path. Local paths use the raw local file system: Hadoop's checksummed one
 * looks for {@code .crc} side files Kafka never writes and copies every read through small buffers; the
 * batches carry their own CRCs, which are checked.
 *
 * <p>PySpark ships no Hadoop file system for {@code s3://}, {@code s3a://}, {@code gs://} or {@code abfs://}. A
 * path with such a scheme fails here with what to do: the connector to add, or the Python source, which reads
 * {@code s3://}, {@code gs://} and {@code abfs://} through pyarrow ({@code format("kvlog")} goes there by itself:
 * {@code KvlogSource}).
 */
public final class LogFileSystems {
    /** Schemes the Python source reads through pyarrow.fs (kvlog.storage). */
    public static final Set<String> PYARROW_SCHEMES = Set.of("s3", "gs", "gcs", "abfs", "abfss");

    private LogFileSystems() {
    }

    public static FileSystem of(Path path, Configuration conf) throws IOException {
        FileSystem fs;
        try {
            fs = path.getFileSystem(conf);
        } catch (UnsupportedFileSystemException e) {
            throw new IllegalArgumentException(missing(path.toUri().getScheme(), path.toString()), e);
        } catch (RuntimeException e) {
            if (!classMissing(e)) {
                throw e;
            }
            throw new IllegalArgumentException(missing(path.toUri().getScheme(), path.toString()), e);
        }
        return fs instanceof LocalFileSystem local ? local.getRaw() : fs;
    }

    /** The scheme of a path as given ({@code s3} of {@code s3://bucket/key}), or null for a plain path. */
    public static String scheme(String raw) {
        int at = raw.indexOf("://");
        if (at <= 0) {
            return null;
        }
        String s = raw.substring(0, at);
        return s.matches("[A-Za-z][A-Za-z0-9+.-]*") ? s.toLowerCase(Locale.ROOT) : null;
    }

    /**
     * Hadoop's defaults name implementations for some schemes whose jars PySpark lacks ({@code fs.s3a.impl}): getting
     * one fails with a RuntimeException caused by a ClassNotFoundException rather than UnsupportedFileSystemException.
     */
    private static boolean classMissing(RuntimeException e) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t instanceof ClassNotFoundException) {
                return true;
            }
        }
        return false;
    }

    /** Whether this JVM has a Hadoop file system for {@code scheme}. */
    public static boolean hasFileSystem(String scheme, Configuration conf) {
        try {
            FileSystem.getFileSystemClass(scheme, conf);
            return true;
        } catch (IOException e) { // UnsupportedFileSystemException: no implementation configured
            return false;
        } catch (RuntimeException e) { // configured, but its class is not on the classpath
            if (classMissing(e)) {
                return false;
            }
            throw e;
        }
    }

    /** What to do about a path whose scheme has no Hadoop file system here: the connector, or the Python source. */
    static String missing(String scheme, String raw) {
        String hadoop = VersionInfo.getVersion();
        String s = scheme == null ? "" : scheme.toLowerCase(Locale.ROOT);
        String connector = switch (s) {
            case "s3" -> "add Hadoop's S3A connector and map s3:// to it: --packages org.apache.hadoop:hadoop-aws:" + hadoop
                + " --conf spark.hadoop.fs.s3.impl=org.apache.hadoop.fs.s3a.S3AFileSystem (or give s3a:// URIs)";
            case "s3a", "s3n" -> "add Hadoop's S3A connector: --packages org.apache.hadoop:hadoop-aws:" + hadoop
                + (s.equals("s3n") ? " and give s3a:// URIs" : "");
            case "abfs", "abfss", "wasb", "wasbs" -> "add Hadoop's Azure connector: --packages org.apache.hadoop:hadoop-azure:"
                + hadoop;
            case "gs" -> "add Google's Cloud Storage connector (the gcs-connector jar for Hadoop 3, "
                + "com.google.cloud.bigdataoss:gcs-connector)";
            default -> "add the Hadoop file system jar for " + s + "://";
        };
        String python = PYARROW_SCHEMES.contains(s)
            ? "read it with the Python source, which opens " + s + ":// through pyarrow: kvlog.spark.register(spark), then "
                + "spark.read.format(\"kvlog_python\") (format(\"kvlog\") does that by itself once register() has run)"
            : "copy the directory to a file system this cluster has";
        return "the JVM kvlog source reads through Hadoop file systems, and this cluster has none for " + s + ":// ("
            + shown(raw) + "): either " + python + ", or " + connector;
    }

    /** A path as messages show it: a URI without its credentials ({@code key:secret@}) or query. */
    public static String shown(String raw) {
        int scheme = raw.indexOf("://");
        if (scheme < 0) {
            return raw;
        }
        String rest = raw.substring(scheme + 3);
        int q = rest.indexOf('?');
        rest = q >= 0 ? rest.substring(0, q) : rest;
        int slash = rest.indexOf('/');
        String authority = slash >= 0 ? rest.substring(0, slash) : rest;
        String path = slash >= 0 ? rest.substring(slash) : "";
        authority = authority.substring(authority.lastIndexOf('@') + 1);
        String out = raw.substring(0, scheme) + "://" + authority + path;
        while (out.endsWith("/")) {
            out = out.substring(0, out.length() - 1);
        }
        return out;
    }
}
