// Loaded with `node --import` into a server process: appends the name of every package the process loads (once each)
// to the file named by RECORD_PACKAGES_FILE, so a test can tell which libraries a start-up loaded.
import { appendFileSync } from 'node:fs';
import { registerHooks } from 'node:module';

const file = process.env.RECORD_PACKAGES_FILE;
const seen = new Set<string>();

function packageOf(url: string): string | undefined {
  const match = /\/node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(url);
  return match?.[1];
}

if (file)
  registerHooks({
    load(url, context, nextLoad) {
      const name = packageOf(url);
      if (name && !seen.has(name)) {
        seen.add(name);
        appendFileSync(file, `${name}\n`);
      }
      return nextLoad(url, context);
    },
  });
