package mqkit.bench;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.apache.rocketmq.client.producer.DefaultMQProducer;
import org.apache.rocketmq.client.producer.RequestCallback;
import org.apache.rocketmq.common.message.Message;
import org.apache.rocketmq.common.message.MessageConst;
import org.apache.rocketmq.common.message.MessageQueue;

/**
 * RocketMQ's own requester for the request-reply interop test: DefaultMQProducer.request with `count` requests whose
 * bodies are "<prefix>-<i>", request i to queue i mod n of the topic (so that requests land on every broker).
 * Prints "REPLY {i,body,correlationId,queue}" per reply and "FAILED {i,error}" per failure, then RESULT; exits 1
 * when any request failed.
 *
 * Mode `callback` uses request(msg, selector, arg, callback, timeout). Mode `sync` uses request(msg, selector, arg,
 * timeout), which clients 5.3.1-5.3.3 break: their send callback wakes the waiting thread when the broker stores
 * the request, so it throws RequestTimeoutException before any reply can come (apache/rocketmq#9319, fixed on
 * develop by #9608).
 *
 * Args: namesrvAddr topic producerGroup count prefix timeoutMs [mode=callback]
 */
public final class InteropRequester {
    public static void main(String[] args) throws Exception {
        if (args.length < 6) {
            System.err.println("usage: InteropRequester namesrvAddr topic producerGroup count prefix timeoutMs [callback|sync]");
            System.exit(2);
        }
        DefaultMQProducer producer = new DefaultMQProducer(args[2]);
        producer.setNamesrvAddr(args[0]);
        producer.start();
        int count = Integer.parseInt(args[3]);
        long timeoutMs = Long.parseLong(args[5]);
        boolean sync = args.length > 6 && args[6].equals("sync");
        int failures = 0;
        for (int i = 0; i < count; i++) {
            Message request = new Message(args[1], (args[4] + "-" + i).getBytes(StandardCharsets.UTF_8));
            final int index = i;
            try {
                Message reply = sync
                    ? producer.request(request, (List<MessageQueue> mqs, Message m, Object arg) -> mqs.get(index % mqs.size()), null, timeoutMs)
                    : callback(producer, request, index, timeoutMs);
                print(i, reply);
            } catch (Exception e) {
                failures++;
                System.out.println("FAILED {\"i\":" + i + ",\"error\":" + JsonText.quote(e.toString()) + "}");
            }
        }
        new BenchReport().put("client", "java-interop-requester").put("failures", failures).print();
        producer.shutdown();
        System.exit(failures == 0 ? 0 : 1);
    }

    private static Message callback(DefaultMQProducer producer, Message request, int index, long timeoutMs) throws Exception {
        CompletableFuture<Message> reply = new CompletableFuture<>();
        producer.request(request, (List<MessageQueue> mqs, Message m, Object arg) -> mqs.get(index % mqs.size()), null, new RequestCallback() {
            @Override
            public void onSuccess(Message message) {
                reply.complete(message);
            }

            @Override
            public void onException(Throwable e) {
                reply.completeExceptionally(e);
            }
        }, timeoutMs);
        // The scanner declares a timeout up to a second late; wait a little longer than that.
        return reply.get(timeoutMs + 5_000, TimeUnit.MILLISECONDS);
    }

    private static void print(int i, Message reply) {
        System.out.println("REPLY {\"i\":" + i
            + ",\"body\":" + JsonText.quote(new String(reply.getBody(), StandardCharsets.UTF_8))
            + ",\"correlationId\":" + JsonText.quote(reply.getProperty(MessageConst.PROPERTY_CORRELATION_ID))
            + ",\"topic\":" + JsonText.quote(reply.getTopic()) + "}");
    }
}
