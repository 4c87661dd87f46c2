package mqkit.bench;

import java.nio.charset.StandardCharsets;
import java.util.Base64;
import org.apache.rocketmq.common.compression.CompressionType;
import org.apache.rocketmq.common.compression.CompressorFactory;

/**
 * Prints what RocketMQ's own compressors (the ones DefaultMQProducer uses) make of a fixed text, at level 5, as
 * "VECTOR {type,sysFlag,body}" lines with the body in base64. mqkit's codec specs check these bytes in (the command
 * is in the spec), so the LZ4 and ZSTD decoders are tested against Java's output without a JVM.
 *
 * Args: none.
 */
public final class CompressionVectors {
    public static void main(String[] args) throws Exception {
        StringBuilder text = new StringBuilder();
        for (int i = 0; i < 200; i++) text.append("{\"order\":").append(i).append(",\"sku\":\"sku-").append(i % 7).append("\"}\n");
        byte[] plain = text.toString().getBytes(StandardCharsets.UTF_8);
        System.out.println("PLAIN {\"body\":" + JsonText.quote(Base64.getEncoder().encodeToString(plain)) + "}");
        for (CompressionType type : CompressionType.values()) {
            byte[] body = CompressorFactory.getCompressor(type).compress(plain, 5);
            System.out.println("VECTOR {\"type\":" + JsonText.quote(type.name())
                + ",\"sysFlag\":" + (0x1 | type.getCompressionFlag())
                + ",\"body\":" + JsonText.quote(Base64.getEncoder().encodeToString(body)) + "}");
        }
    }
}
