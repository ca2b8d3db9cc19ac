import { mkdtemp, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { serviceAccountNamespace } from '../../src/platform/kubernetes/kube-config.js';

describe('the service-account namespace', () => {
  it('is read from the mounted file, and absent outside a pod', async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'gdb-sa-'));
    await writeFile(path.join(dir, 'namespace'), 'team-graph\n');
    expect(await serviceAccountNamespace(path.join(dir, 'namespace'))).toBe('team-graph');
    expect(await serviceAccountNamespace(path.join(dir, 'missing'))).toBeUndefined();
  });
});
