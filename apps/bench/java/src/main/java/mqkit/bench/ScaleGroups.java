package mqkit.bench;

import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.rocketmq.client.consumer.DefaultMQPushConsumer;
import org.apache.rocketmq.client.consumer.listener.ConsumeConcurrentlyStatus;
import org.apache.rocketmq.client.consumer.listener.MessageListenerConcurrently;
import org.apache.rocketmq.common.consumer.ConsumeFromWhere;

/**
 * Many consumer groups in one JVM, for `npm run bench -- scale`: one DefaultMQPushConsumer per group, each on its
 * own topic (they share the process's one MQClientInstance, as consumers of one app do), with the settings of
 * ScaleMember. Prints "GROUP {at}" (epoch ms) when a group handles its first message and "FIRST {at}" once every group
 * has; the parent takes the
 * start time from its own spawn time to that, and RSS from /proc. Runs until SIGTERM (clean shutdown) or SIGKILL.
 *
 * Args: namesrvAddr groupsCsv topicsCsv (the i-th group consumes the i-th topic)
 */
public final class ScaleGroups {
    public static void main(String[] args) throws Exception {
        if (args.length < 3) {
            System.err.println("usage: ScaleGroups namesrvAddr groupsCsv topicsCsv");
            System.exit(2);
        }
        PrintStream out = new PrintStream(System.out, true, StandardCharsets.UTF_8);
        String[] groups = args[1].split(",");
        String[] topics = args[2].split(",");
        AtomicInteger waiting = new AtomicInteger(groups.length);
        List<DefaultMQPushConsumer> consumers = new ArrayList<>();
        for (int i = 0; i < groups.length; i++) {
            DefaultMQPushConsumer consumer = new DefaultMQPushConsumer(groups[i]);
            consumer.setNamesrvAddr(args[0]);
            consumer.setConsumeFromWhere(ConsumeFromWhere.CONSUME_FROM_FIRST_OFFSET);
            consumer.setPullBatchSize(32);
            consumer.setConsumeMessageBatchMaxSize(1);
            consumer.setConsumeThreadMin(20);
            consumer.setConsumeThreadMax(20);
            consumer.subscribe(topics[i], "*");
            AtomicBoolean first = new AtomicBoolean(true);
            consumer.registerMessageListener((MessageListenerConcurrently) (messages, context) -> {
                if (!first.getAndSet(false)) return ConsumeConcurrentlyStatus.CONSUME_SUCCESS;
                long at = System.currentTimeMillis();
                out.println("GROUP {\"at\":" + at + "}");
                if (waiting.decrementAndGet() == 0) out.println("FIRST {\"at\":" + at + "}");
                return ConsumeConcurrentlyStatus.CONSUME_SUCCESS;
            });
            consumers.add(consumer);
        }
        Runtime.getRuntime().addShutdownHook(new Thread(() -> consumers.forEach(DefaultMQPushConsumer::shutdown)));
        for (DefaultMQPushConsumer consumer : consumers) consumer.start();
        Thread.currentThread().join();
    }
}
