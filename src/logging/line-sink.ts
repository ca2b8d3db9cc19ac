// Where the log destinations write their batches (log-destinations.ts), and what the terminal formatter wraps
// (pretty-log.ts): a synchronous destination, given text or its UTF-8 bytes.
export interface LineSink {
  write(chunk: string | Uint8Array): unknown;
}
