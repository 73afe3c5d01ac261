// org.apache.kafka.connect.storage.StringConverter: writes the value's Java-style toString() in
// `converter.encoding`, reads bytes as an optional string. Supported encodings are the Java charsets
// UTF-8, UTF-16 (BOM, big-endian), UTF-16BE, UTF-16LE, ISO-8859-1 and US-ASCII, under their Java names
// and common aliases; characters an encoding cannot hold become '?' as in String.getBytes.
import { ConfigError, SettingsDefinition } from "../../platform/settings.ts";
import { javaToString, Schema } from "../api/data/index.ts";
import {
  settingStrings,
  type Converter,
  type ConverterConfig,
  type HeaderConverter,
  type SchemaAndValue,
} from "../api/converter.ts";

type Charset = "UTF-8" | "UTF-16" | "UTF-16BE" | "UTF-16LE" | "ISO-8859-1" | "US-ASCII";

const CHARSET_ALIASES: Record<string, Charset> = {
  "utf-8": "UTF-8",
  utf8: "UTF-8",
  "unicode-1-1-utf-8": "UTF-8",
  "utf-16": "UTF-16",
  utf_16: "UTF-16",
  utf16: "UTF-16",
  unicode: "UTF-16",
  "utf-16be": "UTF-16BE",
  utf_16be: "UTF-16BE",
  "x-utf-16be": "UTF-16BE",
  unicodebigunmarked: "UTF-16BE",
  "utf-16le": "UTF-16LE",
  utf_16le: "UTF-16LE",
  "x-utf-16le": "UTF-16LE",
  unicodelittleunmarked: "UTF-16LE",
  "iso-8859-1": "ISO-8859-1",
  iso8859_1: "ISO-8859-1",
  "iso_8859-1": "ISO-8859-1",
  iso_8859_1: "ISO-8859-1",
  "iso8859-1": "ISO-8859-1",
  "8859_1": "ISO-8859-1",
  latin1: "ISO-8859-1",
  l1: "ISO-8859-1",
  cp819: "ISO-8859-1",
  ibm819: "ISO-8859-1",
  "us-ascii": "US-ASCII",
  ascii: "US-ASCII",
  us: "US-ASCII",
  "iso646-us": "US-ASCII",
  ascii7: "US-ASCII",
  "646": "US-ASCII",
};

function charsetOf(name: string): Charset | undefined {
  return CHARSET_ALIASES[name.trim().toLowerCase()];
}

export const stringConverterSettings = new SettingsDefinition([
  {
    name: "converter.encoding",
    type: "string",
    default: "UTF-8",
    importance: "high",
    doc: "The name of the Java character set to use for encoding strings as byte arrays.",
    validate: (v) =>
      charsetOf(String(v))
        ? undefined
        : `one of the supported encodings ${[...new Set(Object.values(CHARSET_ALIASES))].join(", ")}`,
  },
  {
    name: "converter.type",
    type: "string",
    oneOf: ["key", "value", "header"],
    importance: "low",
    doc: "How this converter will be used (set by the runtime).",
  },
]);

export class StringConverter implements Converter, HeaderConverter {
  private encodeCharset: Charset = "UTF-8";
  private decodeCharset: Charset = "UTF-8";

  configure(config: ConverterConfig, isKey = false): void {
    const settings = stringConverterSettings.parse(
      settingStrings({ ...config, "converter.type": isKey ? "key" : "value" }),
    ).values;
    const encoding = settings.string("converter.encoding");
    // As in Kafka, the (de)serializer's own key./value. settings win over converter.encoding.
    const side = isKey ? "key" : "value";
    this.encodeCharset =
      resolve(config[`${side}.serializer.encoding`], `${side}.serializer.encoding`) ?? charsetOf(encoding)!;
    this.decodeCharset =
      resolve(config[`${side}.deserializer.encoding`], `${side}.deserializer.encoding`) ?? charsetOf(encoding)!;
  }

  config(): SettingsDefinition {
    return stringConverterSettings;
  }

  fromConnectData(_topic: string, schema: Schema | null, value: unknown): Uint8Array | null {
    if (value === null || value === undefined) return null;
    return encode(javaToString(value, schema), this.encodeCharset);
  }

  toConnectData(_topic: string, value: Uint8Array | null): SchemaAndValue {
    return { schema: Schema.OPTIONAL_STRING_SCHEMA, value: value === null ? null : decode(value, this.decodeCharset) };
  }

  fromConnectHeader(topic: string, _headerKey: string, schema: Schema | null, value: unknown): Uint8Array | null {
    return this.fromConnectData(topic, schema, value);
  }

  toConnectHeader(topic: string, _headerKey: string, value: Uint8Array | null): SchemaAndValue {
    return this.toConnectData(topic, value);
  }

  close(): void {}
}

function resolve(value: string | number | boolean | undefined, setting: string): Charset | undefined {
  if (typeof value !== "string") return undefined;
  const charset = charsetOf(value);
  if (!charset)
    throw new ConfigError(
      setting,
      value,
      "a supported encoding (UTF-8, UTF-16, UTF-16BE, UTF-16LE, ISO-8859-1, US-ASCII)",
    );
  return charset;
}

const utf8Encoder = new TextEncoder();
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;

export function encode(text: string, charset: Charset): Uint8Array {
  switch (charset) {
    case "UTF-8":
      // Java's encoder writes '?' for a lone surrogate where TextEncoder would write U+FFFD.
      return utf8Encoder.encode(text.isWellFormed() ? text : text.replace(LONE_SURROGATE, "?"));
    case "UTF-16":
    case "UTF-16BE":
    case "UTF-16LE": {
      const wellFormed = text.toWellFormed();
      const bom = charset === "UTF-16" ? 2 : 0;
      const bytes = new Uint8Array(bom + wellFormed.length * 2);
      const view = new DataView(bytes.buffer);
      if (bom) view.setUint16(0, 0xfeff);
      for (let i = 0; i < wellFormed.length; i++)
        view.setUint16(bom + i * 2, wellFormed.charCodeAt(i), charset === "UTF-16LE");
      return bytes;
    }
    case "ISO-8859-1":
    case "US-ASCII": {
      const limit = charset === "US-ASCII" ? 0x7f : 0xff;
      const bytes: number[] = [];
      for (const ch of text) {
        const c = ch.codePointAt(0)!;
        bytes.push(c <= limit ? c : 0x3f);
      }
      return Uint8Array.from(bytes);
    }
  }
}

export function decode(bytes: Uint8Array, charset: Charset): string {
  switch (charset) {
    case "UTF-8":
      return new TextDecoder("utf-8", { ignoreBOM: true }).decode(bytes);
    case "UTF-16": {
      // Java's UTF-16 decoder honours and drops a BOM, and defaults to big-endian.
      if (bytes[0] === 0xff && bytes[1] === 0xfe)
        return new TextDecoder("utf-16le", { ignoreBOM: true }).decode(bytes.subarray(2));
      if (bytes[0] === 0xfe && bytes[1] === 0xff)
        return new TextDecoder("utf-16be", { ignoreBOM: true }).decode(bytes.subarray(2));
      return new TextDecoder("utf-16be", { ignoreBOM: true }).decode(bytes);
    }
    case "UTF-16BE":
      return new TextDecoder("utf-16be", { ignoreBOM: true }).decode(bytes);
    case "UTF-16LE":
      return new TextDecoder("utf-16le", { ignoreBOM: true }).decode(bytes);
    case "ISO-8859-1":
      return Array.from(bytes, (b) => String.fromCharCode(b)).join("");
    case "US-ASCII":
      return Array.from(bytes, (b) => (b < 0x80 ? String.fromCharCode(b) : "\ufffd")).join("");
  }
}
