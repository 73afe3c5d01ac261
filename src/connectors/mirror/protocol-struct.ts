// The fixed-width fields of Kafka's protocol Struct schemas (org.apache.kafka.common.protocol.types),
// which MM2's heartbeat and checkpoint records are written with: INT16, INT32 and INT64 big-endian,
// STRING as an int16 byte length then UTF-8 (a null STRING is refused, as Kafka's non-nullable type).

export type StructField = ["int16" | "int32", number] | ["int64", number] | ["string", string];

const encoder = new TextEncoder();
const decoder = new TextDecoder("utf-8", { fatal: true });

/** A record of one of MM2's internal topics that Kafka's reader would refuse (its SchemaException). */
export class StructFormatError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "StructFormatError";
  }
}

/** The fields, one after the other, as Schema.write lays them out. */
export function writeStruct(fields: StructField[]): Uint8Array {
  const parts = fields.map(([type, value]) => (type === "string" ? encoder.encode(value) : undefined));
  let size = 0;
  fields.forEach(([type], i) => {
    size += type === "int16" ? 2 : type === "int32" ? 4 : type === "int64" ? 8 : 2 + parts[i]!.length;
  });
  const out = new Uint8Array(size);
  const view = new DataView(out.buffer);
  let at = 0;
  fields.forEach(([type, value], i) => {
    if (type === "int16") view.setInt16(at, value as number), (at += 2);
    else if (type === "int32") view.setInt32(at, value as number), (at += 4);
    else if (type === "int64") view.setBigInt64(at, BigInt(value as number)), (at += 8);
    else {
      const bytes = parts[i]!;
      if (bytes.length > 0x7fff) throw new StructFormatError(`string of ${bytes.length} bytes is longer than 32767`);
      view.setInt16(at, bytes.length);
      out.set(bytes, at + 2);
      at += 2 + bytes.length;
    }
  });
  return out;
}

/** Reads fields in order from bytes, as Schema.read does; every read checks the bytes are there. */
export class StructReader {
  private at = 0;
  private readonly view: DataView;
  constructor(
    private readonly bytes: Uint8Array,
    private readonly what: string,
  ) {
    this.view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  }
  int16(field: string): number {
    this.need(2, field);
    const v = this.view.getInt16(this.at);
    this.at += 2;
    return v;
  }
  int32(field: string): number {
    this.need(4, field);
    const v = this.view.getInt32(this.at);
    this.at += 4;
    return v;
  }
  int64(field: string): number {
    this.need(8, field);
    const v = Number(this.view.getBigInt64(this.at));
    this.at += 8;
    return v;
  }
  string(field: string): string {
    const length = this.int16(field);
    if (length < 0) throw new StructFormatError(`${this.what}: ${field} is null`);
    this.need(length, field);
    try {
      return decoder.decode(this.bytes.subarray(this.at, this.at + length));
    } catch {
      throw new StructFormatError(`${this.what}: ${field} is not UTF-8`);
    } finally {
      this.at += length;
    }
  }
  private need(bytes: number, field: string): void {
    if (this.at + bytes > this.bytes.length)
      throw new StructFormatError(`${this.what}: too short for ${field} (${this.bytes.length} bytes)`);
  }
}
