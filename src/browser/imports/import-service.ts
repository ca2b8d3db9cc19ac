// Uploaded Cypher batches: staging the file (streamed to disk) and running it statement by statement into a graph, (one file because staging and running share the batch's one query slot and its bounds)
// in order, stopping at the first failure and naming its line. Each statement is bounded like a query (timeout,
// rows, bytes) and passes the same LOAD CSV guard; the whole batch holds one of the caller's query slots.
// Uploaded CSV files are loaded the same way: read here, a thousand rows at a time, each batch one parameterised
// `UNWIND $rows AS row <the caller's Cypher>`, so the database never fetches a file or a URL.
import { createInterface } from 'node:readline';
import type { Readable } from 'node:stream';
import { isPortError } from '../../platform/port-errors.js';
import {
  StagingSpaceError,
  UploadTooLargeError,
  type StagedFile,
  type UploadStore,
} from '../../platform/uploads/upload-store.js';
import { isReplyError } from '../../platform/falkordb/database-errors.js';
import { originGraphName, type ScratchServerOptions } from '../../platform/falkordb/dump-origin.js';
import { textRowsLiteral, withParameterText } from '../../platform/falkordb/cypher.js';
import { ConcurrencyLimit } from '../../lib/concurrency-limit.js';
import { BadRequestError, ConflictError, HttpError, NotFoundError } from '../../http/http-errors.js';
import { databaseFor, type BrowserContext, type Principal } from '../context.js';
import { crossSlotMessage } from '../graphs/graph-service.js';
import { loadCsvViolation } from '../graphs/load-csv-guard.js';
import type { QueryService } from '../graphs/query-service.js';
import { createBatchSplitter, createModeDetector, type BatchStatement } from './cypher-batch.js';
import { createCsvReader, CsvFormatError, type CsvRecord } from './csv-records.js';
import { createRestoreAdmission, type RestoreRefusal } from './restore-admission.js';

/** Staged files a batch can run: Cypher text, one statement per line or `;`-separated. */
const BATCH_EXTENSIONS = ['.cypher', '.txt'];
/** A graph's export (GET /api/graph/{graph}/export), restored into a new graph. */
const DUMP_EXTENSION = '.dump';
/** Rows for POST /api/graph/{graph}/load-csv. */
const CSV_EXTENSION = '.csv';
const STAGED_EXTENSIONS = [...BATCH_EXTENSIONS, DUMP_EXTENSION, CSV_EXTENSION];
/** One CSV batch: at most this many rows, and about this many characters of field text. */
const CSV_BATCH_ROWS = 1000;
const CSV_BATCH_CHARS = 512 * 1024;
const CSV_BOUNDS = { fieldCharsMax: 1024 * 1024, fieldsMax: 4096 };
/** Throw-away FalkorDB processes reading exports' origin names at once, server-wide. */
const SCRATCH_SERVERS_MAX = 2;
/** How long a restore waits for FalkorDB to let go of a graph deleted under the dump's origin name before a 409. */
const DELETION_SETTLE_MS = 5000;
/** How often a running batch reports its progress. */
const PROGRESS_EVERY_STATEMENTS = 1000;
const PROGRESS_EVERY_MS = 250;

/** A statement of the batch failed: the batch stopped there (422, the line in the message). */
export class BatchStatementError extends HttpError {
  constructor(
    readonly line: number,
    readonly executed: number,
    reason: string,
  ) {
    super(422, `Statement at line ${line} failed after ${executed} executed: ${reason}`);
    this.name = 'BatchStatementError';
  }
}

async function* linesOf(content: Readable): AsyncGenerator<string> {
  const lines = createInterface({ input: content, crlfDelay: Infinity });
  try {
    for await (const line of lines) yield line;
  } finally {
    lines.close();
    content.destroy();
  }
}

/** Stops an import at its next statement when the client goes away or IMPORT_TIMEOUT_MS has passed. */
function importSignal(limitMs: number, client: AbortSignal | undefined): { signal: AbortSignal; stopped: () => never } {
  const deadline = AbortSignal.timeout(limitMs);
  const signal = client ? AbortSignal.any([client, deadline]) : deadline;
  return {
    signal,
    stopped(): never {
      if (deadline.aborted)
        throw new HttpError(
          503,
          `The import was stopped after ${limitMs} ms (IMPORT_TIMEOUT_MS); what ran stays`,
          {},
          undefined,
          'deadline_exceeded',
        );
      throw new HttpError(409, 'The import was stopped: its client went away');
    },
  };
}

export interface BatchProgress {
  executed: number;
}

/** A batch of CSV rows failed: the load stopped there (422; the rows before it stay loaded). */
export class CsvRowsError extends HttpError {
  constructor(
    readonly line: number,
    readonly loaded: number,
    reason: string,
  ) {
    super(422, `Rows from line ${line} failed after ${loaded} loaded: ${reason}`);
    this.name = 'CsvRowsError';
  }
}

export interface LoadCsvRequest {
  /** The staged file's id (POST /api/upload). */
  key: string;
  /** Cypher run for every row, which it names `row` (a map by header with headers, else a list). */
  body: string;
  withHeaders: boolean;
}

/** A row as LOAD CSV gives it: every value a string, keyed by the header when there is one. */
/** The record's fields, checked against the header when there is one (each row then becomes a map). */
function rowFields(record: CsvRecord, header: string[] | undefined): string[] {
  if (header && record.fields.length !== header.length)
    throw new CsvFormatError(record.line, `${record.fields.length} fields where the header has ${header.length}`);
  return record.fields;
}

export function createImportService(
  context: BrowserContext,
  uploads: UploadStore,
  queries: QueryService,
  scratch: ScratchServerOptions,
) {
  const { limits } = context;
  const scratchServers = new ConcurrencyLimit(SCRATCH_SERVERS_MAX);
  const restores = createRestoreAdmission({ bytesMax: limits.restoreBytesMax, perUser: limits.restoresPerUser });

  /**
   * One statement of an import, bounded like a query. The database refusing it (its text verbatim) goes to
   * `refused`; an outage or a timeout stays what it is; a stopped import says why it stopped.
   */
  async function runStatement(
    database: ReturnType<typeof databaseFor>,
    graph: string,
    text: string,
    bounded: ReturnType<typeof importSignal>,
    refused: (reason: string) => never,
  ): Promise<void> {
    try {
      await database.execute(graph, text, {
        timeoutMs: limits.queryTimeoutMaxMs,
        maxRows: limits.queryRowsMax,
        maxBytes: limits.queryResultBytesMax,
        signal: bounded.signal,
      });
    } catch (error) {
      if (bounded.signal.aborted) bounded.stopped();
      if (isPortError(error, 'rejected') || isPortError(error, 'forbidden')) refused(error.message);
      throw error;
    }
  }

  async function statements(file: Parameters<UploadStore['open']>[0]): Promise<AsyncGenerator<BatchStatement>> {
    // Two passes over the file, never held whole: the first finds out how statements end.
    const detector = createModeDetector();
    for await (const line of linesOf(await uploads.open(file))) detector.feed(line);
    const splitter = createBatchSplitter(detector.mode());
    const content = await uploads.open(file);
    return (async function* () {
      for await (const line of linesOf(content)) yield* splitter.feed(line);
      yield* splitter.end();
    })();
  }

  /**
   * Restores an export into `graph`, which must not exist. FalkorDB keeps the origin graph's name inside a DUMP and
   * crashes when the dump is restored under another key while a graph of that name exists: the origin is read on a
   * throw-away server first, the dump restored under the origin's name only when that name is free, then renamed.
   */
  async function restoreExport(principal: Principal, graph: string, file: StagedFile) {
    const database = databaseFor(context, principal);
    const exists = `Graph ${graph} already exists: restore into a new name`;
    const graphs = await database.listGraphs();
    // A graph deleted just before is still listed for a moment after its key is gone: only a key is a graph there.
    if (graphs.includes(graph) && (await database.keyExists(graph))) throw new ConflictError(exists);
    // Before a byte of the dump is read: the user's share and the server's budget of restores under way, then one
    // of the throw-away servers. The dump then streams from disk to each server, never held whole here.
    const admitted = restores.admit(principal.userId, file.size);
    if ('refused' in admitted) throw restoreRefused(admitted.refused);
    try {
      return await admittedRestore(database, graphs, graph, file, exists);
    } finally {
      admitted.release();
    }
  }

  function restoreRefused(refusal: RestoreRefusal): HttpError {
    const retry = { 'retry-after': '1' };
    switch (refusal) {
      case 'too-large':
        return new HttpError(
          413,
          `The export is larger than the ${limits.restoreBytesMax} bytes a restore may hold (RESTORE_BYTES_MAX)`,
        );
      case 'user':
        return new HttpError(
          429,
          `You are running ${limits.restoresPerUser} restore(s) already (RESTORES_PER_USER): try again once one has finished`,
          retry,
        );
      case 'server':
        return new HttpError(
          429,
          'Other restores hold the bytes restores may take at once (RESTORE_BYTES_MAX): try again in a moment',
          retry,
        );
    }
  }

  async function admittedRestore(
    database: ReturnType<typeof databaseFor>,
    graphs: string[],
    graph: string,
    file: StagedFile,
    exists: string,
  ) {
    const dump = { size: file.size, open: () => uploads.open(file) };
    // Each inspection starts a FalkorDB process: a few at a time for the whole server, whoever asks.
    const releaseScratch = scratchServers.tryAcquire('restore');
    if (!releaseScratch)
      throw new HttpError(429, 'Other restores are being prepared; try again in a moment', { 'retry-after': '1' });
    let origin: string;
    try {
      origin = await originGraphName(dump, scratch);
    } finally {
      releaseScratch();
    }
    const originExists = () =>
      new ConflictError(
        `This export comes from graph ${origin}, which exists on this server, and FalkorDB cannot hold a second copy of it: restore it on another server, delete or rename ${origin} first, or copy it with PATCH /api/graph/{graph}/duplicate`,
      );
    if (origin !== graph && graphs.includes(origin) && (await database.keyExists(origin))) throw originExists();
    // The dump restores only under its origin's key, renamed afterwards: in a cluster both must share a slot.
    if (origin !== graph && !database.sameSlot(origin, graph))
      throw new BadRequestError(crossSlotMessage('restored', origin, graph));
    // A graph of the origin's name deleted just before (the usual way to restore a graph over itself) is let go of
    // by FalkorDB after its key is gone, and a RESTORE before that crashes it: wait until no node lists the name.
    switch (await database.restoreTarget(origin, DELETION_SETTLE_MS)) {
      case 'exists':
        throw origin === graph ? new ConflictError(exists) : originExists();
      case 'freeing':
        throw new HttpError(
          409,
          `The database is still letting go of a deleted graph named ${origin}, and a restore now could crash it: try again in a moment`,
          { 'retry-after': '1' },
        );
      case 'free':
        break;
    }
    try {
      await database.restore(origin, dump);
    } catch (error) {
      if (isReplyError(error) && /BUSYKEY/.test(error.message)) throw new ConflictError(`Key ${origin} is in use`);
      throw error;
    }
    if (origin !== graph && (await database.renameGraph(origin, graph)) !== 1) {
      await database.deleteGraph(origin);
      throw new ConflictError(exists);
    }
    await uploads.remove(file.id);
    return { executed: 0, message: `Restored graph ${graph} from ${file.name}` };
  }

  return {
    /** Streams an upload to disk for its uploader (413 past UPLOAD_BYTES_MAX). */
    async stage(principal: Principal, name: string, content: Readable, truncated: () => boolean) {
      const extension = name.slice(name.lastIndexOf('.')).toLowerCase();
      if (!name.includes('.') || !STAGED_EXTENSIONS.includes(extension)) {
        content.resume(); // drained, so the request can end
        throw new BadRequestError(
          `Only Cypher batches (${BATCH_EXTENSIONS.join(', ')}) and graph exports (${DUMP_EXTENSION}) can be uploaded`,
        );
      }
      let file;
      try {
        file = await uploads.stage(principal.userId, name, content, { bytes: limits.uploadBytesMax, truncated });
      } catch (error) {
        const code = (error as { code?: unknown }).code;
        if (error instanceof StagingSpaceError)
          throw error.scope === 'owner'
            ? new HttpError(
                413,
                `Your staged files would take more than the ${error.limit} bytes allowed (UPLOAD_STAGED_BYTES_PER_USER): run them, or wait an hour for them to expire`,
              )
            : new HttpError(503, `The server's staging space (UPLOAD_STAGED_BYTES_MAX) is full: try again later`, {
                'retry-after': '60',
              });
        if (error instanceof UploadTooLargeError || code === 'FST_REQ_FILE_TOO_LARGE')
          throw new HttpError(
            413,
            `The file is larger than the ${limits.uploadBytesMax} bytes allowed (UPLOAD_BYTES_MAX)`,
          );
        throw error;
      }
      return { fileId: file.id, id: file.id, path: `/api/upload/${file.id}`, name: file.name, size: file.size };
    },

    /** The caller's staged file and its content, to read it back (404 for an unknown, expired or other's file). */
    async readStaged(principal: Principal, fileId: string): Promise<{ name: string; size: number; content: Readable }> {
      const file = await uploads.find(principal.userId, fileId);
      if (!file) throw new NotFoundError(`File ${fileId} not found (staged files last an hour)`);
      return { name: file.name, size: file.size, content: await uploads.open(file) };
    },

    /**
     * Runs a staged batch into `graph`, statement after statement; `onProgress` hears how many ran so far. The
     * staged file is removed once the whole batch has run.
     */
    async runBatch(
      principal: Principal,
      clientAddress: string,
      graph: string,
      staged: { fileId: string; mode?: 'dump' | 'cypher' },
      onProgress: (progress: BatchProgress) => void = () => undefined,
      signal?: AbortSignal,
    ): Promise<{ executed: number; message: string }> {
      const { fileId, mode } = staged;
      const file = await uploads.find(principal.userId, fileId);
      if (!file) throw new NotFoundError(`File ${fileId} not found (staged files last an hour)`);
      const isExport = file.name.toLowerCase().endsWith(DUMP_EXTENSION);
      if (mode !== undefined && (mode === 'dump') !== isExport)
        throw new BadRequestError(
          `File ${fileId} (${file.name}) is ${isExport ? 'an export' : 'a Cypher batch'}, not the "${mode}" the request names`,
        );
      if (isExport) {
        const release = queries.takeSlot(principal, clientAddress);
        try {
          return await restoreExport(principal, graph, file);
        } finally {
          release();
        }
      }
      const release = queries.takeSlot(principal, clientAddress);
      const database = databaseFor(context, principal);
      const bounded = importSignal(limits.importTimeoutMs, signal);
      let executed = 0;
      let reportedAt = Date.now();
      try {
        for await (const statement of await statements(file)) {
          if (bounded.signal.aborted) bounded.stopped();
          const violation = loadCsvViolation(statement.text, limits.csvUrlAllowlist);
          if (violation !== undefined) throw new BatchStatementError(statement.line, executed, violation);
          await runStatement(database, graph, statement.text, bounded, (reason) => {
            throw new BatchStatementError(statement.line, executed, reason);
          });
          executed++;
          if (executed % PROGRESS_EVERY_STATEMENTS === 0 || Date.now() - reportedAt >= PROGRESS_EVERY_MS) {
            reportedAt = Date.now();
            onProgress({ executed });
          }
        }
      } finally {
        release();
      }
      await uploads.remove(file.id);
      return { executed, message: `Executed ${executed} Cypher statement(s).` };
    },

    /**
     * Loads a staged CSV into `graph`: `request.body` runs for every row, a batch of rows per statement, in file
     * order; the first batch that fails stops the load (422 with its first line). The file is removed once loaded.
     */
    async loadCsv(
      principal: Principal,
      clientAddress: string,
      graph: string,
      request: LoadCsvRequest,
      onProgress: (progress: { loaded: number }) => void = () => undefined,
      signal?: AbortSignal,
    ): Promise<{ loaded: number; message: string }> {
      const file = await uploads.find(principal.userId, request.key);
      if (!file) throw new NotFoundError(`File ${request.key} not found (staged files last an hour)`);
      if (!file.name.toLowerCase().endsWith(CSV_EXTENSION))
        throw new BadRequestError(`File ${file.name} is not a CSV file: stage a ${CSV_EXTENSION} file`);
      const statement = `UNWIND $rows AS row\n${request.body}`;
      const release = queries.takeSlot(principal, clientAddress);
      const database = databaseFor(context, principal);
      const reader = createCsvReader(CSV_BOUNDS);
      const bounded = importSignal(limits.importTimeoutMs, signal);
      let header: string[] | undefined;
      let loaded = 0;
      let batch: string[][] = [];
      let batchLine = 0;
      let batchChars = 0;
      let reportedAt = Date.now();
      // One batch runs while the next is read and built: a batch is sent only once the one before it has succeeded,
      // so the first failure still stops the load there, and at most two batches are held.
      let running: Promise<void> = Promise.resolve();

      const send = async (rows: string[][], firstLine: number, text: string) => {
        await runStatement(database, graph, text, bounded, (reason) => {
          throw new CsvRowsError(firstLine, loaded, reason);
        });
        loaded += rows.length;
        if (Date.now() - reportedAt >= PROGRESS_EVERY_MS) {
          reportedAt = Date.now();
          onProgress({ loaded });
        }
      };
      const flush = async () => {
        if (batch.length === 0) return;
        const [rows, firstLine] = [batch, batchLine];
        batch = [];
        batchChars = 0;
        const text = withParameterText(statement, 'rows', textRowsLiteral(rows, header));
        await running;
        if (bounded.signal.aborted) bounded.stopped();
        running = send(rows, firstLine, text);
        // Settled here so that a failure is seen at the next flush or at the end, never as an unhandled rejection.
        running.catch(() => undefined);
      };
      const take = async (records: CsvRecord[]) => {
        for (const record of records) {
          if (request.withHeaders && !header) {
            header = record.fields;
            continue;
          }
          if (batch.length === 0) batchLine = record.line;
          batch.push(rowFields(record, header));
          batchChars += record.fields.reduce((sum, value) => sum + value.length, 0);
          if (batch.length >= CSV_BATCH_ROWS || batchChars >= CSV_BATCH_CHARS) await flush();
        }
      };

      try {
        const content = await uploads.open(file);
        content.setEncoding('utf8');
        try {
          for await (const chunk of content) await take(reader.feed(chunk as string));
          await take(reader.end());
        } finally {
          content.destroy();
        }
        await flush();
        await running;
      } catch (error) {
        // The batch still running came earlier in the file: its failure is the one to report, and its rows count.
        await running;
        if (error instanceof CsvFormatError) throw new CsvRowsError(error.line, loaded, error.message);
        throw error;
      } finally {
        release();
      }
      await uploads.remove(file.id);
      return { loaded, message: `Loaded ${loaded} row(s).` };
    },
  };
}

export type ImportService = ReturnType<typeof createImportService>;
