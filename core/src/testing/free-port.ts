import { createServer } from 'node:net';

/**
 * A TCP port on 127.0.0.1 that was free a moment ago (the kernel's pick for port 0), for a server a test starts
 * in another process. Another process may take it before that server binds it: retry with a new port when it
 * fails to start. A server of the test's own process should listen on port 0 instead.
 */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => (port > 0 ? resolve(port) : reject(new Error('the kernel did not assign a port'))));
    });
  });
}
