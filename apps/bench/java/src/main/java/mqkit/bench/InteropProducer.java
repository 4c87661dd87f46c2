package mqkit.bench;

import org.apache.rocketmq.common.compression.CompressionType;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import org.apache.rocketmq.client.producer.DefaultMQProducer;
import org.apache.rocketmq.client.producer.SendResult;
import org.apache.rocketmq.common.message.Message;

/**
 * RocketMQ's own DefaultMQProducer for the interop test: sends the messages given on stdin, one per line, with sync
 * send(msg) and default settings (bodies over 4 KiB are compressed, as DefaultMQProducer does) except
 * sendMsgTimeout, 15 s: a cold JVM's first send (route, connection, class loading) can take over 3 s on a busy box. A line has four
 * tab-separated fields, each base64 of UTF-8 (the body: of raw bytes) and empty when absent:
 * body, tags, keys (space-separated, set with setKeys(List)), properties ("name:value" pairs of base64 joined by ","; base64 has no ":" or ",").
 * Prints "SENT {msgId,queueId,brokerName,status}" per message, then RESULT; exits 1 when a send failed.
 *
 * Args: namesrvAddr topic [namespace] [compressType: ZLIB, LZ4 or ZSTD, set with setCompressType]
 */
public final class InteropProducer {
    public static void main(String[] args) throws Exception {
        if (args.length < 2) {
            System.err.println("usage: InteropProducer namesrvAddr topic < messages");
            System.exit(2);
        }
        DefaultMQProducer producer = new DefaultMQProducer("mqkit_interop_producer_" + System.nanoTime());
        producer.setNamesrvAddr(args[0]);
        if (args.length > 2 && !args[2].isEmpty()) producer.setNamespace(args[2]);
        if (args.length > 3 && !args[3].isEmpty()) producer.setCompressType(CompressionType.of(args[3]));
        producer.setSendMsgTimeout(15_000);
        producer.start();
        int sent = 0;
        String failure = null;
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        for (String line = in.readLine(); line != null; line = in.readLine()) {
            if (line.isEmpty()) continue;
            try {
                SendResult result = producer.send(parse(args[1], line));
                sent++;
                System.out.println("SENT {\"msgId\":" + JsonText.quote(result.getMsgId())
                    + ",\"brokerName\":" + JsonText.quote(result.getMessageQueue().getBrokerName())
                    + ",\"queueId\":" + result.getMessageQueue().getQueueId()
                    + ",\"status\":" + JsonText.quote(result.getSendStatus().name()) + "}");
            } catch (Exception e) {
                failure = e.toString();
                break;
            }
        }
        BenchReport report = new BenchReport().put("client", "java-interop-producer").put("sent", sent);
        if (failure != null) report.put("error", failure);
        report.print();
        producer.shutdown();
        System.exit(failure == null ? 0 : 1);
    }

    private static String text(String base64) {
        return new String(Base64.getDecoder().decode(base64), StandardCharsets.UTF_8);
    }

    private static Message parse(String topic, String line) {
        String[] fields = line.split("\t", -1);
        if (fields.length != 4) throw new IllegalArgumentException("expected 4 tab-separated fields, got " + fields.length);
        Message message = new Message(topic, Base64.getDecoder().decode(fields[0]));
        if (!fields[1].isEmpty()) message.setTags(text(fields[1]));
        if (!fields[2].isEmpty()) {
            List<String> keys = new ArrayList<>(List.of(text(fields[2]).split(" ")));
            message.setKeys(keys);
        }
        if (!fields[3].isEmpty()) {
            for (String pair : fields[3].split(",")) {
                String[] nameValue = pair.split(":", 2);
                message.putUserProperty(text(nameValue[0]), text(nameValue[1]));
            }
        }
        return message;
    }
}
