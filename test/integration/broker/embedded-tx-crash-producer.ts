// Child process for the embedded broker's transaction crash test: three transactional producers run
// transactions forever, each writing TX_RECORDS records to topic A (two partitions, shared by all) and one
// matching record to topic B, until the parent kills it with SIGKILL. Every fifth transaction is aborted.
// Prints `commit <txn>` once a commit resolved. Values are large enough that kill -9 often lands mid-write.
import { EmbeddedBroker } from "#src/broker/embedded/index.ts";

export const TX_TOPIC_A = "tx-a";
export const TX_TOPIC_B = "tx-b";
export const TX_RECORDS = 4;

/** `<run>-<producer>-<seq>`: unique over the restarts of one test. */
export function txnName(run: number, producer: number, seq: number): string {
  return `${run}-${producer}-${seq}`;
}

/** Whether the transaction is one the child aborts. */
export function isAborted(txn: string): boolean {
  return Number(txn.split("-")[2]) % 5 === 4;
}

export function txValue(txn: string, index: number): Uint8Array {
  return new TextEncoder().encode(`${txn}/${index}/`.padEnd(200 + ((index * 997) % 3000), "x"));
}

if (import.meta.main) {
  const dataDir = process.argv[2]!;
  const run = Number(process.argv[3]);
  const broker = new EmbeddedBroker({ dataDir });
  await broker.connect();
  await broker.createTopic({ name: TX_TOPIC_A, partitions: 2, replicationFactor: 1 });
  await broker.createTopic({ name: TX_TOPIC_B, partitions: 1, replicationFactor: 1 });
  process.stdout.write("ready\n");
  const enc = new TextEncoder();
  const producer = async (index: number): Promise<never> => {
    const tx = await broker.transactionalProducer(`crash-${index}`);
    for (let seq = 0; ; seq++) {
      const txn = txnName(run, index, seq);
      const records = Array.from({ length: TX_RECORDS }, (_, i) => ({
        key: enc.encode(`${txn}/${i}`),
        value: txValue(txn, i),
      }));
      await tx.produce(TX_TOPIC_A, records);
      await tx.produce(TX_TOPIC_B, [{ key: enc.encode(txn), value: enc.encode(txn) }]);
      if (isAborted(txn)) await tx.abort();
      else {
        await tx.commit();
        process.stdout.write(`commit ${txn}\n`);
      }
    }
  };
  await Promise.all([0, 1, 2].map(producer));
}
