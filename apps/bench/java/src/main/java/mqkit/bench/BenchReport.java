package mqkit.bench;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Paths;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The result line every bench program prints: "RESULT " + one JSON object, last on stdout, so the Node side can
 * find it among anything a library prints. Peak RSS is the process's own VmHWM, the same figure mqkit's side reads.
 */
final class BenchReport {
    private final Map<String, Object> fields = new LinkedHashMap<>();

    BenchReport put(String key, Object value) {
        fields.put(key, value);
        return this;
    }

    /** VmHWM (peak resident set) of this JVM in KiB from /proc/self/status, or -1 where there is no /proc. */
    static long peakRssKib() {
        try {
            for (String line : Files.readAllLines(Paths.get("/proc/self/status"), StandardCharsets.UTF_8)) {
                if (line.startsWith("VmHWM:")) {
                    return Long.parseLong(line.replaceAll("[^0-9]", ""));
                }
            }
        } catch (IOException | NumberFormatException ignored) {
            // not Linux: report -1 rather than fail the run
        }
        return -1;
    }

    /** JSON string escaping: quote, backslash and every control character. */
    private static String escape(String text) {
        StringBuilder out = new StringBuilder(text.length());
        for (char c : text.toCharArray()) {
            if (c == '"' || c == '\\') out.append('\\').append(c);
            else if (c < 0x20) out.append(String.format("\\u%04x", (int) c));
            else out.append(c);
        }
        return out.toString();
    }

    void print() {
        StringBuilder json = new StringBuilder("{");
        for (Map.Entry<String, Object> entry : fields.entrySet()) {
            if (json.length() > 1) json.append(',');
            json.append('"').append(entry.getKey()).append("\":");
            Object value = entry.getValue();
            if (value instanceof Number || value instanceof Boolean) {
                json.append(value);
            } else {
                json.append('"').append(escape(String.valueOf(value))).append('"');
            }
        }
        System.out.println("RESULT " + json.append('}'));
        System.out.flush();
    }
}
