package mqkit.bench;

import java.util.Map;
import java.util.TreeMap;

/** Just enough JSON writing for the interop programs' output lines (no JSON library on purpose). */
final class JsonText {
    private JsonText() {}

    /** A JSON string literal: quote, backslash and every control character escaped. */
    static String quote(String text) {
        if (text == null) return "null";
        StringBuilder out = new StringBuilder(text.length() + 2).append('"');
        for (char c : text.toCharArray()) {
            if (c == '"' || c == '\\') out.append('\\').append(c);
            else if (c < 0x20) out.append(String.format("\\u%04x", (int) c));
            else out.append(c);
        }
        return out.append('"').toString();
    }

    /** A JSON object of string values, keys sorted so lines compare stably. */
    static String object(Map<String, String> values) {
        StringBuilder out = new StringBuilder("{");
        for (Map.Entry<String, String> entry : new TreeMap<>(values).entrySet()) {
            if (out.length() > 1) out.append(',');
            out.append(quote(entry.getKey())).append(':').append(quote(entry.getValue()));
        }
        return out.append('}').toString();
    }
}
