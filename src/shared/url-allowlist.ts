// URL prefixes an operator allows (CSV_URL_ALLOWLIST), and the one comparison every check of them uses.
/**
 * CSV_URL_ALLOWLIST: comma-separated http(s) URL prefixes. Each must be a plain URL (no user, query or fragment);
 * it is kept normalised (WHATWG URL), the form the comparison below uses.
 */
export function parseUrlAllowlist(text: string): string[] {
  return text
    .split(',')
    .map((entry) => entry.trim())
    .filter((entry) => entry !== '')
    .map((entry) => {
      let url: URL;
      try {
        url = new URL(entry);
      } catch {
        throw new Error(`CSV_URL_ALLOWLIST: ${JSON.stringify(entry)} is not a URL`);
      }
      if (url.protocol !== 'https:' && url.protocol !== 'http:') throw new Error(`CSV_URL_ALLOWLIST: ${JSON.stringify(entry)} must be an http or https URL`);
      if (url.username || url.password || url.search || url.hash) throw new Error(`CSV_URL_ALLOWLIST: ${JSON.stringify(entry)} must not carry a user, query or fragment`);
      return url.href;
    });
}

/**
 * Whether `candidate` lies under `prefix`: same scheme, host and port, and a path equal to the prefix's or below it
 * as a whole segment (`/data` admits `/data/x.csv`, not `/database.csv`). Both are normalised first, so `..` and
 * its percent-encoded forms cannot climb out; a URL with a user part is never admitted.
 */
export function isUnderUrlPrefix(candidate: string, prefix: string): boolean {
  let url: URL;
  try {
    url = new URL(candidate);
  } catch {
    return false;
  }
  const base = new URL(prefix);
  if (url.username || url.password || url.origin !== base.origin) return false;
  const folder = base.pathname.endsWith('/') ? base.pathname : `${base.pathname}/`;
  return url.pathname === base.pathname || url.pathname.startsWith(folder);
}
