// The layer rules of .dependency-cruiser.json (docs/architecture.md, Layers), run by `npm run lint`, applied to a small
// tree that breaks them: an import against a layer and a cycle each fail the check, naming the rule.
import { execFile } from 'node:child_process';
import { copyFile, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';

const ROOT = path.resolve(import.meta.dirname, '../..');
const DEPCRUISE = path.join(ROOT, 'node_modules/.bin/depcruise');
const run = promisify(execFile);
const trees: string[] = [];

/** A project holding the repository's rules and tsconfig, and `files` under src/. */
async function treeOf(files: Record<string, string>): Promise<string> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'layer-rules-'));
  trees.push(dir);
  await copyFile(path.join(ROOT, '.dependency-cruiser.json'), path.join(dir, '.dependency-cruiser.json'));
  await copyFile(path.join(ROOT, 'tsconfig.json'), path.join(dir, 'tsconfig.json'));
  for (const [name, text] of Object.entries(files)) {
    await mkdir(path.dirname(path.join(dir, name)), { recursive: true });
    await writeFile(path.join(dir, name), text);
  }
  return dir;
}

/** The check as lint runs it: exit code and what it printed. */
async function check(dir: string): Promise<{ code: number; output: string }> {
  try {
    const { stdout, stderr } = await run(
      DEPCRUISE,
      ['src', '--config', '.dependency-cruiser.json', '--output-type', 'err'],
      {
        cwd: dir,
      },
    );
    return { code: 0, output: stdout + stderr };
  } catch (error) {
    const failed = error as { code?: number; stdout?: string; stderr?: string };
    return { code: failed.code ?? -1, output: `${failed.stdout ?? ''}${failed.stderr ?? ''}` };
  }
}

afterAll(async () => {
  for (const dir of trees) await rm(dir, { recursive: true, force: true });
});

describe('the layer rules', () => {
  it('pass a tree that follows them', async () => {
    const dir = await treeOf({
      'src/lib/names.ts': 'export const name = (text: string) => text.trim();\n',
      'src/platform/store.ts': "import { name } from '../lib/names.js';\nexport const key = name(' a ');\n",
    });
    expect(await check(dir)).toMatchObject({ code: 0 });
  }, 60_000);

  it('fail on an adapter importing the HTTP layer, and on a utility importing an adapter', async () => {
    const dir = await treeOf({
      'src/http/errors.ts': 'export class HttpError extends Error {}\n',
      'src/platform/store.ts':
        "import { HttpError } from '../http/errors.js';\nexport const failure = new HttpError();\n",
      'src/lib/names.ts': "import { failure } from '../platform/store.js';\nexport const shown = String(failure);\n",
    });
    const { code, output } = await check(dir);
    expect(code).not.toBe(0);
    expect(output).toContain('platform-imports-lib-only');
    expect(output).toContain('lib-imports-nothing');
  }, 60_000);

  it('fail on a browser routes file importing an adapter, and let its service import it', async () => {
    const dir = await treeOf({
      'src/platform/graph-database.ts': 'export class GraphDatabase {}\n',
      'src/browser/nodes/node-service.ts':
        "import { GraphDatabase } from '../../platform/graph-database.js';\nexport const database = new GraphDatabase();\n",
      'src/browser/nodes/node-routes.ts':
        "import type { GraphDatabase } from '../../platform/graph-database.js';\nexport type Database = GraphDatabase;\n",
    });
    const { code, output } = await check(dir);
    expect(code).not.toBe(0);
    expect(output).toContain('browser-routes-call-services');
    expect(output).toContain('node-routes.ts');
    expect(output).not.toContain('node-service.ts');
  }, 60_000);

  it('fail on a cycle, type-only imports included', async () => {
    const dir = await treeOf({
      'src/platform/a.ts': "import type { B } from './b.js';\nexport interface A { b?: B }\n",
      'src/platform/b.ts': "import type { A } from './a.js';\nexport interface B { a?: A }\n",
    });
    const { code, output } = await check(dir);
    expect(code).not.toBe(0);
    expect(output).toContain('no-cycle');
  }, 60_000);
});
