import { beforeAll, describe, expect, it } from 'vitest';
import { adminClient, bearer, credentials, databaseSnapshot, graphQuery, useBrowserApp } from '../support/browser.js';

const t = useBrowserApp({ prefix: 'bad' });
let admin: Record<string, string>;
beforeAll(async () => {
  admin = bearer(t.tokens.Admin);
  await graphQuery(t.falkordb, 'kept', "CREATE (:Keep {name: 'a'})-[:R]->(:Keep {name: 'b'})");
});

type Method = 'GET' | 'POST' | 'PATCH' | 'DELETE';
/** [method, url, body (undefined: none; a string: sent raw as JSON text), word the message must contain] */
type BadRequest = [Method, string, unknown, string];

const long = 'x'.repeat(600);
const valid = () => credentials(t.falkordb, 'bad-admin', 'bad-admin-password');

const TABLE: () => BadRequest[] = () => [
  ['POST', '/api/auth/tokens/credentials', '[]', 'body'],
  ['POST', '/api/auth/tokens/credentials', '"text"', 'body'],
  ['POST', '/api/auth/tokens/credentials', '42', 'body'],
  ['POST', '/api/auth/tokens/credentials', { ...valid(), username: 123 }, 'username'],
  ['POST', '/api/auth/tokens/credentials', { ...valid(), username: '' }, 'username'],
  ['POST', '/api/auth/tokens/credentials', { ...valid(), username: long }, 'username'],
  ['POST', '/api/auth/tokens/credentials', { ...valid(), host: '' }, 'host'],
  ['POST', '/api/auth/tokens/credentials', { ...valid(), host: 'a b' }, 'host'],
  ['POST', '/api/auth/tokens/credentials', { ...valid(), port: 'abc' }, 'port'],
  ['POST', '/api/auth/tokens/credentials', { ...valid(), port: '0' }, 'port'],
  ['POST', '/api/auth/tokens/credentials', { ...valid(), tls: 'yes' }, 'tls'],
  ['POST', '/api/auth/tokens/credentials', { ...valid(), tls: 1 }, 'tls'],
  ['POST', '/api/auth/tokens/credentials', { ...valid(), port: 70000 }, 'port'],
  ['POST', '/api/auth/tokens/credentials', { ...valid(), port: 63.5 }, 'port'],
  ['POST', '/api/auth/tokens/credentials', { ...valid(), port: '1e3' }, 'port'],
  ['POST', '/api/auth/tokens/credentials', { ...valid(), ttlSeconds: 'soon' }, 'ttlSeconds'],
  ['POST', '/api/auth/tokens/credentials', { ...valid(), expiresAt: 123 }, 'expiresAt'],
  ['POST', '/api/auth/tokens/credentials', { ...valid(), name: '' }, 'name'],
  ['GET', '/api/graph/%01bad?query=RETURN%201&timeout=10', undefined, 'graph'],
  ['GET', `/api/graph/${long}?query=RETURN%201&timeout=10`, undefined, 'graph'],
  ['GET', '/api/graph/kept?query=RETURN%201&timeout=1.5', undefined, 'timeout'],
  ['GET', '/api/graph/kept?query=RETURN%201&timeout=99999999999', undefined, 'timeout'],
  ['GET', '/api/graph/kept?query=RETURN%201&timeout=1e3', undefined, 'timeout'],
  ['GET', '/api/graph/kept?query=RETURN%201&timeout=%2010', undefined, 'timeout'],
  ['GET', '/api/graph/kept?query=RETURN%201&timeout=', undefined, 'timeout'],
  ['GET', '/api/graph/kept?query=RETURN%201&timeout=10&maxRows=0', undefined, 'maxRows'],
  ['GET', '/api/graph/kept?query=RETURN%201&timeout=10&maxRows=1e2', undefined, 'maxRows'],
  ['GET', '/api/graph/kept?timeout=10', undefined, 'query'],
  ['POST', '/api/graph/%7F', undefined, 'graph'],
  ['POST', '/api/graph/null-body', 'null', 'body'],
  ['PATCH', '/api/graph/kept2', 'null', 'body'],
  ['PATCH', '/api/graph/kept2/duplicate?sourceName=kept', 'null', 'body'],
  ['DELETE', '/api/graph/a%0Ab', undefined, 'graph'],
  ['PATCH', '/api/graph/kept2?sourceName=', undefined, 'sourceName'],
  ['PATCH', '/api/graph/kept2', { sourceName: 5 }, 'sourceName'],
  ['PATCH', '/api/graph/kept2/duplicate?sourceName=%00', undefined, 'sourceName'],
  ['GET', '/api/graph/kept/explain?query=', undefined, 'query'],
  ['GET', '/api/graph/kept/profile', undefined, 'query'],
  ['GET', '/api/graph/kept/info?type=(labels)', undefined, 'type'],
  ['GET', '/api/graph/kept/abc', undefined, 'node'],
  ['GET', '/api/graph/kept/-1', undefined, 'node'],
  ['GET', '/api/graph/kept/1e3', undefined, 'node'],
  ['GET', '/api/graph/kept/99999999999999999999', undefined, 'node'],
  ['DELETE', '/api/graph/kept/0', { type: 'yes' }, 'type'],
  ['DELETE', '/api/graph/kept/0', '[]', 'body'],
  ['DELETE', '/api/graph/kept/0', undefined, 'body'],
  ['POST', '/api/graph/kept/0/label', { label: '' }, 'label'],
  ['POST', '/api/graph/kept/0/label', { label: 123 }, 'label'],
  ['POST', '/api/graph/kept/0/label', { label: 'a`b' }, 'label'],
  ['DELETE', '/api/graph/kept/0/label', '"Keep"', 'body'],
  ['POST', '/api/graph/kept/0/name', { value: { nested: 1 }, type: true }, 'value'],
  ['POST', '/api/graph/kept/0/name', { value: [[1]], type: true }, 'value'],
  ['POST', '/api/graph/kept/0/name', { value: 'v' }, 'type'],
  ['POST', `/api/graph/kept/0/${'k'.repeat(300)}`, { value: 'v', type: true }, 'key'],
  ['DELETE', '/api/graph/kept/0/name', { type: 1 }, 'type'],
  ['GET', '/api/graph/config/bad%20name', undefined, 'config'],
  ['POST', '/api/graph/config/TIMEOUT?value=12abc', undefined, 'value'],
  ['POST', '/api/graph/config/MAX_INFO_QUERIES', { value: true }, 'value'],
  ['POST', '/api/graph/config/MAX_INFO_QUERIES?value=1000', 'null', 'body'],
  ['POST', '/api/user', { username: 'a b', password: 'pw', role: 'Admin' }, 'username'],
  ['POST', '/api/user', { username: 'ok', password: 'pw', role: 'root' }, 'role'],
  ['POST', '/api/user', { username: 'ok', password: '', role: 'Admin' }, 'password'],
  ['POST', '/api/user', '[]', 'body'],
  ['DELETE', '/api/user', { users: 'bad-admin' }, 'users'],
  ['DELETE', '/api/user', { users: [{}] }, 'users'],
  ['DELETE', '/api/user', { users: [{ username: 5 }] }, 'users'],
  ['PATCH', '/api/user/bad-read-only?role=Owner', undefined, 'role'],
  ['PATCH', '/api/user/bad-read-only?role=Read-Only', 'null', 'body'],
  ['PATCH', '/api/user/bad%20user?role=Admin', undefined, 'user'],
];

async function storedState() {
  const client = await adminClient(t.falkordb);
  try {
    const tokenKeys = (await client.keys('graphdb:token:*')).length;
    const acl = await client.sendCommand<string[]>(['ACL', 'LIST']);
    return {
      ...(await databaseSnapshot(t.falkordb)),
      tokenKeys,
      acl,
      kept: await graphQuery(t.falkordb, 'kept', 'MATCH (n) RETURN labels(n), properties(n) ORDER BY ID(n)'),
    };
  } finally {
    await client.close();
  }
}

describe('malformed requests to every endpoint', () => {
  it('get 400 {message} naming the field, and write nothing', async () => {
    const before = await storedState();
    for (const [method, url, body, field] of TABLE()) {
      const headers = typeof body === 'string' ? { ...admin, 'content-type': 'application/json' } : admin;
      const res = await t.app.inject({
        method,
        url,
        headers,
        ...(body === undefined ? {} : { payload: body as never }),
      });
      const label = `${method} ${url.slice(0, 80)} ${JSON.stringify(body)?.slice(0, 60)}`;
      expect(res.statusCode, `${label} -> ${res.body}`).toBe(400);
      const json = res.json<Record<string, unknown>>();
      expect(Object.keys(json), label).toEqual(['message', 'code']);
      expect(json.code, label).toBe('invalid_request');
      expect(String(json.message), label).toContain(field);
    }
    expect(await storedState()).toEqual(before);
  });
});
