package mqkit.bench;

import java.nio.charset.StandardCharsets;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.rocketmq.client.consumer.DefaultMQPushConsumer;
import org.apache.rocketmq.client.consumer.listener.ConsumeConcurrentlyStatus;
import org.apache.rocketmq.client.consumer.listener.MessageListenerConcurrently;
import org.apache.rocketmq.client.producer.DefaultMQProducer;
import org.apache.rocketmq.client.producer.SendResult;
import org.apache.rocketmq.client.utils.MessageUtil;
import org.apache.rocketmq.common.consumer.ConsumeFromWhere;
import org.apache.rocketmq.common.message.Message;
import org.apache.rocketmq.common.message.MessageConst;
import org.apache.rocketmq.common.message.MessageExt;

/**
 * RocketMQ's own replier for the request-reply interop test, as its request-reply example does it: a push consumer
 * answers each request with MessageUtil.createReplyMessage and a sync send of a DefaultMQProducer. The reply body
 * is "java-reply:<request body>". Prints "READY {}" once started, "REPLIED {correlationId,brokerName,status}" per
 * reply and "REPLY_FAILED {correlationId,error}" when a reply could not be sent; exits 0 after `count` replies,
 * 1 at the timeout.
 *
 * Args: namesrvAddr topic group count [timeoutSeconds=120]
 */
public final class InteropReplier {
    public static void main(String[] args) throws Exception {
        if (args.length < 4) {
            System.err.println("usage: InteropReplier namesrvAddr topic group count [timeoutSeconds]");
            System.exit(2);
        }
        long expected = Long.parseLong(args[3]);
        long timeoutSeconds = args.length > 4 ? Long.parseLong(args[4]) : 120;
        AtomicLong replied = new AtomicLong();
        CountDownLatch done = new CountDownLatch(1);
        DefaultMQProducer producer = new DefaultMQProducer(args[2] + "-replies");
        producer.setNamesrvAddr(args[0]);
        producer.start();
        DefaultMQPushConsumer consumer = new DefaultMQPushConsumer(args[2]);
        consumer.setNamesrvAddr(args[0]);
        consumer.setConsumeFromWhere(ConsumeFromWhere.CONSUME_FROM_FIRST_OFFSET);
        consumer.subscribe(args[1], "*");
        consumer.registerMessageListener((MessageListenerConcurrently) (messages, context) -> {
            for (MessageExt request : messages) {
                String correlationId = request.getProperty(MessageConst.PROPERTY_CORRELATION_ID);
                try {
                    byte[] body = ("java-reply:" + new String(request.getBody(), StandardCharsets.UTF_8)).getBytes(StandardCharsets.UTF_8);
                    Message reply = MessageUtil.createReplyMessage(request, body);
                    SendResult result = producer.send(reply, 3_000);
                    System.out.println("REPLIED {\"correlationId\":" + JsonText.quote(correlationId)
                        + ",\"requestBroker\":" + JsonText.quote(request.getBrokerName())
                        + ",\"status\":" + JsonText.quote(result.getSendStatus().name()) + "}");
                    if (replied.incrementAndGet() >= expected) done.countDown();
                } catch (Exception e) {
                    System.out.println("REPLY_FAILED {\"correlationId\":" + JsonText.quote(correlationId) + ",\"error\":" + JsonText.quote(e.toString()) + "}");
                }
            }
            return ConsumeConcurrentlyStatus.CONSUME_SUCCESS;
        });
        consumer.start();
        System.out.println("READY {}");
        System.out.flush();
        boolean finished = done.await(timeoutSeconds, TimeUnit.SECONDS);
        new BenchReport().put("client", "java-interop-replier").put("ok", finished).put("replied", replied.get()).print();
        consumer.shutdown();
        producer.shutdown();
        System.exit(finished ? 0 : 1);
    }
}
