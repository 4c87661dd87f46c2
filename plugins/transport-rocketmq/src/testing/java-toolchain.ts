import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { RocketMqHarnessError } from './rocketmq-harness.error';

/** The `java` and `mvn` commands the harness runs, and the Java feature version found. */
export interface JavaToolchain {
  readonly java: string;
  readonly javaVersion: number;
  readonly mvn: string;
}

const INSTALL_HINT =
  'install a Java 17+ JDK and Maven (Debian/Ubuntu: apt-get install openjdk-17-jdk-headless maven), ' +
  'or set MQKIT_ROCKETMQ_NAMESRV=host:port to use a running RocketMQ cluster instead';

/** The feature version in `java -version` output (`"17.0.15"` → 17, `"1.8.0_402"` → 8), or undefined. */
export function parseJavaVersion(output: string): number | undefined {
  const match = /version "(\d+)(?:\.(\d+))?/.exec(output);
  if (!match) return undefined;
  const major = Number(match[1]);
  return major === 1 && match[2] ? Number(match[2]) : major;
}

/**
 * Finds Java (JAVA_HOME first, then PATH) and Maven (PATH) and checks Java is 17 or newer: RocketMQ 5.x needs
 * Java 8+, and the harness is verified on 17. Throws {@link RocketMqHarnessError} naming what to install.
 */
export function findJavaToolchain(
  env: NodeJS.ProcessEnv = process.env,
  options: { maven?: boolean } = {},
): JavaToolchain {
  const java = env.JAVA_HOME ? join(env.JAVA_HOME, 'bin', 'java') : 'java';
  const probe = spawnSync(java, ['-version'], { encoding: 'utf8', timeout: 30_000, env });
  if (probe.error || probe.status !== 0) {
    throw new RocketMqHarnessError(
      'java-missing',
      `Java was not found (${java} -version failed): ${INSTALL_HINT}`,
      probe.error,
    );
  }
  const javaVersion = parseJavaVersion(`${probe.stderr}${probe.stdout}`);
  if (javaVersion === undefined || javaVersion < 17) {
    throw new RocketMqHarnessError(
      'java-missing',
      `Java ${javaVersion ?? '?'} found at ${java}, 17 or newer is needed: ${INSTALL_HINT}`,
    );
  }
  const mvn = 'mvn';
  if (options.maven !== false) {
    const mvnProbe = spawnSync(mvn, ['-v'], { encoding: 'utf8', timeout: 60_000, env });
    if (mvnProbe.error || mvnProbe.status !== 0) {
      throw new RocketMqHarnessError(
        'maven-missing',
        `Maven was not found (mvn -v failed): ${INSTALL_HINT}`,
        mvnProbe.error,
      );
    }
  }
  return { java, javaVersion, mvn };
}
