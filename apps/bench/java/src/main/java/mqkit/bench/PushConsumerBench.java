package mqkit.bench;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.rocketmq.client.consumer.DefaultMQPushConsumer;
import org.apache.rocketmq.client.consumer.listener.ConsumeConcurrentlyStatus;
import org.apache.rocketmq.client.consumer.listener.MessageListenerConcurrently;
import org.apache.rocketmq.common.consumer.ConsumeFromWhere;

/**
 * RocketMQ's own push consumer, for `npm run bench -- rocketmq`. A fresh group reads a pre-filled topic from
 * CONSUME_FROM_FIRST_OFFSET with the settings mqkit's side uses: pullBatchSize 32, consumeMessageBatchMaxSize 1,
 * consumeThreadMin = consumeThreadMax = threads, a handler that only counts.
 *
 * Args: namesrvAddr topic group expectedCount threads [timeoutSeconds=300]
 * Prints: RESULT {"client":"java-push","received","elapsedMs","msgsPerSec","firstMessageMs","steadyMsgsPerSec","peakRssKib"}
 * elapsedMs runs from start() until expectedCount messages were handled; msgsPerSec = received / elapsed;
 * steadyMsgsPerSec leaves out the time to the first message (rebalance and first pull).
 */
public final class PushConsumerBench {
    public static void main(String[] args) throws Exception {
        if (args.length < 5) {
            System.err.println("usage: PushConsumerBench namesrvAddr topic group expectedCount threads [timeoutSeconds]");
            System.exit(2);
        }
        String namesrv = args[0];
        String topic = args[1];
        String group = args[2];
        long expected = Long.parseLong(args[3]);
        int threads = Integer.parseInt(args[4]);
        long timeoutSeconds = args.length > 5 ? Long.parseLong(args[5]) : 300;

        AtomicLong received = new AtomicLong();
        AtomicLong firstNanos = new AtomicLong();
        AtomicLong lastNanos = new AtomicLong();
        CountDownLatch done = new CountDownLatch(1);

        DefaultMQPushConsumer consumer = new DefaultMQPushConsumer(group);
        consumer.setNamesrvAddr(namesrv);
        consumer.setConsumeFromWhere(ConsumeFromWhere.CONSUME_FROM_FIRST_OFFSET);
        consumer.setPullBatchSize(32);
        consumer.setConsumeMessageBatchMaxSize(1);
        consumer.setConsumeThreadMin(threads);
        consumer.setConsumeThreadMax(threads);
        consumer.subscribe(topic, "*");
        consumer.registerMessageListener((MessageListenerConcurrently) (messages, context) -> {
            long now = System.nanoTime();
            firstNanos.compareAndSet(0, now);
            long count = received.addAndGet(messages.size());
            if (count >= expected) {
                lastNanos.compareAndSet(0, now);
                done.countDown();
            }
            return ConsumeConcurrentlyStatus.CONSUME_SUCCESS;
        });

        long startNanos = System.nanoTime();
        consumer.start();
        boolean finished = done.await(timeoutSeconds, TimeUnit.SECONDS);
        long endNanos = finished ? lastNanos.get() : System.nanoTime();
        long count = received.get();
        double elapsedMs = (endNanos - startNanos) / 1e6;
        double steadyMs = firstNanos.get() == 0 ? 0 : (endNanos - firstNanos.get()) / 1e6;
        new BenchReport()
            .put("client", "java-push")
            .put("ok", finished)
            .put("received", count)
            .put("expected", expected)
            .put("threads", threads)
            .put("elapsedMs", Math.round(elapsedMs))
            .put("msgsPerSec", elapsedMs > 0 ? Math.round(count * 1000.0 / elapsedMs) : 0)
            .put("firstMessageMs", firstNanos.get() == 0 ? -1 : Math.round((firstNanos.get() - startNanos) / 1e6))
            .put("steadyMsgsPerSec", steadyMs > 0 ? Math.round((count - 1) * 1000.0 / steadyMs) : 0)
            .put("peakRssKib", BenchReport.peakRssKib())
            .print();
        consumer.shutdown();
        System.exit(finished ? 0 : 1);
    }
}
