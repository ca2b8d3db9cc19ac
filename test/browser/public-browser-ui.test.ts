// The routes the public FalkorDB Browser defines beyond the browser API's own list, called over real HTTP the way its
// UI calls them (paths, headers and bodies as in FalkorDB Browser commit ae6e28c5), and answered with the fields its
// UI reads. `fetch` labels a string body `text/plain;charset=UTF-8` when no Content-Type is set, as a web page's does.
import { describe, expect, it } from 'vitest';
import { adminClient, createToken, credentials, useBrowserApp } from '../support/browser.js';

const t = useBrowserApp({ prefix: 'ui', listen: true });

interface UiCall {
  method: string;
  path: string;
  /** A string body sent as the UI sends it; `json` adds the Content-Type header the UI sets on that call. */
  body?: string | FormData;
  json?: boolean;
  token?: string;
}

async function call({ method, path, body, json, token }: UiCall): Promise<{ status: number; text: string }> {
  const headers: Record<string, string> = { authorization: `Bearer ${token ?? t.tokens.Admin}` };
  if (json) headers['content-type'] = 'application/json';
  const res = await fetch(`${t.baseUrl}/${path.replace(/^\//, '')}`, { method, headers, body });
  return { status: res.status, text: await res.text() };
}

async function callJson<T>(request: UiCall): Promise<T> {
  const { status, text } = await call(request);
  expect(status, `${request.method} ${request.path}: ${text}`).toBe(200);
  return JSON.parse(text) as T;
}

/** The UI's `uploadFileWithProgress`: a FormData with one `file` field, no other header. */
function formWith(name: string, content: string): FormData {
  const form = new FormData();
  form.append('file', new Blob([content]), name);
  return form;
}

async function graphRows(graph: string, query: string): Promise<unknown[]> {
  const client = await adminClient(t.falkordb);
  try {
    return await client.sendCommand<unknown[]>(['GRAPH.QUERY', graph, query, '--compact']);
  } finally {
    await client.close();
  }
}

describe('the FalkorDB Browser UI against this server', () => {
  it('uploads a Cypher file, reads its `id`, reads it back at `path`, and runs it with `{fileId}`', async () => {
    const content = "CREATE (:UiUpload {name: 'one'})\nCREATE (:UiUpload {name: 'two'})\n";
    const staged = await callJson<{ id?: string; path?: string }>({
      method: 'POST',
      path: 'api/upload',
      body: formWith('people.cypher', content),
    });
    expect(staged.id).toMatch(/\S/);
    expect(staged.path).toBe(`/api/upload/${staged.id}`);
    const readBack = await call({ method: 'GET', path: staged.path! });
    expect(readBack).toEqual({ status: 200, text: content });
    // Someone else's token never reads it.
    expect((await call({ method: 'GET', path: staged.path!, token: t.tokens['Read-Write'] })).status).toBe(404);

    await callJson({ method: 'POST', path: 'api/graph/ui_upload', body: undefined });
    const ran = await call({
      method: 'POST',
      path: 'api/graph/ui_upload/upload',
      json: true,
      body: JSON.stringify({ fileId: staged.id }),
    });
    expect(ran.status, ran.text).toBe(200);
    expect(JSON.stringify(await graphRows('ui_upload', 'MATCH (n:UiUpload) RETURN count(n)'))).toContain('2');
    // Once run, the staged file is gone.
    expect((await call({ method: 'GET', path: staged.path! })).status).toBe(404);
  });

  it('restores an export sent as `{mode: "dump", fileId}`, and refuses a mode the file contradicts', async () => {
    await callJson({ method: 'POST', path: 'api/graph/ui_dump_origin' });
    await callJson({
      method: 'GET',
      path: `api/graph/ui_dump_origin?query=${encodeURIComponent('CREATE (:Dumped {n: 1})')}&timeout=5000`,
    });
    const exported = await fetch(`${t.baseUrl}/api/graph/ui_dump_origin/export`, {
      headers: { authorization: `Bearer ${t.tokens.Admin}` },
    });
    expect(exported.status).toBe(200);
    const dump = new Blob([await exported.arrayBuffer()]);
    await callJson({ method: 'DELETE', path: 'api/graph/ui_dump_origin' });

    const cypher = await callJson<{ id: string }>({
      method: 'POST',
      path: 'api/upload',
      body: formWith('x.cypher', 'CREATE (:X)\n'),
    });
    const wrongMode = await call({
      method: 'POST',
      path: 'api/graph/ui_restored/upload',
      json: true,
      body: JSON.stringify({ mode: 'dump', fileId: cypher.id }),
    });
    expect(wrongMode.status, wrongMode.text).toBe(400);
    expect(JSON.parse(wrongMode.text)).toEqual({
      message: expect.stringContaining('a Cypher batch') as unknown,
      code: 'invalid_request',
    });

    const form = new FormData();
    form.append('file', dump, 'ui_dump_origin.dump');
    const staged = await callJson<{ id: string }>({ method: 'POST', path: 'api/upload', body: form });
    const restored = await call({
      method: 'POST',
      path: 'api/graph/ui_restored/upload',
      json: true,
      body: JSON.stringify({ mode: 'dump', fileId: staged.id }),
    });
    expect(restored.status, restored.text).toBe(200);
    expect(JSON.stringify(await graphRows('ui_restored', 'MATCH (n:Dumped) RETURN n.n'))).toContain('1');
  });

  it('lists UDF libraries as GRAPH.UDF LIST tuples and reads one with its code at index 5', async () => {
    const code = "function twice(a) { return a * 2; } falkor.register('twice', twice);";
    const loaded = await call({
      method: 'POST',
      path: 'api/udf/ui_math',
      json: true,
      body: JSON.stringify({ code, replace: false }),
    });
    expect(loaded.status, loaded.text).toBe(200);
    const list = await callJson<{ result: unknown[][] }>({ method: 'GET', path: 'api/udf' });
    const entry = list.result.find((item) => item[1] === 'ui_math');
    // The query editor's suggestions read `[, libName, , functions]`.
    expect(entry).toEqual(['library_name', 'ui_math', 'functions', ['twice']]);
    const one = await callJson<{ result: unknown[][] }>({
      method: 'GET',
      path: `api/udf/${encodeURIComponent(String(list.result[0]![1]))}`,
    });
    expect(one.result).toHaveLength(1);
    const read = await callJson<{ result: unknown[][] }>({ method: 'GET', path: 'api/udf/ui_math' });
    // The UDF page reads the name at 1, the functions at 3 and the code at 5.
    expect(read.result[0]![1]).toBe('ui_math');
    expect(read.result[0]![3]).toEqual(['twice']);
    expect(read.result[0]![5]).toBe(code);
    expect((await call({ method: 'DELETE', path: 'api/udf/ui_math' })).status).toBe(200);
  });

  it('answers graph info rows with the `info` key the UI reads, given `readOnly=true` as the UI adds it', async () => {
    await callJson({
      method: 'GET',
      path: `api/graph/ui_info?query=${encodeURIComponent('CREATE (:Person {name: 1})-[:KNOWS]->(:Person)')}&timeout=5000`,
    });
    for (const [type, expected] of [
      ['(property key)', 'name'],
      ['(label)', 'Person'],
      ['(relationship type)', 'KNOWS'],
    ] as const) {
      const info = await callJson<{ result: { data: Record<string, unknown>[] } }>({
        method: 'GET',
        path: `api/graph/ui_info/info?type=${encodeURIComponent(type)}&readOnly=true`,
      });
      // The UI's `info`, and the browser API's own key (the requested type) beside it.
      expect(info.result.data).toContainEqual({ info: expected, [type]: expected });
    }
  });

  it('creates, labels, sets a property on and deletes elements with bodies sent without a Content-Type', async () => {
    await callJson({ method: 'POST', path: 'api/graph/ui_elements' });
    const created = await callJson<{ result: { data: { n: { id: number; labels: string[] } }[] } }>({
      method: 'POST',
      path: 'api/graph/ui_elements/-1',
      body: JSON.stringify({ attributes: [['name', 'Ada']], label: ['Person'], type: true }),
    });
    const node = created.result.data[0]!.n;
    expect(node.labels).toEqual(['Person']);
    const other = (
      await callJson<{ result: { data: { n: { id: number } }[] } }>({
        method: 'POST',
        path: 'api/graph/ui_elements/-1',
        body: JSON.stringify({ attributes: [], label: ['Person'], type: true }),
      })
    ).result.data[0]!.n;
    // A relationship's ends as the UI sends them: the selected elements, whole.
    const edge = await callJson<{ result: { data: { e: { relationshipType: string } }[] } }>({
      method: 'POST',
      path: 'api/graph/ui_elements/-1',
      body: JSON.stringify({
        attributes: [],
        label: ['KNOWS'],
        type: false,
        selectedNodes: [
          { id: node.id, labels: ['Person'], data: { name: 'Ada' }, visible: true },
          { id: other.id, labels: ['Person'], data: {}, visible: true },
        ],
      }),
    });
    expect(edge.result.data[0]!.e.relationshipType).toBe('KNOWS');

    await callJson({
      method: 'POST',
      path: `api/graph/ui_elements/${node.id}/label`,
      body: JSON.stringify({ label: 'Engineer' }),
    });
    await callJson({
      method: 'POST',
      path: `api/graph/ui_elements/${node.id}/born`,
      body: JSON.stringify({ value: 1815, type: true }),
    });
    await callJson({
      method: 'DELETE',
      path: `api/graph/ui_elements/${node.id}/label`,
      body: JSON.stringify({ label: 'Person' }),
    });
    const [, rows] = (await graphRows(
      'ui_elements',
      `MATCH (n) WHERE id(n) = ${node.id} RETURN labels(n), n.born`,
    )) as [unknown, unknown[][]];
    expect(JSON.stringify(rows[0])).toContain('Engineer');
    expect(JSON.stringify(rows[0])).not.toContain('Person');
    expect(JSON.stringify(rows[0])).toContain('1815');

    await callJson({
      method: 'DELETE',
      path: `api/graph/ui_elements/${other.id}`,
      body: JSON.stringify({ type: true }),
    });
    expect(JSON.stringify(await graphRows('ui_elements', 'MATCH (n) RETURN count(n)'))).toContain('1');
  });

  it('keeps refusing a text/plain body on every other route', async () => {
    const query = await call({
      method: 'POST',
      path: 'api/graph/ui_elements/query',
      body: JSON.stringify({ query: 'RETURN 1' }),
    });
    expect(query.status, query.text).toBe(400);
    expect(JSON.parse(query.text)).toEqual({
      message: expect.stringContaining('application/json') as unknown,
      code: 'unsupported_content_type',
    });
  });

  it('manages database users with key patterns, and applies a password sent in the PATCH', async () => {
    const created = await call({
      method: 'POST',
      path: '/api/user/',
      json: true,
      body: JSON.stringify({ username: 'ui-scoped', password: 'first-pass', role: 'Read-Only', keys: ['sales*'] }),
    });
    expect(created.status, created.text).toBe(201);
    const list = await callJson<{ result: { username: string; role: string; keys: string[] }[] }>({
      method: 'GET',
      path: '/api/user',
    });
    // The users page reads `keys.join(", ")` of every user.
    for (const user of list.result) expect(Array.isArray(user.keys), user.username).toBe(true);
    expect(list.result.find((user) => user.username === 'ui-scoped')).toMatchObject({
      role: 'Read-Only',
      keys: ['sales*'],
    });

    // A token made with the first password, which the new password must retire.
    const oldToken = await createToken(t.app, credentials(t.falkordb, 'ui-scoped', 'first-pass'));
    expect((await call({ method: 'GET', path: 'api/graph', token: oldToken })).status).toBe(200);

    const patched = await call({
      method: 'PATCH',
      path: 'api/user/ui-scoped',
      body: JSON.stringify({ role: 'Read-Write', keys: ['sales*', 'social'], password: 'second-pass' }),
    });
    expect(patched.status, patched.text).toBe(200);
    const client = await adminClient(t.falkordb);
    try {
      const auth = async (password: string) =>
        client.sendCommand(['AUTH', 'ui-scoped', password]).then(
          () => 'ok',
          (error: Error) => error.message,
        );
      expect(await auth('second-pass')).toBe('ok');
      expect(await auth('first-pass')).toMatch(/WRONGPASS/);
    } finally {
      await client.close();
    }
    expect((await call({ method: 'GET', path: 'api/graph', token: oldToken })).status).toBe(401);
    const after = await callJson<{ result: { username: string; role: string; keys: string[] }[] }>({
      method: 'GET',
      path: '/api/user',
    });
    expect(after.result.find((user) => user.username === 'ui-scoped')).toMatchObject({
      role: 'Read-Write',
      keys: ['sales*', 'social'],
    });

    // A role change alone keeps the user's key patterns.
    await callJson({ method: 'PATCH', path: 'api/user/ui-scoped?role=Read-Only' });
    expect(
      (await callJson<{ username: string; keys: string[] }>({ method: 'GET', path: 'api/user/ui-scoped' })).keys,
    ).toEqual(['sales*', 'social']);

    const removed = await call({
      method: 'DELETE',
      path: '/api/user',
      json: true,
      body: JSON.stringify({ users: [{ username: 'ui-scoped' }] }),
    });
    expect(removed.status, removed.text).toBe(200);
  });
});
