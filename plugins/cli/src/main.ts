import { runCli } from './run-cli';

// Ctrl-C (or SIGTERM) ends `tail` and `top` cleanly: their connections close before the process exits.
const controller = new AbortController();
for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => controller.abort());
void runCli(process.argv.slice(2), { signal: controller.signal }).then((code) => {
  process.exitCode = code;
  // Connections are closed by then; nothing should keep the process alive, but a stray timer must not either.
  setTimeout(() => process.exit(code), 2_000).unref();
});
