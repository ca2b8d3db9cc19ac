"""A client developer's session with the Python client generated from openapi/openapi.json by openapi-python-client.

Run by test/clients/python-client.test.ts, which generates the client as the package `graphdb_client`, puts it on
PYTHONPATH, type-checks this file with mypy --strict and then runs it against a real server:

    python session.py BASE_URL LOGIN_JSON GRAPH

It uses only the generated functions and models (no HTTP of its own) and prints one JSON object saying what it read.
"""

from __future__ import annotations

import json
import sys
from typing import TypedDict

from graphdb_client import AuthenticatedClient, Client
from graphdb_client.api.graphs import create_graph, run_query_from_body
from graphdb_client.api.tokens import create_token, list_tokens
from graphdb_client.models import (
    BrowserError,
    CreateTokenBody,
    CreateTokenResponse200,
    CreateGraphResponse200,
    ListTokensResponse200,
    QueryRequestInput,
    QueryRequestInputParams,
    QueryResult,
    TypedInteger,
    TypedList,
    TypedNode,
    TypedProperties,
    TypedQueryResult,
    TypedRelationship,
    TypedRow,
    TypedString,
    ValueFormatInput,
)


class Login(TypedDict):
    username: str
    password: str
    host: str
    port: int


class Person(TypedDict):
    name: str
    labels: list[str]
    born: int
    friends: list[str]
    since: int
    knows: str
    big: str


def text(value: object) -> str:
    if not isinstance(value, TypedString):
        raise TypeError(f"expected a typed string, got {value!r}")
    return value.value


def integer(value: object) -> int:
    if not isinstance(value, TypedInteger):
        raise TypeError(f"expected a typed integer, got {value!r}")
    return int(value.value)


def column(row: TypedRow | TypedProperties, key: str) -> object:
    if key not in row:
        raise KeyError(f"no {key!r} in {row.to_dict()!r}")
    return row[key]


def person(row: TypedRow) -> Person:
    node = column(row, "p")
    knows = column(row, "k")
    friends = column(row, "friends")
    if not isinstance(node, TypedNode):
        raise TypeError(f"p is not a node: {node!r}")
    if not isinstance(knows, TypedRelationship):
        raise TypeError(f"k is not a relationship: {knows!r}")
    if not isinstance(friends, TypedList):
        raise TypeError(f"friends is not a list: {friends!r}")
    if knows.source_id != node.id:
        raise ValueError("k does not start at p")
    return {
        "name": text(column(node.properties, "name")),
        "labels": node.labels,
        "born": integer(column(node.properties, "born")),
        "friends": [text(friend) for friend in friends.value],
        "since": integer(column(knows.properties, "since")),
        "knows": knows.relationship_type,
        "big": str(integer(column(row, "big"))),  # as digits: JSON readers may round it
    }


def run_session(base_url: str, login: Login, graph: str) -> dict[str, object]:
    # The browser API's token flow: database credentials in, a signed personal access token out.
    anonymous = Client(base_url=base_url, raise_on_unexpected_status=True)
    created = create_token.sync(
        client=anonymous,
        body=CreateTokenBody(
            username=login["username"],
            password=login["password"],
            host=login["host"],
            # The typed forms; the browser API's strings ("6379", "false") are accepted too.
            port=login["port"],
            tls=False,
            name="python client",
        ),
    )
    if not isinstance(created, CreateTokenResponse200):
        raise RuntimeError(f"token: {created!r}")

    client = AuthenticatedClient(base_url=base_url, token=created.token, raise_on_unexpected_status=True)
    tokens = list_tokens.sync(client=client)
    if not isinstance(tokens, ListTokensResponse200):
        raise RuntimeError(f"list tokens: {tokens!r}")
    token_names = [token.name for token in tokens.tokens]

    made = create_graph.sync(graph, client=client)
    if not isinstance(made, CreateGraphResponse200):
        raise RuntimeError(f"create graph: {made!r}")

    # A parameterised write through the body form, plain values.
    written = run_query_from_body.sync(
        graph,
        client=client,
        body=QueryRequestInput(
            query="CREATE (:Person {name: $name, born: $born})-[:KNOWS {since: $since}]->(:Person {name: $friend})"
            " RETURN $name AS name, $born AS born",
            params=QueryRequestInputParams.from_dict({"name": "Ada", "born": 1815, "since": 1833, "friend": "Charles"}),
            timeout=5000,
        ),
    )
    if not isinstance(written, QueryResult):
        raise RuntimeError(f"write: {written!r}")
    plain_rows = [row.to_dict() for row in written.data]

    # A parameterised read asking for typed values: nodes, relationships, lists, integers beyond 2^53.
    read = run_query_from_body.sync(
        graph,
        client=client,
        body=QueryRequestInput(
            query="MATCH (p:Person {name: $name})-[k:KNOWS]->(f:Person)"
            " RETURN p, k, collect(f.name) AS friends, 9007199254740993 AS big",
            params=QueryRequestInputParams.from_dict({"name": "Ada"}),
            format_=ValueFormatInput.TYPED,
            max_rows=10,
        ),
    )
    if not isinstance(read, TypedQueryResult):
        raise RuntimeError(f"typed read: {read!r}")
    people = [person(row) for row in read.data]

    # An error, read from the API's error shape.
    missing = run_query_from_body.sync_detailed(
        f"{graph}-missing", client=client, body=QueryRequestInput(query="MATCH (n) RETURN n")
    )
    if not isinstance(missing.parsed, BrowserError):
        raise RuntimeError(f"a read on a graph that does not exist answered {missing.parsed!r}")

    return {
        "tokenNames": token_names,
        "plainRows": plain_rows,
        "people": people,
        "missingGraphStatus": int(missing.status_code),
        "missingGraphMessage": missing.parsed.message,
    }


def main() -> None:
    base_url, login, graph = sys.argv[1], json.loads(sys.argv[2]), sys.argv[3]
    print(json.dumps(run_session(base_url, login, graph)))


if __name__ == "__main__":
    main()
