package io.kvlog.spark.typed;

/** UTF-8 well-formedness (RFC 3629: no overlongs, no surrogates, nothing past U+10FFFF), as kvlog_utf8.h checks it. */
final class Utf8Check {
    private Utf8Check() {
    }

    static boolean valid(byte[] b, int off, int len) {
        int p = off;
        int end = off + len;
        while (p < end) {
            int c = b[p] & 0xff;
            if (c < 0x80) {
                p++;
                continue;
            }
            int need;
            int lo = 0x80;
            int hi = 0xBF;
            if (c >= 0xC2 && c <= 0xDF) {
                need = 1;
            } else if (c == 0xE0) {
                need = 2;
                lo = 0xA0;
            } else if ((c >= 0xE1 && c <= 0xEC) || c == 0xEE || c == 0xEF) {
                need = 2;
            } else if (c == 0xED) {
                need = 2;
                hi = 0x9F;
            } else if (c == 0xF0) {
                need = 3;
                lo = 0x90;
            } else if (c >= 0xF1 && c <= 0xF3) {
                need = 3;
            } else if (c == 0xF4) {
                need = 3;
                hi = 0x8F;
            } else {
                return false;
            }
            if (end - p < need + 1) {
                return false;
            }
            int c1 = b[p + 1] & 0xff;
            if (c1 < lo || c1 > hi) {
                return false;
            }
            for (int i = 2; i <= need; i++) {
                if ((b[p + i] & 0xC0) != 0x80) {
                    return false;
                }
            }
            p += need + 1;
        }
        return true;
    }
}
