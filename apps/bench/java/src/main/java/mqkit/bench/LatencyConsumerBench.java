package mqkit.bench;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.file.Paths;
import java.nio.file.StandardOpenOption;
import java.time.Instant;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.rocketmq.client.consumer.DefaultMQPushConsumer;
import org.apache.rocketmq.client.consumer.listener.ConsumeConcurrentlyStatus;
import org.apache.rocketmq.client.consumer.listener.MessageListenerConcurrently;
import org.apache.rocketmq.common.consumer.ConsumeFromWhere;
import org.apache.rocketmq.common.message.MessageExt;

/**
 * RocketMQ's DefaultMQPushConsumer for `npm run bench -- latency`; mirrors mqkit-latency.child.cjs line for line.
 * A fresh group on a fresh topic; every handler call first takes the time and subtracts the producer's send stamp
 * (user property mqkitT, epoch microseconds), then optionally sleeps handlerMs (a slow handler).
 *
 * Protocol with the parent (latency-session.ts):
 * - a message with property mqkitProbe prints "PROBE broker:queueId" (the parent waits for one from every queue,
 *   which proves the consumer owns and pulls every queue before the timed sends start); it is not counted;
 * - "COUNT n" every 200 ms: messages handled (warm-up ones included), so the parent knows when a phase drained;
 * - on SIGTERM (a shutdown hook) or after timeoutSeconds it writes each phase's latencies (ms, float64 little
 *   endian) to outDir/java-<phase>.f64, and each one's delivery part (handler start - the broker's storeTimestamp,
 *   ms) to outDir/java-<phase>.deliver.f64, and prints RESULT via BenchReport. Messages with mqkitWarm are counted,
 *   not recorded (the warm-up at the start of each phase).
 *
 * Args: namesrvAddr topic group threads handlerMs pullBatchSize LAST|FIRST outDir phases capacityPerPhase timeoutSeconds
 */
public final class LatencyConsumerBench {
    private static final Object FINISH = new Object();
    private static boolean finished;

    /**
     * Wall clock in epoch microseconds. Instant.now() reads CLOCK_REALTIME with microsecond (or finer) resolution
     * on Linux with JDK 17, the same clock the Node producer's performance.timeOrigin + performance.now() is
     * anchored to; both processes run on this machine, so no clock offset enters the difference.
     */
    private static double nowMicros() {
        Instant now = Instant.now();
        return now.getEpochSecond() * 1e6 + now.getNano() / 1e3;
    }

    public static void main(String[] args) throws Exception {
        if (args.length < 11) {
            System.err.println("usage: LatencyConsumerBench namesrvAddr topic group threads handlerMs pullBatchSize LAST|FIRST outDir phases capacityPerPhase timeoutSeconds");
            System.exit(2);
        }
        String topic = args[1];
        int threads = Integer.parseInt(args[3]);
        long handlerMs = Long.parseLong(args[4]);
        String outDir = args[7];
        int phases = Integer.parseInt(args[8]);
        int capacity = Integer.parseInt(args[9]);
        long timeoutSeconds = Long.parseLong(args[10]);

        // One preallocated array per phase with an atomic cursor: consume threads record without locking.
        double[][] latencies = new double[phases][capacity];
        double[][] deliveries = new double[phases][capacity];
        AtomicInteger[] recorded = new AtomicInteger[phases];
        for (int i = 0; i < phases; i++) recorded[i] = new AtomicInteger();
        AtomicLong handled = new AtomicLong();
        AtomicLong overflow = new AtomicLong();

        DefaultMQPushConsumer consumer = new DefaultMQPushConsumer(args[2]);
        consumer.setNamesrvAddr(args[0]);
        consumer.setConsumeFromWhere(args[6].equals("FIRST") ? ConsumeFromWhere.CONSUME_FROM_FIRST_OFFSET : ConsumeFromWhere.CONSUME_FROM_LAST_OFFSET);
        consumer.setPullBatchSize(Integer.parseInt(args[5]));
        consumer.setConsumeMessageBatchMaxSize(1);
        consumer.setConsumeThreadMin(threads);
        consumer.setConsumeThreadMax(threads);
        consumer.subscribe(topic, "*");
        consumer.registerMessageListener((MessageListenerConcurrently) (messages, context) -> {
            double now = nowMicros();
            for (MessageExt m : messages) {
                if (m.getProperty("mqkitProbe") != null) {
                    System.out.println("PROBE " + m.getBrokerName() + ":" + m.getQueueId());
                    continue;
                }
                handled.incrementAndGet();
                String stamp = m.getProperty("mqkitT");
                if (stamp == null || m.getProperty("mqkitWarm") != null) continue;
                int phase = Integer.parseInt(m.getProperty("mqkitPhase"));
                int slot = recorded[phase].getAndIncrement();
                if (slot < capacity) {
                    latencies[phase][slot] = (now - Double.parseDouble(stamp)) / 1000.0;
                    deliveries[phase][slot] = now / 1000.0 - m.getStoreTimestamp();
                } else {
                    overflow.incrementAndGet();
                }
            }
            if (handlerMs > 0) {
                try {
                    Thread.sleep(handlerMs);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
            return ConsumeConcurrentlyStatus.CONSUME_SUCCESS;
        });

        Runnable finish = () -> {
            synchronized (FINISH) {
                if (finished) return;
                finished = true;
                int[] counts = new int[phases];
                StringBuilder list = new StringBuilder();
                for (int i = 0; i < phases; i++) {
                    counts[i] = Math.min(capacity, recorded[i].get());
                    write(Paths.get(outDir, "java-" + i + ".f64").toString(), latencies[i], counts[i]);
                    write(Paths.get(outDir, "java-" + i + ".deliver.f64").toString(), deliveries[i], counts[i]);
                    list.append(i > 0 ? "," : "").append(counts[i]);
                }
                new BenchReport()
                    .put("client", "java-push")
                    .put("handled", handled.get())
                    .put("recorded", list.toString())
                    .put("overflow", overflow.get())
                    .put("peakRssKib", BenchReport.peakRssKib())
                    .print();
            }
        };
        Runtime.getRuntime().addShutdownHook(new Thread(finish));

        consumer.start();
        Thread counter = new Thread(() -> {
            while (true) {
                System.out.println("COUNT " + handled.get());
                try {
                    Thread.sleep(200);
                } catch (InterruptedException e) {
                    return;
                }
            }
        });
        counter.setDaemon(true);
        counter.start();
        // The parent stops this process with SIGTERM; the timeout only bounds a run whose parent went away.
        new CountDownLatch(1).await(timeoutSeconds, TimeUnit.SECONDS);
        finish.run();
        System.exit(1);
    }

    private static void write(String path, double[] values, int count) {
        ByteBuffer buffer = ByteBuffer.allocate(count * 8).order(ByteOrder.LITTLE_ENDIAN);
        for (int i = 0; i < count; i++) buffer.putDouble(values[i]);
        buffer.flip();
        try (FileChannel channel = FileChannel.open(Paths.get(path), StandardOpenOption.CREATE, StandardOpenOption.WRITE, StandardOpenOption.TRUNCATE_EXISTING)) {
            while (buffer.hasRemaining()) channel.write(buffer);
        } catch (IOException e) {
            System.err.println("cannot write " + path + ": " + e);
        }
    }
}
