// A connection of its own for queries, whose replies can be of any size: each reply is read by RespReader within
// the bounds its command was sent with, and the connection is dropped the moment a reply passes them. (node-redis,
// used for every other command, reads a whole reply before anyone can look at its size.)
import net from 'node:net';
import tls from 'node:tls';
import { ErrorReply } from '@redis/client';
import { encodeCommand, encodeCommands, RespReader, type ReplyBounds, type RespValue } from './resp-reader.js';

export interface QueryConnectionOptions {
  /** The address dialled (already resolved and checked by the caller). */
  address: string;
  /** A Unix socket dialled instead of `address` and `port` (a throw-away server of this process, dump-origin.ts). */
  path?: string;
  port: number;
  tls: boolean;
  ca?: string;
  /** SNI and certificate name, when the caller named a host rather than an address. */
  servername?: string;
  username: string;
  password: string;
  connectTimeoutMs: number;
  /** A socket silent this long is dropped (the check connections of token creation). */
  socketTimeoutMs?: number;
  /** Called once when the connection is lost or closed, so its pool forgets it. */
  onClose?: () => void;
}

/** The bound of a reply whose command named none (EXISTS, name lookups): generous, never unlimited. */
export const DEFAULT_REPLY_BOUNDS: ReplyBounds = { maxBytes: 64 * 1024 * 1024 };

/** The connection failed or was dropped: every command still waiting on it fails with this. */
export class QueryConnectionLostError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'QueryConnectionLostError';
  }
}

interface Waiting {
  bounds: ReplyBounds;
  resolve: (value: RespValue) => void;
  reject: (error: unknown) => void;
}

export interface QueryCommand {
  args: (string | Buffer)[];
  bounds?: ReplyBounds;
}

export class QueryConnection {
  private readonly waiting: Waiting[] = [];
  private failure: Error | undefined;
  private paused = false;
  /** Told of every chunk that arrives while a batch that asked for it (`send(…, onData)`) is outstanding. */
  private onData: (() => void) | undefined;
  private readonly reader = new RespReader(
    () => this.waiting[0]?.bounds ?? DEFAULT_REPLY_BOUNDS,
    (value) => this.settle(value),
  );

  private constructor(
    private readonly socket: net.Socket,
    private readonly onClose: () => void,
  ) {
    socket.on('data', (chunk: Buffer) => {
      try {
        this.onData?.();
        this.reader.feed(chunk);
        // Backpressure: a reader of streamed rows that holds enough stops the socket (and so the database's sending)
        // until it has taken them, so what is held is a window of the reply, not the reply.
        const sink = this.reader.streaming;
        if (sink?.full && !this.paused) {
          this.paused = true;
          socket.pause();
          sink.whenDrained(() => {
            this.paused = false;
            if (this.failure === undefined) socket.resume();
          });
        }
      } catch (error) {
        // The reply at the head is the one past its bound (or broken): it gets the reason, the rest a lost connection.
        this.waiting.shift()?.reject(error);
        this.destroy(new QueryConnectionLostError('the connection was dropped', { cause: error }));
      }
    });
    socket.on('error', (error) => this.fail(new QueryConnectionLostError(error.message, { cause: error })));
    socket.on('close', () => this.fail(new QueryConnectionLostError('the connection closed')));
  }

  /** Connects and authenticates. Rejects with the server's ErrorReply when it refuses the credentials. */
  static async open(options: QueryConnectionOptions): Promise<QueryConnection> {
    const socket = await connectSocket(options);
    const connection = new QueryConnection(socket, options.onClose ?? (() => undefined));
    // As node-redis does on the pool's other connections: AUTH even with an empty password, which a `nopass` user
    // accepts and a user with a password refuses, so both kinds of connection act as the same user.
    if (options.username !== '' || options.password !== '') {
      try {
        await connection.send([{ args: ['AUTH', options.username, options.password] }]).then(([auth]) => {
          if (auth!.status === 'rejected') throw auth!.reason;
        });
      } catch (error) {
        connection.destroy();
        throw error;
      }
    }
    return connection;
  }

  get open(): boolean {
    return this.failure === undefined;
  }

  /**
   * Sends the commands in one write; each settles on its own (an error reply is that command's rejection).
   * `onData` hears of each chunk of their replies as it arrives (the pool's deadline of a streamed reply).
   */
  async send(commands: QueryCommand[], onData?: () => void): Promise<PromiseSettledResult<RespValue>[]> {
    if (this.failure) throw this.failure;
    const replies = commands.map(
      ({ bounds = DEFAULT_REPLY_BOUNDS }) =>
        new Promise<RespValue>((resolve, reject) => this.waiting.push({ bounds, resolve, reject })),
    );
    this.onData = onData;
    this.socket.write(encodeCommands(commands.map(({ args }) => args)));
    try {
      return await Promise.allSettled(replies);
    } finally {
      if (this.onData === onData) this.onData = undefined;
    }
  }

  /**
   * Sends one command whose last argument is `size` bytes read from `body`, written to the socket as they are read
   * (waiting for the socket to drain), so a large value (a graph's DUMP) is never held whole. A body of another
   * length drops the connection: the server would read the next command's bytes as this one's. `onChunk` hears of
   * each chunk written (the pool's deadline of a streamed command).
   */
  async sendStreamed(
    args: readonly (string | Buffer)[],
    body: AsyncIterable<Buffer | string>,
    size: number,
    onChunk?: () => void,
  ): Promise<PromiseSettledResult<RespValue>> {
    if (this.failure) throw this.failure;
    const reply = new Promise<RespValue>((resolve, reject) =>
      this.waiting.push({ bounds: DEFAULT_REPLY_BOUNDS, resolve, reject }),
    );
    // Settled by the write's failure too; the reply's own outcome is what is returned.
    const outcome = Promise.allSettled([reply]);
    // A command with an empty last argument ends in `$0\r\n\r\n`; that length is replaced by the body's.
    const head = encodeCommand([...args, '']);
    this.socket.write(Buffer.concat([head.subarray(0, head.length - 6), Buffer.from(`$${size}\r\n`, 'latin1')]));
    let written = 0;
    try {
      for await (const chunk of body) {
        // Lost while the chunk before was written (a dropped connection, the pool's deadline).
        const lost = this.lostReason();
        if (lost) throw lost;
        const bytes = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
        written += bytes.length;
        if (written > size) throw new QueryConnectionLostError(`the value is longer than the ${size} bytes announced`);
        onChunk?.();
        if (!this.socket.write(bytes)) await drainedOrClosed(this.socket);
      }
      if (written !== size) throw new QueryConnectionLostError(`the value ended after ${written} of ${size} bytes`);
      this.socket.write('\r\n');
    } catch (error) {
      this.destroy(error instanceof Error ? error : new QueryConnectionLostError(String(error)));
      throw error;
    }
    return (await outcome)[0];
  }

  private lostReason(): Error | undefined {
    return this.failure;
  }

  /** Drops the connection; what still waits fails with `reason`. */
  destroy(reason: Error = new QueryConnectionLostError('the connection was closed')): void {
    this.fail(reason);
    this.socket.destroy();
  }

  private settle(value: RespValue): void {
    const head = this.waiting.shift();
    if (!head) return this.destroy(new QueryConnectionLostError('the database sent a reply nobody asked for'));
    if (value instanceof ErrorReply) head.reject(value);
    else head.resolve(value);
  }

  private fail(reason: Error): void {
    if (this.failure === undefined) {
      this.failure = reason;
      this.onClose();
    }
    for (const waiting of this.waiting.splice(0)) waiting.reject(this.failure);
  }
}

/** Resolves when the socket can take more, or has closed (then the connection's failure says why). */
function drainedOrClosed(socket: net.Socket): Promise<void> {
  return new Promise((resolve) => {
    if (socket.destroyed) return resolve();
    const done = () => {
      socket.off('drain', done);
      socket.off('close', done);
      resolve();
    };
    socket.once('drain', done);
    socket.once('close', done);
  });
}

function connectSocket(options: QueryConnectionOptions): Promise<net.Socket> {
  const { address, port, ca, servername, connectTimeoutMs, socketTimeoutMs } = options;
  return new Promise((resolve, reject) => {
    const socket = options.tls
      ? tls.connect({ host: address, port, ca, ...(servername ? { servername } : {}) })
      : options.path !== undefined
        ? net.connect({ path: options.path })
        : net.connect({ host: address, port });
    const timer = setTimeout(
      () => socket.destroy(new QueryConnectionLostError(`no connection within ${connectTimeoutMs} ms`)),
      connectTimeoutMs,
    );
    const failed = (error: Error) => {
      clearTimeout(timer);
      reject(
        error instanceof QueryConnectionLostError
          ? error
          : new QueryConnectionLostError(error.message, { cause: error }),
      );
    };
    socket.once('error', failed);
    socket.once(options.tls ? 'secureConnect' : 'connect', () => {
      clearTimeout(timer);
      socket.off('error', failed);
      socket.setNoDelay(true);
      socket.setKeepAlive(true, 5000);
      if (socketTimeoutMs !== undefined) {
        socket.setTimeout(socketTimeoutMs, () =>
          socket.destroy(new QueryConnectionLostError(`the database was silent for ${socketTimeoutMs} ms`)),
        );
      }
      resolve(socket);
    });
  });
}
