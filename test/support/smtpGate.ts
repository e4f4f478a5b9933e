import { connect, createServer, type AddressInfo, type Server, type Socket } from 'node:net';

/**
 * A loopback TCP proxy in front of the test SMTP server that can keep the server's answer to a
 * message from its sender: with `holdReplies` on, once a connection has passed on the end of a
 * message's data (`<CRLF>.<CRLF>`), what the server answers is kept back until `release()`. The
 * server has the mail (it is delivered); the sender is still waiting to hear so: a send in flight
 * at the moment the mail went out.
 */
export interface SmtpGate {
  /** `smtp://127.0.0.1:<port>`, for SMTP_URL. */
  url: string;
  holdReplies: boolean;
  /** Lets every held answer through. */
  release(): void;
  close(): Promise<void>;
}

const END_OF_DATA = '\r\n.\r\n';

export async function startSmtpGate(serverPort: number): Promise<SmtpGate> {
  const sockets = new Set<Socket>();
  const releases = new Set<() => void>();
  const gate: SmtpGate = {
    url: '',
    holdReplies: false,
    release: () => {
      for (const release of [...releases]) release();
    },
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
  const track = (socket: Socket) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
    socket.on('error', () => socket.destroy());
  };
  const server: Server = createServer((client) => {
    const upstream = connect(serverPort, '127.0.0.1');
    track(client);
    track(upstream);
    client.once('close', () => upstream.destroy());
    upstream.once('close', () => client.destroy());
    let tail = '';
    let holding = false;
    const held: Buffer[] = [];
    const release = () => {
      holding = false;
      releases.delete(release);
      for (const chunk of held.splice(0)) client.write(chunk);
    };
    client.on('data', (chunk: Buffer) => {
      // The last bytes of the previous chunk too: the end of the data may arrive split.
      const text = tail + chunk.toString('latin1');
      tail = text.slice(-(END_OF_DATA.length - 1));
      if (gate.holdReplies && text.includes(END_OF_DATA)) {
        holding = true;
        releases.add(release);
      }
      upstream.write(chunk);
    });
    upstream.on('data', (chunk: Buffer) => {
      if (holding) held.push(chunk);
      else client.write(chunk);
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  gate.url = `smtp://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return gate;
}
