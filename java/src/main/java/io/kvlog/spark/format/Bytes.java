package io.kvlog.spark.format;

/** Big-endian loads from a byte array (the caller has checked the bounds). */
public final class Bytes {
    private Bytes() {
    }

    public static short int16(byte[] b, int p) {
        return (short) (((b[p] & 0xFF) << 8) | (b[p + 1] & 0xFF));
    }

    public static int int32(byte[] b, int p) {
        return ((b[p] & 0xFF) << 24) | ((b[p + 1] & 0xFF) << 16) | ((b[p + 2] & 0xFF) << 8) | (b[p + 3] & 0xFF);
    }

    static int int32le(byte[] b, int p) {
        return (b[p] & 0xFF) | ((b[p + 1] & 0xFF) << 8) | ((b[p + 2] & 0xFF) << 16) | ((b[p + 3] & 0xFF) << 24);
    }

    public static long int64(byte[] b, int p) {
        return ((long) int32(b, p) << 32) | (int32(b, p + 4) & 0xFFFFFFFFL);
    }
}
