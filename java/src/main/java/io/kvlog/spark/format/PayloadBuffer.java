package io.kvlog.spark.format;

import java.io.IOException;
import java.io.InputStream;

/** A reused output buffer for one decompressed payload; it grows by doubling but never past the budget. */
public final class PayloadBuffer {
    private final int budget;
    public byte[] data = new byte[64 << 10];
    public int size;

    PayloadBuffer(int budget) {
        this.budget = budget;
    }

    int budget() {
        return budget;
    }

    /** Room for {@code extra} more bytes, or a budget error. */
    void ensure(int extra) throws BatchFormatException {
        long need = (long) size + extra;
        if (need > budget) {
            throw new BatchFormatException("decompressed payload exceeds the budget of " + budget + " bytes");
        }
        if (need > data.length) {
            long grown = Math.max(need, Math.min((long) data.length * 2, budget));
            byte[] bigger = new byte[(int) grown];
            System.arraycopy(data, 0, bigger, 0, size);
            data = bigger;
        }
    }

    /** Drains a decompressing stream into this buffer; reading one byte past the budget is an error. */
    void drain(InputStream in) throws IOException, BatchFormatException {
        while (true) {
            if (size == data.length) {
                ensure(1);
            }
            int n = in.read(data, size, data.length - size);
            if (n < 0) {
                return;
            }
            size += n;
        }
    }
}
