// The Kafka client's Producer with Produce requests whose record batches Sluice writes itself
// (record-batch.ts). The client keeps everything else: the idempotent producer's id and sequences,
// transactions, retries and leaders. It asks its base for each API by name, which is where this steps in.
import {
  createAPI,
  kGetApi,
  Producer as LibraryProducer,
  ProduceAcks,
  produceV9,
  produceV10,
  produceV11,
  Writer,
  type API,
  type Callback,
  type Connection,
  type CreateRecordsBatchOptions,
  type MessageRecord,
} from "@platformatic/kafka";
import { promisify } from "node:util";
import { encodeRecordBatch } from "./record-batch.ts";

type ProduceOptions = Partial<CreateRecordsBatchOptions>;
type ProduceApi = API<[number | undefined, number | undefined, MessageRecord[], ProduceOptions?], unknown>;

/**
 * Versions 9–11 share one request layout (flexible: compact strings and arrays, tagged fields): per
 * version, an API that writes Sluice's request, or the client's for a compressed produce (the client
 * compresses gzip off the thread). A broker that offers none of these versions keeps the client's API.
 */
const FLEXIBLE_PRODUCE = new Map(
  [produceV9, produceV10, produceV11].map((v) => {
    const own = createAPI(v.api.key, v.api.version, createRequest, v.parseResponse) as ProduceApi;
    const library = v.api as ProduceApi;
    const api = ((connection: Connection, ...args: unknown[]) => {
      const options = args[3]; // (the callback, when the options are left out)
      const compressed =
        typeof options === "object" &&
        options !== null &&
        ((options as ProduceOptions).compression ?? "none") !== "none";
      (compressed ? library : own)(connection, ...(args as [number, number, MessageRecord[]]));
    }) as ProduceApi;
    return [v.api.version, Object.assign(api, { async: promisify(api), key: own.key, version: own.version })];
  }),
);

export class Producer extends LibraryProducer {
  override [kGetApi]<RequestArguments extends Array<unknown>, ResponseType>(
    name: string,
    callback: Callback<API<RequestArguments, ResponseType>>,
  ): void {
    if (name !== "Produce") return super[kGetApi](name, callback);
    super[kGetApi]<RequestArguments, ResponseType>(name, (error, library) => {
      const own = library && FLEXIBLE_PRODUCE.get(library.version);
      if (error || !own) callback(error, library);
      else callback(null, own as unknown as API<RequestArguments, ResponseType>);
    });
  }
}

/**
 * A Produce request (v9–v11): transactional id, acks, timeout, then per topic and partition one record
 * batch, in the order the messages name them.
 */
export function createRequest(acks = 1, timeout = 0, messages: MessageRecord[], options: ProduceOptions = {}): Writer {
  const topics = new Map<string, Map<number, MessageRecord[]>>();
  for (const m of messages) {
    let partitions = topics.get(m.topic);
    if (!partitions) topics.set(m.topic, (partitions = new Map()));
    const partition = m.partition ?? 0;
    const list = partitions.get(partition);
    if (list) list.push(m);
    else partitions.set(partition, [m]);
  }
  const now = Date.now();
  const writer = Writer.create()
    .appendString(options.transactionalId)
    .appendInt16(acks)
    .appendInt32(timeout)
    .appendArray([...topics], (w, [topic, partitions]) => {
      w.appendString(topic).appendArray([...partitions], (w, [partition, records]) => {
        const batch = encodeRecordBatch(
          records,
          {
            producerId: options.producerId ?? -1n,
            producerEpoch: options.producerEpoch ?? 0,
            firstSequence: options.sequences?.getWithDefault(`${topic}:${partition}`, 0) ?? 0,
            transactional: !!options.transactionalId,
          },
          now,
        );
        w.appendInt32(partition)
          .appendUnsignedVarInt(batch.length + 1)
          .append(batch);
      });
    })
    .appendTaggedFields();
  if (acks === ProduceAcks.NO_RESPONSE) writer.context.noResponse = true;
  return writer;
}
