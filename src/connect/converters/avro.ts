// io.confluent.connect.avro.AvroConverter: Connect data as Avro in Confluent's wire format, with the
// Avro schema AvroData derives from the Connect schema registered (or looked up) in the registry.
// Records are written and read with avsc, configured so that every Connect value survives: unions
// wrapped (the branch is explicit) and longs as bigint (all 64 bits).
import { Type, types } from "avsc";
import { asBuffer } from "../../platform/buffers.ts";
import type { ParsedSettings } from "../../platform/settings.ts";
import type { AvroNode } from "../../schema/avro/model.ts";
import type { AvroParsedSchema } from "../../schema/avro/index.ts";
import type { ParsedSchema } from "../../schema/format.ts";
import { avroCodec, frameAvro } from "../../serde/codecs/avro.ts";
import { SerializationException } from "../../serde/errors.ts";
import { DataException, type Schema } from "../api/data/index.ts";
import { AvroData, avroDataOptions, avroDataSettings } from "./avro-data.ts";
import type { SchemaAndValue } from "../api/converter.ts";
import { RegistryConverter, registryConverterSettings } from "./registry-converter.ts";

export const avroConverterSettings = registryConverterSettings(avroDataSettings);

interface AvroReader {
  readonly root: AvroNode;
  readonly type: Type;
}

export class AvroConverter extends RegistryConverter<AvroReader, unknown> {
  static readonly className = "io.confluent.connect.avro.AvroConverter";
  protected readonly schemaType = "AVRO" as const;
  protected readonly formatName = "Avro";
  protected readonly settingsDefinition = avroConverterSettings;
  private data = new AvroData();

  /** The Connect ↔ Avro mapping in use (for tests and tools). */
  get avroData(): AvroData {
    return this.data;
  }

  protected configureData(settings: ParsedSettings): void {
    this.data = new AvroData(avroDataOptions(settings));
  }

  protected schemaFor(schema: Schema | null): ParsedSchema {
    return this.data.fromConnectSchema(schema);
  }

  protected convert(schema: Schema | null, writer: ParsedSchema, value: unknown): unknown {
    return this.data.fromConnectData(schema, (writer as AvroParsedSchema).root, value);
  }

  protected framed(id: number, writer: ParsedSchema, avroValue: unknown): Uint8Array {
    try {
      return frameAvro(avscType((writer as AvroParsedSchema).root), id, avroValue);
    } catch (err) {
      throw new DataException(`Cannot write the value as Avro: ${(err as Error).message}`, { cause: err });
    }
  }

  protected recordName(schema: ParsedSchema): string | undefined {
    return avroCodec.recordName(schema);
  }

  protected reader(writer: ParsedSchema): AvroReader {
    const root = (writer as AvroParsedSchema).root;
    // Converted once here, so that a schema Connect cannot represent fails before any record.
    this.data.toConnectSchema(root);
    return { root, type: avscType(root) };
  }

  protected decode(reader: AvroReader, bytes: Uint8Array, offset: number): SchemaAndValue {
    const buffer = asBuffer(bytes);
    let result: { value: unknown; offset: number };
    // Payload problems are the deserializer's (SerializationException, reported with the topic).
    try {
      result = reader.type.decode(buffer, offset);
    } catch (err) {
      throw new SerializationException(`Error deserializing Avro message: ${(err as Error).message}`, err);
    }
    if (result.offset < 0) throw new SerializationException("Error deserializing Avro message: truncated payload");
    if (result.offset !== buffer.length)
      throw new SerializationException(
        `Error deserializing Avro message: ${buffer.length - result.offset} bytes after the record`,
      );
    return this.data.toConnectData(reader.root, result.value);
  }
}

/** Avro long as bigint: avsc's own long type stops at 2^53. avsc hands over the 8 little-endian bytes. */
const BIGINT_LONG = types.LongType.__with({
  fromBuffer: (buf: Buffer) => buf.readBigInt64LE(0),
  toBuffer: (n: bigint) => {
    const buf = Buffer.alloc(8);
    buf.writeBigInt64LE(n);
    return buf;
  },
  fromJSON: (json: unknown) => BigInt(json as number | string),
  toJSON: (n: bigint) => Number(n),
  isValid: (n: unknown) => typeof n === "bigint" && BigInt.asIntN(64, n) === n,
  compare: (a: bigint, b: bigint) => (a < b ? -1 : a > b ? 1 : 0),
});

const avscTypes = new WeakMap<AvroNode, Type>();

/** The avsc type reading and writing the values AvroData produces for this schema. */
export function avscType(root: AvroNode): Type {
  let type = avscTypes.get(root);
  if (!type) {
    type = Type.forSchema(toAvsc(root, new Set()) as Parameters<typeof Type.forSchema>[0], {
      wrapUnions: true,
      registry: { long: BIGINT_LONG },
    });
    avscTypes.set(root, type);
  }
  return type;
}

/** The schema as avsc takes it: each named type defined once, later uses by full name; no defaults (values are always complete). */
function toAvsc(node: AvroNode, defined: Set<string>): unknown {
  switch (node.type) {
    case "record":
    case "enum":
    case "fixed": {
      const full = node.name.full;
      // A leading dot keeps a name without namespace out of the enclosing one.
      if (defined.has(full)) return node.name.space === null ? `.${full}` : full;
      defined.add(full);
      const named = { name: node.name.name, namespace: node.name.space ?? "" };
      if (node.type === "enum") return { type: "enum", ...named, symbols: [...node.symbols] };
      if (node.type === "fixed") return { type: "fixed", ...named, size: node.size };
      return {
        type: "record",
        ...named,
        fields: node.fields.map((f) => ({ name: f.name, type: toAvsc(f.type, defined) })),
      };
    }
    case "array":
      return { type: "array", items: toAvsc(node.items, defined) };
    case "map":
      return { type: "map", values: toAvsc(node.values, defined) };
    case "union":
      return node.branches.map((b) => toAvsc(b, defined));
    default:
      return node.type;
  }
}
