/** Types for build-java-bench.cjs, so bench cases in TypeScript can import it. */
export interface JavaBenchBuild {
  /** `<jar>:<lib>/*`, for `java -cp`. */
  readonly classpath: string;
  readonly buildDir: string;
}

/** Builds the Java bench programs with Maven into the mqkit cache (once per source version). */
export function ensureJavaBench(options?: { cacheDir?: string; log?: (line: string) => void }): Promise<JavaBenchBuild>;

/** Parses the last `RESULT {…}` line of a bench program's stdout. */
export function parseBenchResult(stdout: string): Record<string, unknown>;

/** The mqkit cache root ($MQKIT_CACHE_DIR, $XDG_CACHE_HOME/mqkit or ~/.cache/mqkit). */
export function cacheRoot(env?: NodeJS.ProcessEnv): string;
