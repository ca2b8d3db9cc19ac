// A client developer's session with the client generated from openapi/openapi.json (openapi-typescript types,
// openapi-fetch calls): type-checked under --strict with no casts, then run against a real server by
// test/clients/typescript-client.test.ts. `./generated/api.js` is written by that test.
import createClient from 'openapi-fetch';
import type { components, paths } from './generated/api.js';

type TypedValue = components['schemas']['TypedValue'];

export interface Login {
  username: string;
  password: string;
  host: string;
  port: string;
}

export interface Person {
  name: string;
  born: bigint;
  friends: string[];
  since: bigint;
}

export interface SessionOutcome {
  people: Person[];
  missingGraphStatus: number;
  missingGraphMessage: string;
  plainRows: number;
}

function text(value: TypedValue | undefined): string {
  if (value?.type !== 'String') throw new Error(`expected a string, got ${JSON.stringify(value)}`);
  return value.value;
}

function integer(value: TypedValue | undefined): bigint {
  if (value?.type !== 'Integer') throw new Error(`expected an integer, got ${JSON.stringify(value)}`);
  return BigInt(value.value);
}

export async function runSession(baseUrl: string, login: Login, graph: string): Promise<SessionOutcome> {
  // The JSON media type: the body of each call is typed from its application/json schema.
  const anonymous = createClient<paths, 'application/json'>({ baseUrl });
  const created = await anonymous.POST('/api/auth/tokens/credentials', {
    body: { ...login, tls: 'false', name: 'typescript client' },
  });
  if (!created.data) throw new Error(`token: ${created.response.status} ${JSON.stringify(created.error)}`);

  const client = createClient<paths, 'application/json'>({
    baseUrl,
    headers: { authorization: `Bearer ${created.data.token}` },
  });
  const made = await client.POST('/api/graph/{graph}', { params: { path: { graph } } });
  if (made.error) throw new Error(`create graph: ${made.error.message}`);

  const written = await client.POST('/api/graph/{graph}/query', {
    params: { path: { graph } },
    body: {
      query:
        'CREATE (:Person {name: $name, born: $born})-[:KNOWS {since: $since}]->(:Person {name: $friend}) RETURN 1 AS done',
      params: { name: 'Ada', born: 1815, since: 1833, friend: 'Charles' },
      timeout: 5000,
    },
  });
  if (!written.data) throw new Error(`write: ${JSON.stringify(written.error)}`);
  const plainRows = written.data.data.length;

  const read = await client.POST('/api/graph/{graph}/query', {
    params: { path: { graph } },
    body: {
      query:
        'MATCH (p:Person {name: $name})-[k:KNOWS]->(f:Person) RETURN p, k, collect(f.name) AS friends, 9007199254740993 AS big',
      params: { name: 'Ada' },
      format: 'typed',
    },
  });
  if (!read.data) throw new Error(`read: ${JSON.stringify(read.error)}`);
  const result = read.data;
  if (!('format' in result)) throw new Error('asked for typed values');

  const people = result.data.map((row): Person => {
    const person = row.p;
    const knows = row.k;
    const friends = row.friends;
    if (person?.type !== 'Node') throw new Error('p is not a node');
    if (knows?.type !== 'Relationship') throw new Error('k is not a relationship');
    if (friends?.type !== 'List') throw new Error('friends is not a list');
    if (integer(row.big) !== 9007199254740993n) throw new Error('an integer beyond 2^53 lost its value');
    return {
      name: text(person.properties.name),
      born: integer(person.properties.born),
      friends: friends.value.map(text),
      since: integer(knows.properties.since),
    };
  });

  // An error, read from the API's error shape.
  const missing = await client.POST('/api/graph/{graph}/query', {
    params: { path: { graph: `${graph}-missing` } },
    body: { query: 'MATCH (n) RETURN n' },
  });
  if (!missing.error) throw new Error('a read on a graph that does not exist answered a result');

  return {
    people,
    missingGraphStatus: missing.response.status,
    missingGraphMessage: missing.error.message,
    plainRows,
  };
}
