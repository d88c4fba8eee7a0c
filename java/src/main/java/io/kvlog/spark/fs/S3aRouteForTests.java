package io.kvlog.spark.fs;

import java.util.Map;
import java.util.TreeMap;

/** Test entry points (not an API): what {@link S3aRoute} makes of an S3 URI, without a session or a store. */
public final class S3aRouteForTests {
    private S3aRouteForTests() {
    }

    /** The path S3A is given for {@code raw}. */
    public static String path(String raw) {
        return S3aRoute.path(raw);
    }

    /** The bucket's S3A settings {@code raw} means, one {@code key=value} a line, sorted. */
    public static String settings(String raw) {
        StringBuilder sb = new StringBuilder();
        for (Map.Entry<String, String> e : new TreeMap<>(S3aRoute.settings(raw)).entrySet()) {
            sb.append(e.getKey()).append('=').append(e.getValue()).append('\n');
        }
        return sb.toString();
    }
}
