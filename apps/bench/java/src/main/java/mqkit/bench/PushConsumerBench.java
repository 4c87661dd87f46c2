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
 * Args: namesrvAddr topic group expectedCount threads timeoutSeconds steadyFrom steadyTo
 * (steadyFrom/steadyTo come from the case's steadyMarks, so one function defines them for every client).
 * Prints: RESULT {"client":"java-push","ok","received","elapsedMs","totalMsgsPerSec","firstMessageMs","steadyMs",
 * "steadyMsgsPerSec","peakRssKib"}: totalMsgsPerSec = expected / start() to the expected-th message;
 * steadyMsgsPerSec = (steadyTo - steadyFrom) / the time between the steadyFrom-th and the steadyTo-th message.
 */
public final class PushConsumerBench {
    public static void main(String[] args) throws Exception {
        if (args.length < 8) {
            System.err.println("usage: PushConsumerBench namesrvAddr topic group expectedCount threads timeoutSeconds steadyFrom steadyTo");
            System.exit(2);
        }
        String namesrv = args[0];
        String topic = args[1];
        String group = args[2];
        long expected = Long.parseLong(args[3]);
        int threads = Integer.parseInt(args[4]);
        long timeoutSeconds = Long.parseLong(args[5]);
        long from = Long.parseLong(args[6]);
        long to = Long.parseLong(args[7]);

        AtomicLong received = new AtomicLong();
        AtomicLong firstNanos = new AtomicLong();
        AtomicLong fromNanos = new AtomicLong();
        AtomicLong toNanos = new AtomicLong();
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
            long count = received.addAndGet(messages.size());
            long before = count - messages.size();
            // The clock is read after the count moved, so a stamp is never earlier than the message it marks;
            // only the thread whose batch crossed a mark stamps it.
            long now = System.nanoTime();
            if (before == 0) firstNanos.compareAndSet(0, now);
            if (before < from && count >= from) fromNanos.compareAndSet(0, now);
            if (before < to && count >= to) toNanos.compareAndSet(0, now);
            if (before < expected && count >= expected) {
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
        double steadyMs = fromNanos.get() == 0 || toNanos.get() == 0 ? 0 : (toNanos.get() - fromNanos.get()) / 1e6;
        new BenchReport()
            .put("client", "java-push")
            .put("ok", finished)
            .put("received", count)
            .put("expected", expected)
            .put("threads", threads)
            .put("elapsedMs", Math.round(elapsedMs))
            .put("totalMsgsPerSec", elapsedMs > 0 ? Math.round(count * 1000.0 / elapsedMs) : 0)
            .put("firstMessageMs", firstNanos.get() == 0 ? -1 : Math.round((firstNanos.get() - startNanos) / 1e6))
            .put("steadyMs", steadyMs > 0 ? Math.round(steadyMs) : -1)
            .put("steadyMsgsPerSec", steadyMs > 0 ? Math.round((to - from) * 1000.0 / steadyMs) : 0)
            .put("peakRssKib", BenchReport.peakRssKib())
            .print();
        consumer.shutdown();
        System.exit(finished ? 0 : 1);
    }
}
