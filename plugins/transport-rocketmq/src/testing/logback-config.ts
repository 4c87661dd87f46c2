/**
 * One logback file for every harness process. RocketMQ's jars each embed a config (rmq.broker.logback.xml,
 * rmq.namesrv.logback.xml) but with both jars on one classpath the name server would pick the broker's (the
 * search order prefers it), and both write ~20 files of up to 100 MB under ${user.home}/logs. This one writes a
 * single capped file, `${user.home}/logs/rocketmq.log`, and is chosen with -Drmq.logback.configurationFile.
 * Class names are logback's own: RocketMQ's shaded logback maps them. Having no deprecated elements also keeps
 * logback's status dump off stdout.
 */
export function renderLogbackConfig(): string {
  // These repeat every second on an idle test broker (stats and watermark lines; pop revive warns 8 times a
  // second that the timer wheel is off) and would drown what matters when a test fails.
  const quiet = [
    'RocketmqStats',
    'RocketmqWaterMark',
    'RocketmqCommercial',
    'RocketmqTraffic',
    'RocketmqColdCtr',
    // The proxy's thread-pool queue sizes, every 3 s (printThreadPoolStatusInMillis).
    'RocketmqProxyWatermark',
  ];
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    '<configuration>',
    '  <appender name="FILE" class="ch.qos.logback.core.rolling.RollingFileAppender">',
    // biome-ignore lint/suspicious/noTemplateCurlyInString: ${user.home} is logback's own variable, substituted by the JVM
    '    <file>${user.home}/logs/rocketmq.log</file>',
    '    <rollingPolicy class="ch.qos.logback.core.rolling.FixedWindowRollingPolicy">',
    // biome-ignore lint/suspicious/noTemplateCurlyInString: ${user.home} is logback's own variable, substituted by the JVM
    '      <fileNamePattern>${user.home}/logs/rocketmq.%i.log</fileNamePattern>',
    '      <minIndex>1</minIndex>',
    '      <maxIndex>1</maxIndex>',
    '    </rollingPolicy>',
    '    <triggeringPolicy class="ch.qos.logback.core.rolling.SizeBasedTriggeringPolicy">',
    '      <maxFileSize>20MB</maxFileSize>',
    '    </triggeringPolicy>',
    '    <encoder><pattern>%d{HH:mm:ss.SSS} %p %c{0} %t - %m%n</pattern></encoder>',
    '  </appender>',
    ...quiet.map((name) => `  <logger name="${name}" level="WARN"/>`),
    '  <logger name="RocketmqPop" level="ERROR"/>',
    '  <root level="INFO"><appender-ref ref="FILE"/></root>',
    '</configuration>',
    '',
  ].join('\n');
}
