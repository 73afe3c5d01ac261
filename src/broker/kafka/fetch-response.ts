// Fetch v12 with a response reader of Sluice's own: the Kafka client's request, and the client's
// response fields and errors, but each partition's records kept as batches over the response's bytes
// (record-batch.ts) instead of an object per record and field that the fetch then copies out again.
import { createAPI, fetchV12, ResponseError, type Reader } from "@platformatic/kafka";
import { CorruptBatchError, readRecordBatches, type RecordBatch } from "./record-batch.ts";

export interface FetchedPartition {
  partitionIndex: number;
  errorCode: number;
  abortedTransactions: { producerId: bigint; firstOffset: bigint }[] | null;
  records: RecordBatch[] | null;
}

export interface FetchResponse {
  responses: { topicId: string; partitions: FetchedPartition[] }[];
}

/** The response as the client's reader walks it, failing with the same ResponseError for a field's error. */
export function parseFetchResponse(
  _correlationId: number,
  apiKey: number,
  apiVersion: number,
  reader: Reader,
): FetchResponse {
  const errors: [string, [number, null]][] = [];
  reader.readInt32(); // throttle time
  const errorCode = reader.readInt16();
  if (errorCode !== 0) errors.push(["/", [errorCode, null]]);
  reader.readInt32(); // session id
  const response: FetchResponse = {
    responses: reader.readArray((r, i) => {
      const topicId = r.readString();
      return {
        topicId,
        partitions: r.readArray(
          (r, j) => {
            const partitionIndex = r.readInt32();
            const errorCode = r.readInt16();
            r.skip(24); // high watermark, last stable offset, log start offset
            const abortedTransactions = r.readNullableArray((r) => ({
              producerId: r.readInt64(),
              firstOffset: r.readInt64(),
            }));
            r.readInt32(); // preferred read replica
            if (errorCode !== 0) errors.push([`/responses/${i}/partitions/${j}`, [errorCode, null]]);
            const size = r.readUnsignedVarInt() - 1; // compact: length + 1, 0 for null
            let records: RecordBatch[] | null = null;
            if (size > 0) {
              records = batchesOf(r.buffer.slice(r.position, r.position + size), topicId, partitionIndex);
              r.skip(size);
            }
            r.readTaggedFields();
            return { partitionIndex, errorCode, abortedTransactions, records };
          },
          true,
          false,
        ),
      };
    }),
  };
  reader.readTaggedFields();
  if (errors.length > 0) throw new ResponseError(apiKey, apiVersion, Object.fromEntries(errors), response);
  return response;
}

/** A partition's batches; a damaged one fails the fetch with Kafka's consumer's words, naming the partition. */
function batchesOf(bytes: Buffer, topic: string, partition: number): RecordBatch[] {
  try {
    return readRecordBatches(bytes);
  } catch (err) {
    if (!(err instanceof CorruptBatchError)) throw err;
    throw new Error(
      `Record batch for partition ${topic}-${partition} at offset ${err.baseOffset} is invalid, cause: ${err.message}`,
    );
  }
}

export const fetchApi = createAPI<fetchV12.FetchRequest, FetchResponse>(
  fetchV12.api.key,
  fetchV12.api.version,
  fetchV12.createRequest,
  parseFetchResponse,
);
