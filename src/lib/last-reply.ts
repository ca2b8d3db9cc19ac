// A response body written from a database reply, kept with that reply: for reads whose replies change far less
// often than they are asked (GRAPH.CONFIG GET *, ACL LIST), comparing a reply with the last costs a fraction of
// writing it again, and of the garbage writing leaves.

/**
 * `write`, which must be a function of the reply alone, answered again without writing while each reply equals the
 * last one given (`same`). Only the last reply is kept: replies from several databases in turn are each written.
 */
export function writtenOncePerReply<R>(
  write: (reply: R) => string,
  same: (reply: R, last: R) => boolean,
): (reply: R) => string {
  let last: { reply: R; text: string } | undefined;
  return (reply) => {
    if (last === undefined || !same(reply, last.reply)) last = { reply, text: write(reply) };
    return last.text;
  };
}

/** Same length and, in order, the same items by `===` (numbers and text by value, anything else by identity). */
export function sameItems(a: readonly unknown[], b: readonly unknown[]): boolean {
  if (a.length !== b.length) return false;
  for (let index = 0; index < a.length; index++) if (a[index] !== b[index]) return false;
  return true;
}
