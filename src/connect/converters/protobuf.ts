// io.confluent.connect.protobuf.ProtobufConverter: Connect structs as Protobuf messages in Confluent's
// wire format (message indexes before the payload), with the .proto file ProtobufData derives from
// the Connect schema registered (or looked up) in the registry.
import type protobuf from "protobufjs";
import type { ParsedSettings } from "../../platform/settings.ts";
import type { ParsedSchema } from "../../schema/format.ts";
import {
  decodeMessageIndexes,
  encodeMessageIndexes,
  indexesForMessage,
  messageForIndexes,
  messageTypes,
  type ProtobufParsedSchema,
} from "../../schema/protobuf/index.ts";
import { protobufFramer } from "../../serde/codecs/protobuf.ts";
import { SerializationException } from "../../serde/errors.ts";
import type { Schema } from "../api/data/index.ts";
import type { SchemaAndValue } from "../api/converter.ts";
import { ProtobufData, protobufDataOptions, protobufDataSettings } from "./protobuf-data.ts";
import { RegistryConverter, registryConverterSettings } from "./registry-converter.ts";

export const protobufConverterSettings = registryConverterSettings(protobufDataSettings);

/** The message a writer schema's values are written as, with a framer per schema id. */
interface WriterMessage {
  readonly type: protobuf.Type;
  readonly prefix: Uint8Array;
  readonly framers: Map<number, (message: Record<string, unknown>) => Uint8Array>;
}

interface Converted {
  readonly to: WriterMessage;
  readonly message: Record<string, unknown>;
}

/** A writer schema's message types, each with its Connect schema, by message-index path. */
interface ProtobufReader {
  readonly parsed: ProtobufParsedSchema;
  readonly byIndexes: Map<string, { type: protobuf.Type; schema: Schema }>;
}

export class ProtobufConverter extends RegistryConverter<ProtobufReader, Converted> {
  static readonly className = "io.confluent.connect.protobuf.ProtobufConverter";
  protected readonly schemaType = "PROTOBUF" as const;
  protected readonly formatName = "Protobuf";
  protected readonly settingsDefinition = protobufConverterSettings;
  private data = new ProtobufData();
  /** The root message of each derived schema (what values are written as). */
  private readonly messageNames = new WeakMap<ParsedSchema, string>();
  private readonly writerMessages = new WeakMap<ParsedSchema, WriterMessage>();

  /** The Connect ↔ Protobuf mapping in use (for tests and tools). */
  get protobufData(): ProtobufData {
    return this.data;
  }

  protected configureData(settings: ParsedSettings): void {
    this.data = new ProtobufData(protobufDataOptions(settings));
  }

  protected schemaFor(schema: Schema | null): ParsedSchema {
    if (schema === null)
      throw new SerializationException("The Protobuf converter needs a Connect schema for a non-null value");
    const writer = this.data.fromConnectSchema(schema);
    this.messageNames.set(writer.parsed, writer.messageName);
    return writer.parsed;
  }

  protected convert(schema: Schema | null, writer: ParsedSchema, value: unknown): Converted | null {
    const to = this.writerMessage(writer);
    const message = this.data.fromConnectData(schema!, to.type, value);
    return message === null ? null : { to, message };
  }

  protected framed(id: number, _writer: ParsedSchema, { to, message }: Converted): Uint8Array {
    let framer = to.framers.get(id);
    if (!framer) to.framers.set(id, (framer = protobufFramer(to.type, id, to.prefix)));
    return framer(message);
  }

  private writerMessage(writer: ParsedSchema): WriterMessage {
    let found = this.writerMessages.get(writer);
    if (!found) {
      const parsed = writer as ProtobufParsedSchema;
      // A writer other than the derived schema (use.latest.version) is asked for the same message, else its first.
      const name = this.messageNames.get(writer) ?? this.messageNameIn(parsed);
      const indexes = indexesForMessage(parsed, name);
      found = { type: messageForIndexes(parsed, indexes), prefix: encodeMessageIndexes(indexes), framers: new Map() };
      this.writerMessages.set(writer, found);
    }
    return found;
  }

  protected recordName(schema: ParsedSchema): string | undefined {
    return this.messageNames.get(schema) ?? messageTypes(schema)[0]?.fullName;
  }

  protected reader(writer: ParsedSchema): ProtobufReader {
    return { parsed: writer as ProtobufParsedSchema, byIndexes: new Map() };
  }

  protected decode(reader: ProtobufReader, bytes: Uint8Array, offset: number): SchemaAndValue {
    let indexes: number[];
    let next: number;
    let message: protobuf.Message;
    let entry: { type: protobuf.Type; schema: Schema } | undefined;
    try {
      ({ indexes, next } = decodeMessageIndexes(bytes, offset));
      const key = indexes.join(".");
      entry = reader.byIndexes.get(key);
      if (!entry) {
        const type = messageForIndexes(reader.parsed, indexes);
        entry = { type, schema: this.data.toConnectSchema(reader.parsed, type) };
        reader.byIndexes.set(key, entry);
      }
      // A plain Uint8Array view: protobufjs's Buffer reader does not notice a string cut short.
      message = entry.type.decode(new Uint8Array(bytes.buffer, bytes.byteOffset + next, bytes.length - next));
    } catch (err) {
      if (err instanceof Error && err.name === "DataException") throw err;
      throw new SerializationException(`Error deserializing Protobuf message: ${(err as Error).message}`, err);
    }
    return {
      schema: entry.schema,
      value: this.data.toConnectData(entry.schema, entry.type, message as unknown as Record<string, unknown>),
    };
  }

  private messageNameIn(parsed: ProtobufParsedSchema): string {
    const first = messageTypes(parsed)[0];
    if (!first) throw new SerializationException("The Protobuf schema defines no message");
    return first.fullName;
  }
}
