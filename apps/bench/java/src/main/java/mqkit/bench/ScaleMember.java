package mqkit.bench;

import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.rocketmq.client.consumer.AllocateMessageQueueStrategy;
import org.apache.rocketmq.client.consumer.DefaultMQPushConsumer;
import org.apache.rocketmq.client.consumer.listener.ConsumeConcurrentlyStatus;
import org.apache.rocketmq.client.consumer.listener.MessageListenerConcurrently;
import org.apache.rocketmq.client.consumer.rebalance.AllocateMessageQueueAveragely;
import org.apache.rocketmq.client.impl.consumer.ProcessQueue;
import org.apache.rocketmq.common.consumer.ConsumeFromWhere;
import org.apache.rocketmq.common.message.MessageQueue;

/**
 * RocketMQ's DefaultMQPushConsumer as one member of a group on several topics, for `npm run bench -- scale`;
 * the same settings as mqkit-scale.child.cjs: CONSUME_FROM_FIRST_OFFSET, pullBatchSize 32,
 * consumeThreadMin/Max 20, consumeMessageBatchMaxSize 1, default pull interval, a handler that only counts.
 *
 * Modes:
 *   member namesrvAddr group topicsCsv
 *     Runs until SIGTERM (clean shutdown) or SIGKILL. Prints "STARTING {at}" right before start() and, whenever the
 *     queues it owns of a topic change, "ALLOC {at,topic,members,queues}" once its process queue table holds exactly
 *     the new allocation: the moment the queues are taken (their offsets read) or let go, as mqkit's
 *     consumer.rebalance event (emitted after the allocation is applied) reports it.
 *   backlog namesrvAddr group topicsCsv expected fromMark toMark timeoutSeconds
 *     Reads `expected` messages; prints RESULT with fromMs/toMs (when the count reached each mark, ms after
 *     start()), so the parent computes the steady rate between the 10 % and 90 % messages.
 */
public final class ScaleMember {
    private static final PrintStream OUT = new PrintStream(System.out, true, StandardCharsets.UTF_8);

    public static void main(String[] args) throws Exception {
        if (args.length < 4 || !(args[0].equals("member") || args[0].equals("backlog"))) {
            System.err.println("usage: ScaleMember member|backlog namesrvAddr group topicsCsv [expected fromMark toMark timeoutSeconds]");
            System.exit(2);
        }
        List<String> topics = List.of(args[3].split(","));
        DefaultMQPushConsumer consumer = new DefaultMQPushConsumer(args[2]);
        consumer.setNamesrvAddr(args[1]);
        consumer.setConsumeFromWhere(ConsumeFromWhere.CONSUME_FROM_FIRST_OFFSET);
        consumer.setPullBatchSize(32);
        consumer.setConsumeMessageBatchMaxSize(1);
        consumer.setConsumeThreadMin(20);
        consumer.setConsumeThreadMax(20);
        for (String topic : topics) consumer.subscribe(topic, "*");
        if (args[0].equals("member")) member(consumer, new HashSet<>(topics));
        else backlog(consumer, Long.parseLong(args[4]), Long.parseLong(args[5]), Long.parseLong(args[6]), Long.parseLong(args[7]));
    }

    private static void member(DefaultMQPushConsumer consumer, Set<String> topics) throws Exception {
        AllocationWatch watch = new AllocationWatch(consumer, topics);
        consumer.setAllocateMessageQueueStrategy(watch);
        consumer.registerMessageListener((MessageListenerConcurrently) (messages, context) -> ConsumeConcurrentlyStatus.CONSUME_SUCCESS);
        Runtime.getRuntime().addShutdownHook(new Thread(consumer::shutdown));
        OUT.println("STARTING {\"at\":" + System.currentTimeMillis() + "}");
        consumer.start();
        Thread watcher = new Thread(watch::run, "allocation-watch");
        watcher.setDaemon(true);
        watcher.start();
        Thread.currentThread().join();
    }

    private static void backlog(DefaultMQPushConsumer consumer, long expected, long fromMark, long toMark, long timeoutSeconds) throws Exception {
        AtomicLong received = new AtomicLong();
        AtomicLong firstNanos = new AtomicLong();
        AtomicLong fromNanos = new AtomicLong();
        AtomicLong toNanos = new AtomicLong();
        CountDownLatch done = new CountDownLatch(1);
        consumer.registerMessageListener((MessageListenerConcurrently) (messages, context) -> {
            long now = System.nanoTime();
            firstNanos.compareAndSet(0, now);
            long count = received.addAndGet(messages.size());
            long before = count - messages.size();
            if (before < fromMark && count >= fromMark) fromNanos.set(now);
            if (before < toMark && count >= toMark) toNanos.set(now);
            if (count >= expected) done.countDown();
            return ConsumeConcurrentlyStatus.CONSUME_SUCCESS;
        });
        long startNanos = System.nanoTime();
        consumer.start();
        boolean finished = done.await(timeoutSeconds, TimeUnit.SECONDS);
        long endNanos = System.nanoTime();
        new BenchReport()
            .put("client", "java-push")
            .put("ok", finished)
            .put("received", received.get())
            .put("expected", expected)
            .put("elapsedMs", Math.round((endNanos - startNanos) / 1e6))
            .put("firstMessageMs", firstNanos.get() == 0 ? -1 : (firstNanos.get() - startNanos) / 1e6)
            .put("fromMs", fromNanos.get() == 0 ? -1 : (fromNanos.get() - startNanos) / 1e6)
            .put("toMs", toNanos.get() == 0 ? -1 : (toNanos.get() - startNanos) / 1e6)
            .put("peakRssKib", BenchReport.peakRssKib())
            .print();
        consumer.shutdown();
        System.exit(finished ? 0 : 1);
    }

    /**
     * Average allocation (RocketMQ's default) that remembers each topic's latest result. DefaultMQPushConsumer has no
     * rebalance listener, and the strategy runs before the allocation is applied (offsets read, queues dropped), so
     * a watcher thread waits until the process queue table matches and prints then. It polls only while an
     * allocation is pending, so an idle member with a stable assignment pays nothing for it.
     */
    private static final class AllocationWatch implements AllocateMessageQueueStrategy {
        private final AllocateMessageQueueStrategy average = new AllocateMessageQueueAveragely();
        private final DefaultMQPushConsumer consumer;
        private final Set<String> topics;
        private final Map<String, Set<MessageQueue>> last = new HashMap<>();
        private final Map<String, Set<MessageQueue>> pending = new HashMap<>();
        private final Map<String, Integer> members = new HashMap<>();

        AllocationWatch(DefaultMQPushConsumer consumer, Set<String> topics) {
            this.consumer = consumer;
            this.topics = topics;
        }

        @Override
        public List<MessageQueue> allocate(String group, String currentCID, List<MessageQueue> mqAll, List<String> cidAll) {
            List<MessageQueue> result = average.allocate(group, currentCID, mqAll, cidAll);
            if (mqAll.isEmpty() || !topics.contains(mqAll.get(0).getTopic())) return result;
            String topic = mqAll.get(0).getTopic();
            Set<MessageQueue> wanted = new HashSet<>(result);
            synchronized (this) {
                if (!wanted.equals(last.get(topic))) {
                    last.put(topic, wanted);
                    pending.put(topic, wanted);
                    members.put(topic, cidAll.size());
                    notifyAll();
                }
            }
            return result;
        }

        @Override
        public String getName() {
            return average.getName();
        }

        void run() {
            try {
                for (;;) {
                    Map<String, Set<MessageQueue>> waiting;
                    synchronized (this) {
                        while (pending.isEmpty()) wait();
                        waiting = new HashMap<>(pending);
                    }
                    Map<MessageQueue, ProcessQueue> table = consumer.getDefaultMQPushConsumerImpl().getRebalanceImpl().getProcessQueueTable();
                    for (Map.Entry<String, Set<MessageQueue>> entry : waiting.entrySet()) {
                        Set<MessageQueue> owned = new HashSet<>();
                        for (Map.Entry<MessageQueue, ProcessQueue> pq : table.entrySet()) {
                            if (pq.getKey().getTopic().equals(entry.getKey()) && !pq.getValue().isDropped()) owned.add(pq.getKey());
                        }
                        if (!owned.equals(entry.getValue())) continue;
                        long at = System.currentTimeMillis();
                        int count;
                        synchronized (this) {
                            // A newer allocation replaced this one meanwhile: wait for that one instead.
                            if (pending.get(entry.getKey()) != entry.getValue()) continue;
                            pending.remove(entry.getKey());
                            count = members.get(entry.getKey());
                        }
                        print(at, entry.getKey(), count, owned);
                    }
                    Thread.sleep(5);
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }

        private static void print(long at, String topic, int members, Set<MessageQueue> owned) {
            List<String> ids = new ArrayList<>();
            for (MessageQueue mq : owned) ids.add(JsonText.quote(mq.getBrokerName() + ":" + mq.getQueueId()));
            Collections.sort(ids);
            OUT.println("ALLOC {\"at\":" + at + ",\"topic\":" + JsonText.quote(topic) + ",\"members\":" + members + ",\"queues\":[" + String.join(",", ids) + "]}");
        }
    }
}
