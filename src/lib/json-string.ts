// JSON string literals written by hand on hot paths (the access line, the config list, prepared responses).
/**
 * `text` as a JSON string: quoted as it is when no character needs escaping (a path, an address, a method: the
 * usual case), else as JSON.stringify writes it. Surrogates go the slow way too, so a lone one is escaped as
 * JSON.stringify would.
 */
export function jsonString(text: string): string {
  for (let index = 0; index < text.length; index++) {
    const code = text.charCodeAt(index);
    if (code < 0x20 || code === 0x22 || code === 0x5c || (code >= 0xd800 && code <= 0xdfff))
      return JSON.stringify(text);
  }
  return `"${text}"`;
}
