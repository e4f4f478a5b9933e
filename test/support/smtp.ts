import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { eventually } from './eventually';

export interface ReceivedMail {
  /** The envelope's sender and recipients. */
  from: string;
  to: string[];
  /** The From and To headers, parsed: `{name, address}` each. */
  headerFrom: { name: string; address: string }[];
  headerTo: { name: string; address: string }[];
  subject: string;
  text: string;
  html: string;
}

export interface TestSmtpServer {
  port: number;
  /** `smtp://127.0.0.1:<port>`, for SMTP_URL. */
  url: string;
  /** Every message received so far, oldest first. */
  received: ReceivedMail[];
  /** The next message to `to` (any case) not returned before; fails after a bounded wait. */
  nextMailTo(to: string): Promise<ReceivedMail>;
  /** Kills the process: the server is down, as if the mail host had gone away. */
  stop(): Promise<void>;
}

/** Starts test/support/smtpServer.mjs (the smtp-server package) as a child process on a free port. */
export async function startSmtpServer(port = 0): Promise<TestSmtpServer> {
  const child: ChildProcessWithoutNullStreams = spawn(process.execPath, [join(__dirname, 'smtpServer.mjs')], {
    env: { PATH: process.env.PATH ?? '', SMTP_PORT: String(port) },
  });
  let stderr = '';
  child.stderr.on('data', (chunk) => (stderr += chunk));
  const received: ReceivedMail[] = [];
  const taken = new Set<ReceivedMail>();
  let listening: number | undefined;
  createInterface({ input: child.stdout }).on('line', (line) => {
    const message = JSON.parse(line) as { listening?: number } & ReceivedMail;
    if (message.listening !== undefined) listening = message.listening;
    else received.push(message);
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const boundPort = await eventually(`the SMTP server to listen (${stderr})`, () => {
    if (child.exitCode !== null) throw new Error(`the SMTP server exited: ${stderr}`);
    return listening;
  });
  return {
    port: boundPort,
    url: `smtp://127.0.0.1:${boundPort}`,
    received,
    nextMailTo(to) {
      return eventually(`a mail to ${to}`, () => {
        const mail = received.find((m) => !taken.has(m) && m.to.some((address) => address.toLowerCase() === to.toLowerCase()));
        if (mail) taken.add(mail);
        return mail;
      });
    },
    async stop() {
      if (child.exitCode === null) child.kill('SIGKILL');
      await exited;
    },
  };
}
