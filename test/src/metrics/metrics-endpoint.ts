import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Registry } from 'prom-client';

/** A running /metrics endpoint. */
export interface MetricsEndpoint {
  readonly url: string;
  close(): Promise<void>;
}

/**
 * What an application serves to Prometheus: GET /metrics answers `registry.metrics()` with the registry's content
 * type, on a free port of 127.0.0.1. A failing collect answers 500 with its message (Prometheus marks the target down).
 */
export async function serveMetrics(registry: Registry): Promise<MetricsEndpoint> {
  const server = createServer((req, res) => {
    if (req.method !== 'GET' || req.url !== '/metrics') {
      res.writeHead(404).end();
      return;
    }
    registry.metrics().then(
      (text) => res.writeHead(200, { 'content-type': registry.contentType }).end(text),
      (error: unknown) => res.writeHead(500, { 'content-type': 'text/plain' }).end(String(error)),
    );
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/metrics`,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.close((error) => (error ? reject(error) : resolve()));
        // fetch keeps its connection alive; close() alone would wait for the keep-alive timeout.
        server.closeAllConnections();
      }),
  };
}
