package io.kvlog.spark.fs;

import java.net.URI;
import java.net.URISyntaxException;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.apache.hadoop.conf.Configuration;

/**
 * {@code s3://} and {@code s3a://} URIs on the JVM engine through Hadoop's S3A connector, when the session has it
 * (hadoop-aws on the classpath).
 *
 * <p>The Python source takes object-store URIs the way pyarrow does: credentials as the URI's user info and the
 * endpoint, scheme and region as its query ({@code s3://KEY:SECRET@bucket/dir?endpoint_override=host:port&
 * scheme=http&region=eu-west-1}). S3A refuses secrets in a URI and reads its settings from the Hadoop
 * configuration, per bucket. So on the driver, before the scan or the write is planned, {@link #apply} turns what
 * such a URI says into that bucket's {@code fs.s3a.bucket.<bucket>.*} settings in the session's Hadoop
 * configuration (shipped to the executors as the session's changes, {@link HadoopConf}), and binds {@code s3://}
 * to S3A when nothing else serves it ({@code fs.s3.impl}); {@link #path} then gives the URI without the user info
 * and the query. A URI without them is left to the settings the session already has. No message prints the
 * secret ({@link LogFileSystems#shown}).
 */
public final class S3aRoute {
    static final String S3A_CLASS = "org.apache.hadoop.fs.s3a.S3AFileSystem";

    private S3aRoute() {
    }

    private static boolean s3(String scheme) {
        return "s3".equals(scheme) || "s3a".equals(scheme);
    }

    /** Whether this JVM has S3A (its class is loadable: hadoop-aws and the AWS SDK are on the classpath). */
    public static boolean available(Configuration conf) {
        if (LogFileSystems.hasFileSystem("s3a", conf)) {
            return true;
        }
        try {
            Class.forName(S3A_CLASS, false, Thread.currentThread().getContextClassLoader());
            return true;
        } catch (ClassNotFoundException | LinkageError e) {
            return false;
        }
    }

    /** {@code raw} without user info and query when it is an {@code s3://}/{@code s3a://} URI; else as given. */
    public static String path(String raw) {
        if (raw == null || !s3(LogFileSystems.scheme(raw))) {
            return raw;
        }
        int start = raw.indexOf("://") + 3;
        int at = raw.indexOf('@', start);
        int slash = raw.indexOf('/', start);
        String out = raw;
        if (at >= 0 && (slash < 0 || at < slash)) {
            out = raw.substring(0, start) + raw.substring(at + 1);
        }
        int q = out.indexOf('?');
        return q >= 0 ? out.substring(0, q) : out;
    }

    /** The bucket's S3A settings that a pyarrow-style URI's user info and query mean (none for a plain URI). */
    static Map<String, String> settings(String raw) {
        Map<String, String> out = new LinkedHashMap<>();
        if (raw == null || !s3(LogFileSystems.scheme(raw))) {
            return out;
        }
        URI uri;
        try {
            uri = new URI(raw);
        } catch (URISyntaxException e) {
            throw new IllegalArgumentException("not a valid URI: " + LogFileSystems.shown(raw));
        }
        String bucket = uri.getHost();
        if (bucket == null) {
            return out;
        }
        String prefix = "fs.s3a.bucket." + bucket + ".";
        String user = uri.getRawUserInfo();
        if (user != null) {
            int colon = user.indexOf(':');
            if (colon < 0) {
                throw new IllegalArgumentException("an s3 URI's user info is KEY:SECRET: " + LogFileSystems.shown(raw));
            }
            out.put(prefix + "access.key", decode(user.substring(0, colon)));
            out.put(prefix + "secret.key", decode(user.substring(colon + 1)));
            out.put(prefix + "aws.credentials.provider", "org.apache.hadoop.fs.s3a.SimpleAWSCredentialsProvider");
        }
        Map<String, String> query = new LinkedHashMap<>();
        if (uri.getRawQuery() != null) {
            for (String kv : uri.getRawQuery().split("&")) {
                int eq = kv.indexOf('=');
                if (eq > 0) {
                    query.put(decode(kv.substring(0, eq)).toLowerCase(Locale.ROOT), decode(kv.substring(eq + 1)));
                }
            }
        }
        String scheme = query.getOrDefault("scheme", "https");
        String endpoint = query.get("endpoint_override");
        if (endpoint != null) {
            out.put(prefix + "endpoint", endpoint.contains("://") ? endpoint : scheme + "://" + endpoint);
            out.put(prefix + "path.style.access", "true");
        }
        if (query.containsKey("scheme")) {
            out.put(prefix + "connection.ssl.enabled", String.valueOf(!"http".equalsIgnoreCase(scheme)));
        }
        if (query.get("region") != null) {
            out.put(prefix + "endpoint.region", query.get("region"));
        }
        if (query.get("session_token") != null) {
            out.put(prefix + "session.token", query.get("session_token"));
            out.put(prefix + "aws.credentials.provider", "org.apache.hadoop.fs.s3a.TemporaryAWSCredentialsProvider");
        }
        return out;
    }

    private static String decode(String s) {
        return URLDecoder.decode(s, StandardCharsets.UTF_8);
    }

    /**
     * On the driver: the settings of every {@code s3://}/{@code s3a://} path in {@code paths} applied to
     * {@code conf} (the session's Hadoop configuration), and {@code s3://} bound to S3A when the session has S3A
     * and nothing else serves {@code s3://}. Returns whether any path was an S3 one.
     */
    public static boolean apply(List<String> paths, Configuration conf) {
        boolean any = false;
        for (String p : paths) {
            String scheme = LogFileSystems.scheme(p);
            if (!s3(scheme)) {
                continue;
            }
            any = true;
            boolean changed = false;
            for (Map.Entry<String, String> e : settings(p).entrySet()) {
                changed |= !e.getValue().equals(conf.get(e.getKey()));
                conf.set(e.getKey(), e.getValue());
            }
            if ("s3".equals(scheme) && conf.get("fs.s3.impl") == null && !LogFileSystems.hasFileSystem("s3", conf)
                    && available(conf)) {
                conf.set("fs.s3.impl", S3A_CLASS);
            }
            if (changed) {
                evict(URI.create(p.substring(0, p.indexOf("://") + 3) + host(p) + "/"), conf);
            }
        }
        return any;
    }

    private static String host(String raw) {
        try {
            String h = new URI(raw).getHost();
            return h == null ? "" : h;
        } catch (URISyntaxException e) {
            return "";
        }
    }

    /**
     * Hadoop caches one file system per scheme and bucket, built with the settings of its first use: a bucket whose
     * endpoint or credentials this URI changed must be built again, so the cached one (in this JVM: the driver, and
     * the executors of a local session) is closed, which takes it out of the cache. Executors of a cluster keep
     * theirs until they end: there, give a bucket one endpoint and one set of credentials per application.
     */
    private static void evict(URI bucket, Configuration conf) {
        if (bucket.getHost() == null || bucket.getHost().isEmpty()) {
            return;
        }
        try {
            org.apache.hadoop.fs.FileSystem.get(bucket, conf).close();
        } catch (java.io.IOException | RuntimeException e) {
            // nothing cached that could be built: the next use builds one with the new settings
        }
    }
}
