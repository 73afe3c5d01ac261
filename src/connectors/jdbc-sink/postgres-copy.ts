// COPY … FROM STDIN on a postgres.js connection, settled by the server's answer. postgres.js 3.4.9 leaves
// the writable's final callback pending when the server rejects the data after the last chunk
// (porsager/postgres#1173): the error reaches only the query's own reject, called after the query was
// resolved with the stream, so awaiting the stream alone would hang the transaction for good. The
// rejection is listened for there as well.
import type postgres from "postgres";
import type { Writable } from "node:stream";

interface CopyQuery {
  reject(err: unknown): void;
  writable(): Promise<Writable>;
}

export async function copyIn(
  sql: postgres.Sql | postgres.TransactionSql,
  statement: string,
  data: string,
): Promise<void> {
  const query = sql.unsafe(statement) as unknown as CopyQuery;
  let refused!: (err: unknown) => void;
  const refusal = new Promise<never>((_, reject) => {
    refused = reject;
  });
  refusal.catch(() => {}); // a failure before the stream exists is thrown by writable() itself
  const reject = query.reject;
  query.reject = (err) => {
    refused(err);
    reject(err);
  };
  const stream = await query.writable();
  const finished = new Promise<void>((resolve, reject) => {
    stream.once("finish", resolve);
    stream.once("error", reject);
  });
  stream.end(data);
  await Promise.race([finished, refusal]);
}
