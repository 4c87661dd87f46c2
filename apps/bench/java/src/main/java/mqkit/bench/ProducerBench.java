package mqkit.bench;

import java.util.Arrays;
import java.util.concurrent.Semaphore;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.rocketmq.client.producer.DefaultMQProducer;
import org.apache.rocketmq.client.producer.SendCallback;
import org.apache.rocketmq.client.producer.SendResult;
import org.apache.rocketmq.client.producer.SendStatus;
import org.apache.rocketmq.common.message.Message;

/**
 * RocketMQ's own DefaultMQProducer, for `npm run bench -- produce`.
 * - async: send(msg, callback) with at most maxInFlight (default 1000) unanswered sends, held by a Semaphore;
 * - sync: one thread calling send(msg) and awaiting each result.
 * Every message is a new Message (the client writes properties such as UNIQ_KEY into it) with a `size`-byte body.
 *
 * Args: namesrvAddr topic count size async|sync [maxInFlight=1000 [steadyFrom steadyTo]]
 * Prints: RESULT {"client":"java-producer","mode","sent","failed","elapsedMs","totalMsgsPerSec","steadyMs",
 * "steadyMsgsPerSec","peakRssKib",...}: sent counts SEND_OK answers; totalMsgsPerSec = sent / first send to last
 * answer; steadyMsgsPerSec = (steadyTo - steadyFrom) / the time between the steadyFrom-th and the steadyTo-th
 * acknowledged send (the case's steadyMarks, so one function defines them for both clients).
 */
public final class ProducerBench {
    public static void main(String[] args) throws Exception {
        if (args.length < 5) {
            System.err.println("usage: ProducerBench namesrvAddr topic count size async|sync [maxInFlight]");
            System.exit(2);
        }
        String namesrv = args[0];
        String topic = args[1];
        int count = Integer.parseInt(args[2]);
        int size = Integer.parseInt(args[3]);
        String mode = args[4];
        int maxInFlight = args.length > 5 ? Integer.parseInt(args[5]) : 1000;
        long from = args.length > 7 ? Long.parseLong(args[6]) : 0;
        long to = args.length > 7 ? Long.parseLong(args[7]) : 0;
        if (!mode.equals("async") && !mode.equals("sync")) {
            System.err.println("mode must be async or sync");
            System.exit(2);
        }
        byte[] body = new byte[size];
        Arrays.fill(body, (byte) 'x');

        DefaultMQProducer producer = new DefaultMQProducer("mqkit_bench_producer_" + System.nanoTime());
        producer.setNamesrvAddr(namesrv);
        producer.start();

        AtomicLong sent = new AtomicLong();
        AtomicLong failed = new AtomicLong();
        AtomicReference<String> firstError = new AtomicReference<>();
        AtomicLong fromNanos = new AtomicLong();
        AtomicLong toNanos = new AtomicLong();
        // Callback threads count acknowledged sends; the one whose answer is the from-th or to-th stamps it.
        Runnable acknowledged = () -> {
            long n = sent.incrementAndGet();
            if (n == from) fromNanos.set(System.nanoTime());
            if (n == to) toNanos.set(System.nanoTime());
        };
        long startNanos = System.nanoTime();
        if (mode.equals("sync")) {
            for (int i = 0; i < count; i++) {
                try {
                    SendResult result = producer.send(new Message(topic, body));
                    if (result.getSendStatus() == SendStatus.SEND_OK) acknowledged.run();
                    else failed.incrementAndGet();
                } catch (Exception e) {
                    failed.incrementAndGet();
                    firstError.compareAndSet(null, e.toString());
                }
            }
        } else {
            Semaphore inFlight = new Semaphore(maxInFlight);
            for (int i = 0; i < count; i++) {
                inFlight.acquire();
                try {
                    producer.send(new Message(topic, body), new SendCallback() {
                        @Override
                        public void onSuccess(SendResult result) {
                            if (result.getSendStatus() == SendStatus.SEND_OK) acknowledged.run();
                            else failed.incrementAndGet();
                            inFlight.release();
                        }

                        @Override
                        public void onException(Throwable e) {
                            failed.incrementAndGet();
                            firstError.compareAndSet(null, e.toString());
                            inFlight.release();
                        }
                    });
                } catch (Exception e) {
                    failed.incrementAndGet();
                    firstError.compareAndSet(null, e.toString());
                    inFlight.release();
                }
            }
            inFlight.acquire(maxInFlight); // every callback has run
        }
        double elapsedMs = (System.nanoTime() - startNanos) / 1e6;
        double steadyMs = fromNanos.get() == 0 || toNanos.get() == 0 ? 0 : (toNanos.get() - fromNanos.get()) / 1e6;
        BenchReport report = new BenchReport()
            .put("client", "java-producer")
            .put("mode", mode)
            .put("count", count)
            .put("size", size)
            .put("maxInFlight", mode.equals("async") ? maxInFlight : 1)
            .put("sent", sent.get())
            .put("failed", failed.get())
            .put("elapsedMs", Math.round(elapsedMs))
            .put("totalMsgsPerSec", Math.round(sent.get() * 1000.0 / elapsedMs))
            .put("steadyMs", steadyMs > 0 ? Math.round(steadyMs) : -1)
            .put("steadyMsgsPerSec", steadyMs > 0 ? Math.round((to - from) * 1000.0 / steadyMs) : 0)
            .put("peakRssKib", BenchReport.peakRssKib());
        if (firstError.get() != null) report.put("firstError", firstError.get());
        report.print();
        producer.shutdown();
        System.exit(failed.get() == 0 ? 0 : 1);
    }
}
