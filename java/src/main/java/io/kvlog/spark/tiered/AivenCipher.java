package io.kvlog.spark.tiered;

import java.security.GeneralSecurityException;
import javax.crypto.AEADBadTagException;
import javax.crypto.Cipher;
import javax.crypto.spec.GCMParameterSpec;
import javax.crypto.spec.SecretKeySpec;

/**
 * AES-GCM of one Aiven segment: each chunk and each index is {@code IV (12 bytes) || ciphertext || tag (16 bytes)}
 * with the manifest's AAD (the plugin's {@code AesEncryptionProvider}, {@code DecryptionChunkEnumeration}).
 */
final class AivenCipher {
    static final int IV_SIZE = 12;
    static final int TAG_SIZE = 16;
    private final SecretKeySpec key;
    private final byte[] aad;

    AivenCipher(byte[] dataKey, byte[] aad) {
        this.key = new SecretKeySpec(dataKey, "AES");
        this.aad = aad;
    }

    /**
     * The plaintext of {@code b[off, off + len)}; {@code what} ("chunk 3", "the offset index") at byte
     * {@code position} of the object {@code object} names it in errors.
     */
    byte[] decrypt(byte[] b, int off, int len, String what, String object, long position) {
        if (len < IV_SIZE + TAG_SIZE) {
            throw new RemoteSegmentException(object, position, object + ": " + what + " at byte " + position + " is " + len
                + " bytes, shorter than an AES-GCM IV and tag (" + (IV_SIZE + TAG_SIZE) + ")");
        }
        try {
            Cipher aes = Cipher.getInstance("AES/GCM/NoPadding");
            aes.init(Cipher.DECRYPT_MODE, key, new GCMParameterSpec(TAG_SIZE * 8, b, off, IV_SIZE));
            aes.updateAAD(aad);
            return aes.doFinal(b, off + IV_SIZE, len - IV_SIZE);
        } catch (AEADBadTagException e) {
            throw new RemoteSegmentException(object, position, object + ": " + what + " at byte " + position + " fails its AES-GCM tag "
                + "check (damaged bytes, or a data key that is not this segment's)");
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("AES/GCM/NoPadding is not available in this JVM ("
                + e.getClass().getSimpleName() + ")", e);
        }
    }
}
