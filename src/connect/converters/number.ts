// Kafka's primitive converters (org.apache.kafka.connect.converters.{Short,Integer,Long,Float,Double,
// Boolean}Converter): the value in the Kafka serializers' fixed-width big-endian form. Reading gives the
// matching optional schema; writing, like Kafka, ignores the schema and checks only the value.
import { SettingsDefinition } from "../../platform/settings.ts";
import { DataException, javaClassName, acceptsPlain, Schema } from "../api/data/index.ts";
import type { Converter, HeaderConverter, SchemaAndValue } from "../api/converter.ts";

const settings = new SettingsDefinition([
  {
    name: "converter.type",
    type: "string",
    oneOf: ["key", "value", "header"],
    importance: "low",
    doc: "How this converter will be used (set by the runtime).",
  },
]);

interface Codec {
  /** Kafka's name in messages ("integer", "long", ...). */
  typeName: string;
  schema: Schema;
  size: number;
  /** Name of Kafka's deserializer in its size message. */
  deserializer: string;
  accepts(value: unknown): boolean;
  write(view: DataView, value: unknown): void;
  read(view: DataView): unknown;
}

abstract class FixedWidthConverter implements Converter, HeaderConverter {
  protected constructor(private readonly codec: Codec) {}

  configure(): void {}

  config(): SettingsDefinition {
    return settings;
  }

  fromConnectData(_topic: string, _schema: Schema | null, value: unknown): Uint8Array | null {
    if (value === null || value === undefined) return null;
    const { codec } = this;
    if (!codec.accepts(value)) throw this.castError(value);
    const bytes = new Uint8Array(codec.size);
    codec.write(new DataView(bytes.buffer), value);
    return bytes;
  }

  toConnectData(_topic: string, value: Uint8Array | null): SchemaAndValue {
    const { codec } = this;
    if (value === null) return { schema: codec.schema, value: null };
    if (value.length !== codec.size)
      throw this.readError(`Size of data received by ${codec.deserializer} is not ${codec.size}`);
    return { schema: codec.schema, value: codec.read(new DataView(value.buffer, value.byteOffset, value.byteLength)) };
  }

  fromConnectHeader(topic: string, _headerKey: string, schema: Schema | null, value: unknown): Uint8Array | null {
    return this.fromConnectData(topic, schema, value);
  }

  toConnectHeader(topic: string, _headerKey: string, value: Uint8Array | null): SchemaAndValue {
    return this.toConnectData(topic, value);
  }

  close(): void {}

  protected castError(value: unknown): DataException {
    return new DataException(`Failed to serialize to ${this.codec.typeName} (was ${javaClassName(value)}): `);
  }

  protected readError(message: string): DataException {
    return new DataException(`Failed to deserialize ${this.codec.typeName}: `, { cause: new Error(message) });
  }
}

export class ShortConverter extends FixedWidthConverter {
  constructor() {
    super({
      typeName: "short",
      schema: Schema.OPTIONAL_INT16_SCHEMA,
      size: 2,
      deserializer: "ShortDeserializer",
      accepts: (v) => acceptsPlain("INT16", v),
      write: (view, v) => view.setInt16(0, v as number),
      read: (view) => view.getInt16(0),
    });
  }
}

export class IntegerConverter extends FixedWidthConverter {
  constructor() {
    super({
      typeName: "integer",
      schema: Schema.OPTIONAL_INT32_SCHEMA,
      size: 4,
      deserializer: "IntegerDeserializer",
      accepts: (v) => acceptsPlain("INT32", v),
      write: (view, v) => view.setInt32(0, v as number),
      read: (view) => view.getInt32(0),
    });
  }
}

/** Reads bigint; writes a bigint or a safe-integer number. */
export class LongConverter extends FixedWidthConverter {
  constructor() {
    super({
      typeName: "long",
      schema: Schema.OPTIONAL_INT64_SCHEMA,
      size: 8,
      deserializer: "LongDeserializer",
      accepts: (v) => acceptsPlain("INT64", v),
      write: (view, v) => view.setBigInt64(0, BigInt(v as number | bigint)),
      read: (view) => view.getBigInt64(0),
    });
  }
}

export class FloatConverter extends FixedWidthConverter {
  constructor() {
    super({
      typeName: "float",
      schema: Schema.OPTIONAL_FLOAT32_SCHEMA,
      size: 4,
      deserializer: "Deserializer",
      accepts: (v) => typeof v === "number",
      write: (view, v) => view.setFloat32(0, v as number),
      read: (view) => view.getFloat32(0),
    });
  }
}

export class DoubleConverter extends FixedWidthConverter {
  constructor() {
    super({
      typeName: "double",
      schema: Schema.OPTIONAL_FLOAT64_SCHEMA,
      size: 8,
      deserializer: "DoubleDeserializer",
      accepts: (v) => typeof v === "number",
      write: (view, v) => view.setFloat64(0, v as number),
      read: (view) => view.getFloat64(0),
    });
  }
}

/** One byte, 1 or 0; unlike the number converters it checks the schema type too. */
export class BooleanConverter extends FixedWidthConverter {
  constructor() {
    super({
      typeName: "boolean",
      schema: Schema.OPTIONAL_BOOLEAN_SCHEMA,
      size: 1,
      deserializer: "BooleanDeserializer",
      accepts: (v) => typeof v === "boolean",
      write: (view, v) => view.setUint8(0, v ? 1 : 0),
      read: (view) => {
        const b = view.getInt8(0);
        if (b !== 0 && b !== 1)
          throw new DataException("Failed to deserialize boolean: ", {
            cause: new Error(`Unexpected byte received by BooleanDeserializer: ${b}`),
          });
        return b === 1;
      },
    });
  }

  override fromConnectData(topic: string, schema: Schema | null, value: unknown): Uint8Array | null {
    if (schema !== null && schema.type !== "BOOLEAN")
      throw new DataException(`Invalid schema type for BooleanConverter: ${schema.type}`);
    return super.fromConnectData(topic, schema, value);
  }

  protected override castError(value: unknown): DataException {
    return new DataException(`BooleanConverter is not compatible with objects of type ${javaClassName(value)}`);
  }
}
