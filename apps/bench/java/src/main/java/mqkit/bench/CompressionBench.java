package mqkit.bench;

import java.nio.file.Files;
import java.nio.file.Paths;
import org.apache.rocketmq.common.compression.CompressionType;
import org.apache.rocketmq.common.compression.Compressor;
import org.apache.rocketmq.common.compression.CompressorFactory;

/**
 * Java's side of `npm run bench -- compression`: RocketMQ's own compressor for one type (the one DefaultMQProducer
 * and MessageDecoder use) compresses the corpus at the level, then decompresses the result, each over and over:
 * first for warmupMs (not counted: the JIT compiles), then for measureMs. Mirrors codec-cost.child.cjs.
 *
 * Args: type level corpusFile warmupMs measureMs. Prints RESULT with encodeMsPerMiB and decodeMsPerMiB (per MiB of
 * the original body), the compressed size and peakRssKib.
 */
public final class CompressionBench {
    interface Step {
        void run() throws Exception;
    }

    private static double timed(Step step, long ms) throws Exception {
        long started = System.nanoTime();
        long calls = 0;
        long now = started;
        while (now - started < ms * 1_000_000L) {
            step.run();
            calls++;
            now = System.nanoTime();
        }
        return (now - started) / 1e6 / calls;
    }

    public static void main(String[] args) throws Exception {
        CompressionType type = CompressionType.of(args[0]);
        int level = Integer.parseInt(args[1]);
        byte[] corpus = Files.readAllBytes(Paths.get(args[2]));
        long warmupMs = Long.parseLong(args[3]);
        long measureMs = Long.parseLong(args[4]);
        Compressor compressor = CompressorFactory.getCompressor(type);
        byte[] compressed = compressor.compress(corpus, level);
        if (!java.util.Arrays.equals(compressor.decompress(compressed), corpus)) throw new IllegalStateException("round trip");
        Step encode = () -> compressor.compress(corpus, level);
        Step decode = () -> compressor.decompress(compressed);
        timed(encode, warmupMs);
        timed(decode, warmupMs);
        double mib = corpus.length / (1024.0 * 1024.0);
        double encodeMs = timed(encode, measureMs);
        double decodeMs = timed(decode, measureMs);
        new BenchReport()
            .put("client", "java")
            .put("java", System.getProperty("java.version"))
            .put("type", type.name())
            .put("level", level)
            .put("corpusBytes", corpus.length)
            .put("compressedBytes", compressed.length)
            .put("encodeMsPerMiB", Math.round(encodeMs / mib * 1000) / 1000.0)
            .put("decodeMsPerMiB", Math.round(decodeMs / mib * 1000) / 1000.0)
            .put("peakRssKib", BenchReport.peakRssKib())
            .print();
    }
}
