// The query result body `{metadata, data}` as JSON text. A small result is one string; a large one is produced
// in chunks of rows, each decoded just before it is serialized, so neither the decoded rows nor the whole text
// of a large result exist at once. Both give the same bytes.
import type { QueryRows } from '../../platform/falkordb/graph-database.js';

/** Above this many rows the body is streamed in chunks. */
export const STREAMED_ABOVE_ROWS = 1000;
const ROWS_PER_CHUNK = 500;

/** The seed's body leaves `data` out when the query returned no rows. */
function opening(result: QueryRows): string {
  const metadata = `{"metadata":${JSON.stringify(result.metadata)}`;
  return result.rowCount > 0 ? `${metadata},"data":[` : `${metadata}}`;
}

export function* resultJsonChunks(result: QueryRows): Generator<string> {
  yield opening(result);
  if (result.rowCount === 0) return;
  for (let start = 0; start < result.rowCount; start += ROWS_PER_CHUNK) {
    const rows = [];
    for (let index = start; index < Math.min(start + ROWS_PER_CHUNK, result.rowCount); index++)
      rows.push(result.takeRow(index));
    // One stringify per chunk (cheaper than one per row); its brackets are dropped to splice it into the array.
    const text = JSON.stringify(rows);
    yield `${start === 0 ? '' : ','}${text.slice(1, -1)}`;
  }
  yield ']}';
}

export function resultJson(result: QueryRows): string {
  let text = '';
  for (const chunk of resultJsonChunks(result)) text += chunk;
  return text;
}
