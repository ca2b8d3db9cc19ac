// The test-only lint rules of eslint.config.js, run through ESLint itself on small sources: a focused or skipped
// test, and a check of eventually()'s answer (it throws instead of answering false), are errors.
import { ESLint } from 'eslint';
import { describe, expect, it } from 'vitest';

const eslint = new ESLint();

/** The no-restricted-syntax messages ESLint gives `source` as if it were a test file. */
async function restrictions(source: string): Promise<string[]> {
  const [result] = await eslint.lintText(source, { filePath: 'test/unit/wait.test.ts' });
  return result!.messages.filter((message) => message.ruleId === 'no-restricted-syntax').map((m) => m.message);
}

const header = "import { expect, it } from 'vitest';\nimport { eventually } from '../support/wait.js';\n";

describe('the lint rules for tests', () => {
  it('refuses focused and skipped tests', async () => {
    expect(await restrictions(`${header}it.only('a', () => undefined);\nit.skip('b', () => undefined);\n`)).toEqual([
      'Focused, skipped or todo tests hide failures.',
      'Focused, skipped or todo tests hide failures.',
    ]);
  });

  it("refuses a check of eventually()'s answer, and accepts the wait on its own", async () => {
    const checked = [
      'expect(await eventually(() => true, 10)).toBe(true);',
      'const ok = await eventually(() => true, 10);',
      "if (!(await eventually(() => true, 10))) throw new Error('late');",
    ];
    const source = `${header}it('waits', async () => {\n${checked.join('\n')}\nawait eventually(() => true, 10);\n});\n`;
    const messages = await restrictions(source);
    expect(messages).toHaveLength(checked.length);
    for (const message of messages) expect(message).toMatch(/^eventually\(\) returns nothing/);
  });
}, 60_000);
