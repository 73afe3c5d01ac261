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
  type CreateRecordsBatchOptions,
  type MessageRecord,
} from "@platformatic/kafka";
import { encodeRecordBatch } from "./record-batch.ts";

type ProduceOptions = Partial<CreateRecordsBatchOptions>;
type ProduceApi = API<[number | undefined, number | undefined, MessageRecord[], ProduceOptions?], unknown>;

/**
 * Versions 9–11 share one request layout (flexible: compact strings and arrays, tagged fields); a broker
 * that offers none of them, and a compressed produce, keep the client's own request.
 */
const FLEXIBLE_PRODUCE = new Map(
  [produceV9, produceV10, produceV11].map((v) => [
    v.api.version,
    createAPI(v.api.key, v.api.version, createRequest, v.parseResponse) as ProduceApi,
  ]),
);

export class Producer extends LibraryProducer {
  override [kGetApi]<RequestArguments extends Array<unknown>, ResponseType>(
    name: string,
    callback: Callback<API<RequestArguments, ResponseType>>,
  ): void {
    if (name !== "Produce") return super[kGetApi](name, callback);
    super[kGetApi]<RequestArguments, ResponseType>(name, (error, library) => {
      const own = library && FLEXIBLE_PRODUCE.get(library.version);
      if (error || !own) return callback(error, library);
      callback(null, choosing(own, library as unknown as ProduceApi) as unknown as API<RequestArguments, ResponseType>);
    });
  }
}

/** Sluice's request, or the library's for a compressed produce (it compresses gzip off the thread). */
function choosing(own: ProduceApi, library: ProduceApi): ProduceApi {
  const api = ((connection, acks, timeout, messages, options, callback) => {
    const compressed = options?.compression !== undefined && options.compression !== "none";
    (compressed ? library : own)(connection, acks, timeout, messages, options, callback);
  }) as ProduceApi;
  return Object.assign(api, { async: own.async, key: own.key, version: own.version });
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
