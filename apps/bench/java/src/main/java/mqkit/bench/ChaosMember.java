package mqkit.bench;

import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.rocketmq.client.consumer.DefaultMQPushConsumer;
import org.apache.rocketmq.client.consumer.listener.ConsumeConcurrentlyStatus;
import org.apache.rocketmq.client.consumer.listener.ConsumeOrderlyStatus;
import org.apache.rocketmq.client.consumer.listener.MessageListenerConcurrently;
import org.apache.rocketmq.client.consumer.listener.MessageListenerOrderly;
import org.apache.rocketmq.common.consumer.ConsumeFromWhere;
import org.apache.rocketmq.common.message.MessageExt;

/**
 * One member of a consumer group in `npm run bench -- chaos`: RocketMQ's own DefaultMQPushConsumer with its
 * defaults, except the heartbeat interval the scenario sets, with a MessageListenerConcurrently or (mode ORDERLY) a
 * MessageListenerOrderly. Every delivery is printed at once (autoflush), as
 * "D <seq> <epoch ms> <broker>/<queue> <queue offset>", so a SIGKILL loses no record of what was handled. Prints
 * "READY" once started. Runs until killed; SIGTERM shuts it down (its offsets persisted, as a clean stop does).
 *
 * Args: namesrvAddr topic group heartbeatMs [CONCURRENTLY|ORDERLY]
 */
public final class ChaosMember {
    private static final Pattern SEQ = Pattern.compile("\"seq\"\\s*:\\s*(\\d+)");

    public static void main(String[] args) throws Exception {
        if (args.length < 4) {
            System.err.println("usage: ChaosMember namesrvAddr topic group heartbeatMs [CONCURRENTLY|ORDERLY]");
            System.exit(2);
        }
        boolean orderly = args.length > 4 && "ORDERLY".equals(args[4]);
        PrintStream out = new PrintStream(System.out, true, StandardCharsets.UTF_8);
        DefaultMQPushConsumer consumer = new DefaultMQPushConsumer(args[2]);
        consumer.setNamesrvAddr(args[0]);
        consumer.setHeartbeatBrokerInterval(Integer.parseInt(args[3]));
        consumer.setConsumeFromWhere(ConsumeFromWhere.CONSUME_FROM_FIRST_OFFSET);
        consumer.subscribe(args[1], "*");
        if (orderly) {
            consumer.registerMessageListener((MessageListenerOrderly) (messages, context) -> {
                report(out, messages);
                return ConsumeOrderlyStatus.SUCCESS;
            });
        } else {
            consumer.registerMessageListener((MessageListenerConcurrently) (messages, context) -> {
                report(out, messages);
                return ConsumeConcurrentlyStatus.CONSUME_SUCCESS;
            });
        }
        Runtime.getRuntime().addShutdownHook(new Thread(consumer::shutdown));
        consumer.start();
        out.println("READY");
        Thread.currentThread().join();
    }

    private static void report(PrintStream out, List<MessageExt> messages) {
        for (MessageExt message : messages) {
            Matcher m = SEQ.matcher(new String(message.getBody(), StandardCharsets.UTF_8));
            if (m.find()) {
                out.println("D " + m.group(1) + " " + System.currentTimeMillis() + " " + message.getBrokerName() + "/"
                        + message.getQueueId() + " " + message.getQueueOffset());
            }
        }
    }
}
