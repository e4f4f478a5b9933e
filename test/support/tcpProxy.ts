import { connect, createServer, type AddressInfo, type Server, type Socket } from 'node:net';

export interface TcpProxy {
  port: number;
  /** Stops listening and drops every connection: the far side is unreachable. */
  cut(): Promise<void>;
  /** Listens again on the same port. */
  restore(): Promise<void>;
  close(): Promise<void>;
}

/**
 * A loopback TCP proxy to `host:port` that a test can cut and restore, to take a dependency away
 * without stopping it. `record` hears every byte a client sends toward the far side.
 */
export async function startTcpProxy(host: string, port: number, { record }: { record?: (chunk: Buffer) => void } = {}): Promise<TcpProxy> {
  const sockets = new Set<Socket>();
  const track = (socket: Socket) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
    socket.on('error', () => socket.destroy());
  };
  let server: Server | undefined;
  const listen = (onPort: number) =>
    new Promise<number>((resolve, reject) => {
      const s = createServer((client) => {
        const upstream = connect(port, host);
        track(client);
        track(upstream);
        if (record) client.on('data', (chunk: Buffer) => record(chunk));
        client.pipe(upstream).pipe(client);
        client.once('close', () => upstream.destroy());
        upstream.once('close', () => client.destroy());
      });
      s.once('error', reject);
      s.listen(onPort, '127.0.0.1', () => {
        server = s;
        resolve((s.address() as AddressInfo).port);
      });
    });
  const stop = async () => {
    const s = server;
    server = undefined;
    for (const socket of sockets) socket.destroy();
    if (s) await new Promise<void>((resolve) => s.close(() => resolve()));
  };
  const boundPort = await listen(0);
  return {
    port: boundPort,
    cut: stop,
    restore: async () => {
      await listen(boundPort);
    },
    close: stop,
  };
}
