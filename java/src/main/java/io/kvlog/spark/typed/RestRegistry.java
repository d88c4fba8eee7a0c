package io.kvlog.spark.typed;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.net.URI;
import java.net.URLDecoder;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A schema registry's REST API as a source ({@code kvlog.schemas.rest}): {@code /schemas/ids/{id}},
 * {@code /schemas/guids/{guid}}, {@code /subjects/{s}/versions/{v}}; answers cached for the source's life. Basic
 * auth comes from the URL's userinfo; no message carries it.
 */
public final class RestRegistry implements SchemaSource {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String ACCEPT =
        "application/vnd.schemaregistry.v1+json, application/vnd.schemaregistry+json, application/json";
    private final String base;
    private final String auth;
    private final HttpClient http;
    private final Map<Integer, RegisteredSchema> byId = new ConcurrentHashMap<>();
    private final Map<String, RegisteredSchema> byVersion = new ConcurrentHashMap<>();

    public RestRegistry(String url) {
        URI u = URI.create(url);
        if (u.getScheme() == null || !(u.getScheme().equals("http") || u.getScheme().equals("https"))
            || u.getHost() == null) {
            throw new SchemaException("a schema registry URL is http:// or https://host[:port][/path]");
        }
        String info = u.getRawUserInfo();
        this.auth = info == null ? null : "Basic " + Base64.getEncoder().encodeToString(
            URLDecoder.decode(info, StandardCharsets.UTF_8).getBytes(StandardCharsets.UTF_8));
        String path = u.getRawPath() == null ? "" : u.getRawPath().replaceAll("/+$", "");
        this.base = u.getScheme() + "://" + u.getHost() + (u.getPort() > 0 ? ":" + u.getPort() : "") + path;
        this.http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(30)).build();
    }

    @Override
    public String description() {
        return "the schema registry at " + base;
    }

    private JsonNode get(String path) {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(base + path)).timeout(Duration.ofSeconds(30))
            .header("Accept", ACCEPT).GET();
        if (auth != null) {
            b.header("Authorization", auth);
        }
        HttpRequest req = b.build();
        for (int attempt = 0; ; attempt++) {
            HttpResponse<byte[]> resp;
            try {
                resp = http.send(req, HttpResponse.BodyHandlers.ofByteArray());
            } catch (IOException e) {
                if (attempt < 2) {
                    continue;
                }
                throw new SchemaException(description() + " cannot be reached (GET " + path + "): " + e.getMessage());
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new SchemaException("interrupted asking " + description());
            }
            int status = resp.statusCode();
            if (status == 200) {
                try {
                    return JSON.readTree(resp.body());
                } catch (IOException e) {
                    throw new SchemaException(description() + " answered GET " + path + " with what is not JSON");
                }
            }
            String message = new String(resp.body(), StandardCharsets.UTF_8);
            int code = -1;
            try {
                JsonNode err = JSON.readTree(resp.body());
                code = err.path("error_code").asInt(-1);
                message = err.path("message").asText(message);
            } catch (IOException e) {
                // the body as it came
            }
            if (status == 404 || (code >= 40400 && code < 40410)) {
                throw new SchemaException(description() + ": " + message + " (GET " + path + ")", true);
            }
            if (status >= 500 && attempt < 2) {
                continue;
            }
            throw new SchemaException(description() + " answered GET " + path + " with HTTP " + status
                + (code > 0 ? " (error " + code + ")" : "") + ": " + message);
        }
    }

    private static List<RegisteredSchema.Reference> refs(JsonNode body) {
        List<RegisteredSchema.Reference> out = new ArrayList<>();
        for (JsonNode r : body.path("references")) {
            out.add(new RegisteredSchema.Reference(r.path("name").asText(), r.path("subject").asText(),
                r.path("version").asInt()));
        }
        return List.copyOf(out);
    }

    @Override
    public RegisteredSchema byId(int id) {
        return byId.computeIfAbsent(id, x -> {
            JsonNode b = get("/schemas/ids/" + id);
            return new RegisteredSchema(id, RegisteredSchema.normalizeType(b.path("schemaType").asText(null)),
                b.path("schema").asText(), refs(b), null, null, false);
        });
    }

    @Override
    public RegisteredSchema byGuid(UUID guid) {
        JsonNode b = get("/schemas/guids/" + guid);
        return new RegisteredSchema(b.path("id").asInt(-1), RegisteredSchema.normalizeType(
            b.path("schemaType").asText(null)), b.path("schema").asText(), refs(b), null, null, false);
    }

    @Override
    public RegisteredSchema version(String subject, Integer version) {
        String v = version == null ? "latest" : version.toString();
        return byVersion.computeIfAbsent(subject + "/" + v, x -> {
            JsonNode b = get("/subjects/" + URLEncoder.encode(subject, StandardCharsets.UTF_8).replace("+", "%20")
                + "/versions/" + v);
            return new RegisteredSchema(b.path("id").asInt(), RegisteredSchema.normalizeType(
                b.path("schemaType").asText(null)), b.path("schema").asText(), refs(b),
                b.path("subject").asText(subject), b.path("version").asInt(), false);
        });
    }
}
