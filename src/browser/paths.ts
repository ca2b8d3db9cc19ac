// The URL space owned by the browser API; everything else under /api belongs to the admin API.
const BROWSER_PREFIXES = [
  '/api/auth/tokens',
  '/api/status',
  '/api/graph',
  '/api/user',
  '/api/DBVersion',
  '/api/info',
  '/api/monitor',
  '/api/connection-info',
  '/api/udf',
  '/api/queries',
  '/api/upload',
];

export function isBrowserPath(url: string): boolean {
  const pathOnly = url.split('?', 1)[0] ?? url;
  return BROWSER_PREFIXES.some((prefix) => pathOnly === prefix || pathOnly.startsWith(`${prefix}/`));
}
