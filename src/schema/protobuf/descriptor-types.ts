// protobufjs types for google/protobuf/descriptor.proto (from protobufjs's bundled JSON), in a Root
// of our own so that Confluent's meta options (confluent/meta.proto, field 1088 of the *Options
// messages) decode as extensions, as they do in Confluent's EXTENSION_REGISTRY.
import protobuf from "protobufjs";
import descriptorJson from "protobufjs/google/protobuf/descriptor.json";
import { KNOWN_TEXTS, META_FILE } from "./well-known.ts";

let root: protobuf.Root | undefined;

function descriptorRoot(): protobuf.Root {
  if (root === undefined) {
    const r = protobuf.Root.fromJSON(descriptorJson as protobuf.INamespace);
    protobuf.parse(KNOWN_TEXTS.get(META_FILE) as string, r);
    r.resolveAll();
    root = r;
  }
  return root;
}

function fileDescriptorProtoType(): protobuf.Type {
  return descriptorRoot().lookupType("google.protobuf.FileDescriptorProto");
}

/** The JSON definition of google/protobuf/descriptor.proto, for runtime roots. */
export function descriptorNamespaceJson(): protobuf.INamespace {
  return descriptorJson as protobuf.INamespace;
}

// Plain-object views of the descriptor messages (protobufjs toObject with enums as names and
// only the fields present on the wire), covering what Confluent reads.

export interface MetaObject {
  doc?: string;
  params?: Record<string, string>;
  tags?: string[];
  rules?: { name?: string; doc?: string; expr?: string; sql?: string }[];
}

export type OptionsObject = Record<string, unknown>;

export interface FieldDescriptorObject {
  name?: string;
  extendee?: string;
  number?: number;
  label?: string;
  type?: string;
  typeName?: string;
  defaultValue?: string;
  options?: OptionsObject;
  oneofIndex?: number;
  jsonName?: string;
  proto3Optional?: boolean;
}

export interface RangeObject {
  start?: number;
  end?: number;
  options?: OptionsObject;
}

export interface DescriptorObject {
  name?: string;
  field?: FieldDescriptorObject[];
  nestedType?: DescriptorObject[];
  enumType?: EnumDescriptorObject[];
  extensionRange?: RangeObject[];
  extension?: FieldDescriptorObject[];
  options?: OptionsObject;
  oneofDecl?: { name?: string; options?: OptionsObject }[];
  reservedRange?: RangeObject[];
  reservedName?: string[];
}

export interface EnumDescriptorObject {
  name?: string;
  value?: { name?: string; number?: number; options?: OptionsObject }[];
  options?: OptionsObject;
  reservedRange?: RangeObject[];
  reservedName?: string[];
}

export interface ServiceDescriptorObject {
  name?: string;
  method?: {
    name?: string;
    inputType?: string;
    outputType?: string;
    options?: OptionsObject;
    clientStreaming?: boolean;
    serverStreaming?: boolean;
  }[];
  options?: OptionsObject;
}

export interface FileDescriptorObject {
  name?: string;
  package?: string;
  dependency?: string[];
  publicDependency?: number[];
  weakDependency?: number[];
  messageType?: DescriptorObject[];
  enumType?: EnumDescriptorObject[];
  service?: ServiceDescriptorObject[];
  extension?: FieldDescriptorObject[];
  options?: OptionsObject;
  syntax?: string;
}

/** Decodes a serialized FileDescriptorProto; throws on malformed bytes. */
export function decodeFileDescriptor(bytes: Uint8Array): FileDescriptorObject {
  const type = fileDescriptorProtoType();
  return type.toObject(type.decode(bytes), { enums: String, longs: Number, defaults: false }) as FileDescriptorObject;
}

/** Encodes a FileDescriptorProto given as a plain object in the same shape. */
export function encodeFileDescriptor(file: FileDescriptorObject): Uint8Array {
  const type = fileDescriptorProtoType();
  return type.encode(type.fromObject(file as Record<string, unknown>)).finish();
}
