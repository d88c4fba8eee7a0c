package io.kvlog.spark.typed;

import org.apache.spark.sql.execution.vectorized.WritableColumnVector;
import org.apache.spark.sql.types.DataTypes;

/** UTF-8 text: the payload's bytes, checked, as a string (the {@code string} format). */
final class StringPart extends PartDecoder {
    StringPart(String part, boolean raise) {
        super(part, false, raise, null, DataTypes.StringType);
    }

    @Override
    Object prepare(RegisteredSchema writer) {
        return this;
    }

    @Override
    Object bare() {
        return this;
    }

    @Override
    void read(Object state, byte[] b, int off, int len, WritableColumnVector v) {
        if (!Utf8Check.valid(b, off, len)) {
            throw new ValueException(6, "a string that is not UTF-8");
        }
        v.appendByteArray(b, off, len);
    }
}
