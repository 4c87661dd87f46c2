package mqkit.bench;

import java.util.Base64;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.rocketmq.client.consumer.DefaultMQPushConsumer;
import org.apache.rocketmq.client.consumer.listener.ConsumeConcurrentlyStatus;
import org.apache.rocketmq.client.consumer.listener.MessageListenerConcurrently;
import org.apache.rocketmq.common.consumer.ConsumeFromWhere;
import org.apache.rocketmq.common.message.MessageConst;
import org.apache.rocketmq.common.message.MessageExt;

/**
 * RocketMQ's own push consumer for the interop test: a fresh group reads a topic from its first offset and prints
 * every message as one line "MSG {json}" with what the client hands the listener: body (base64, after the client's
 * decompression), tags, keys (the raw KEYS property), the user properties (everything outside
 * MessageConst.STRING_HASH_SET, RocketMQ's own list of system property names), the sysFlag as stored (its
 * compression type bits say how the body was compressed) and the message id.
 * Stops after expectedCount messages (exit 0) or the timeout (exit 1).
 *
 * Args: namesrvAddr topic group expectedCount [timeoutSeconds=120] [namespace]
 */
public final class InteropConsumer {
    public static void main(String[] args) throws Exception {
        if (args.length < 4) {
            System.err.println("usage: InteropConsumer namesrvAddr topic group expectedCount [timeoutSeconds]");
            System.exit(2);
        }
        long expected = Long.parseLong(args[3]);
        long timeoutSeconds = args.length > 4 ? Long.parseLong(args[4]) : 120;
        AtomicLong received = new AtomicLong();
        CountDownLatch done = new CountDownLatch(1);

        DefaultMQPushConsumer consumer = new DefaultMQPushConsumer(args[2]);
        consumer.setNamesrvAddr(args[0]);
        if (args.length > 5 && !args[5].isEmpty()) consumer.setNamespace(args[5]);
        consumer.setConsumeFromWhere(ConsumeFromWhere.CONSUME_FROM_FIRST_OFFSET);
        consumer.subscribe(args[1], "*");
        consumer.registerMessageListener((MessageListenerConcurrently) (messages, context) -> {
            for (MessageExt message : messages) {
                print(message);
                if (received.incrementAndGet() >= expected) done.countDown();
            }
            return ConsumeConcurrentlyStatus.CONSUME_SUCCESS;
        });
        consumer.start();
        boolean finished = done.await(timeoutSeconds, TimeUnit.SECONDS);
        new BenchReport().put("client", "java-interop-consumer").put("ok", finished).put("received", received.get()).print();
        consumer.shutdown();
        System.exit(finished ? 0 : 1);
    }

    private static void print(MessageExt message) {
        Map<String, String> user = new HashMap<>();
        for (Map.Entry<String, String> property : message.getProperties().entrySet()) {
            if (!MessageConst.STRING_HASH_SET.contains(property.getKey())) user.put(property.getKey(), property.getValue());
        }
        String line = "MSG {"
            + "\"msgId\":" + JsonText.quote(message.getMsgId())
            + ",\"topic\":" + JsonText.quote(message.getTopic())
            + ",\"body\":" + JsonText.quote(Base64.getEncoder().encodeToString(message.getBody()))
            + ",\"tags\":" + JsonText.quote(message.getTags())
            + ",\"keys\":" + JsonText.quote(message.getKeys())
            + ",\"properties\":" + JsonText.object(user)
            + ",\"sysFlag\":" + message.getSysFlag()
            + "}";
        synchronized (System.out) {
            System.out.println(line);
            System.out.flush();
        }
    }
}
