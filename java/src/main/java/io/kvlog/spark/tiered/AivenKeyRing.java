package io.kvlog.spark.tiered;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Paths;
import java.security.GeneralSecurityException;
import java.security.KeyFactory;
import java.security.PrivateKey;
import java.security.spec.MGF1ParameterSpec;
import java.security.spec.PKCS8EncodedKeySpec;
import java.util.Base64;
import java.util.HashMap;
import java.util.Map;
import java.util.TreeMap;
import javax.crypto.BadPaddingException;
import javax.crypto.Cipher;
import javax.crypto.IllegalBlockSizeException;
import javax.crypto.spec.OAEPParameterSpec;
import javax.crypto.spec.PSource;

/**
 * The RSA private keys of the Aiven plugin's key pairs, by id, read from PKCS#8 files (PEM or DER) on first use.
 * A segment's AES data key is wrapped with RSA-OAEP, SHA3-512 for both the label hash and MGF1, empty label
 * (the plugin's {@code RSA/NONE/OAEPWithSHA3-512AndMGF1Padding} of Bouncy Castle); JDK 17's provider takes these
 * parameters. No message shows a key or a byte of one, only the ids.
 */
public final class AivenKeyRing {
    private static final OAEPParameterSpec OAEP = new OAEPParameterSpec("SHA3-512", "MGF1",
        new MGF1ParameterSpec("SHA3-512"), PSource.PSpecified.DEFAULT);
    private final TreeMap<String, String> files;
    private final Map<String, PrivateKey> loaded = new HashMap<>();

    AivenKeyRing(TreeMap<String, String> files) {
        this.files = files;
    }

    /**
     * {@code kvlog.remoteStorage.keyPairs}: {@code <key id>=<private key PEM file>}, comma-separated, as the Python
     * source reads it; an {@link IllegalArgumentException} otherwise.
     */
    public static TreeMap<String, String> parseOption(String option) {
        TreeMap<String, String> out = new TreeMap<>();
        if (option == null) {
            return out;
        }
        for (String item : option.split(",")) {
            if (item.isBlank()) {
                continue;
            }
            int eq = item.indexOf('=');
            if (eq < 0 || item.substring(0, eq).isBlank() || item.substring(eq + 1).isBlank()) {
                throw new IllegalArgumentException("option kvlog.remoteStorage.keyPairs is a list of "
                    + "<key id>=<private key PEM file>, comma-separated");
            }
            out.put(item.substring(0, eq).trim(), item.substring(eq + 1).trim());
        }
        return out;
    }

    private synchronized PrivateKey key(String id) {
        PrivateKey k = loaded.get(id);
        if (k != null) {
            return k;
        }
        byte[] data;
        try {
            data = Files.readAllBytes(Paths.get(files.get(id)));
        } catch (IOException | RuntimeException e) {
            throw new IllegalArgumentException("the private key file of key pair '" + id + "' cannot be read ("
                + e.getClass().getSimpleName() + ")");
        }
        String text = new String(data, StandardCharsets.US_ASCII);
        byte[] der = data;
        if (text.contains("-----BEGIN")) {
            if (!text.contains("-----BEGIN PRIVATE KEY-----")) {
                throw new IllegalArgumentException("key pair '" + id + "': not an unencrypted PKCS#8 PEM private key "
                    + "(the plugin's key files are PKCS#8: -----BEGIN PRIVATE KEY-----)");
            }
            int from = text.indexOf("-----BEGIN PRIVATE KEY-----") + "-----BEGIN PRIVATE KEY-----".length();
            int to = text.indexOf("-----END PRIVATE KEY-----", from);
            try {
                der = Base64.getMimeDecoder().decode(text.substring(from, to < 0 ? text.length() : to));
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException("key pair '" + id + "': its PEM body is not base64");
            }
        }
        try {
            k = KeyFactory.getInstance("RSA").generatePrivate(new PKCS8EncodedKeySpec(der));
        } catch (GeneralSecurityException e) {
            throw new IllegalArgumentException("key pair '" + id + "': not an unencrypted PKCS#8 RSA private key");
        }
        loaded.put(id, k);
        return k;
    }

    /** The AES data key wrapped for {@code keyId}; a {@link RemoteSegmentException} naming {@code manifest}. */
    byte[] unwrap(String keyId, byte[] wrapped, String manifest) {
        if (!files.containsKey(keyId)) {
            String known = files.isEmpty() ? "no kvlog.remoteStorage.keyPairs were given"
                : "the key pairs given are " + files.keySet();
            throw new RemoteSegmentException(manifest, -1, "manifest " + manifest + ": the segment's data key is wrapped for key pair '"
                + keyId + "', and " + known + ": pass kvlog.remoteStorage.keyPairs=" + keyId + "=<its private key "
                + "PEM file> (encryption.key.pairs." + keyId + ".private.key.file in the plugin's configuration)");
        }
        PrivateKey k = key(keyId);
        byte[] key;
        try {
            Cipher rsa = Cipher.getInstance("RSA/ECB/OAEPPadding");
            rsa.init(Cipher.DECRYPT_MODE, k, OAEP);
            key = rsa.doFinal(wrapped);
        } catch (BadPaddingException | IllegalBlockSizeException e) {
            throw new RemoteSegmentException(manifest, -1, "manifest " + manifest + ": the private key of key pair '" + keyId
                + "' does not unwrap the segment's data key (a different key under the same id, or a damaged "
                + "manifest)");
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("RSA-OAEP with SHA3-512 is not available in this JVM ("
                + e.getClass().getSimpleName() + ")", e);
        }
        if (key.length != 16 && key.length != 24 && key.length != 32) {
            throw new RemoteSegmentException(manifest, -1, "manifest " + manifest + ": the unwrapped data key is " + key.length
                + " bytes, not an AES key");
        }
        return key;
    }
}
