// Keys of an incremental snapshot as Debezium keeps them in the offsets (incremental_snapshot_primary_key,
// incremental_snapshot_maximum_key): the key columns' values as a Java Object[] written by
// ObjectOutputStream, in hex. Sluice writes and reads that form, so an offset either connector wrote lets
// the other resume the snapshot. The Java class of a value is the one PgJDBC's getObject() answers for the
// column's type (int2/int4 Integer, int8 Long, uuid UUID, text types String); other types go as String.
export type JavaKind = "Integer" | "Long" | "String" | "UUID";

/** One key value: its Java class and its text as PostgreSQL prints it (null for SQL NULL). */
export interface KeyValue {
  readonly kind: JavaKind;
  readonly text: string | null;
}

const INT2 = 21;
const INT4 = 23;
const INT8 = 20;
const UUID_OID = 2950;

/** The Java class PgJDBC hands a value of this column type as. */
export function javaKindOf(typeOid: number): JavaKind {
  switch (typeOid) {
    case INT2:
    case INT4:
      return "Integer";
    case INT8:
      return "Long";
    case UUID_OID:
      return "UUID";
    default:
      return "String";
  }
}

const MAGIC = [0xac, 0xed, 0x00, 0x05];
const TC_NULL = 0x70;
const TC_REFERENCE = 0x71;
const TC_CLASSDESC = 0x72;
const TC_OBJECT = 0x73;
const TC_STRING = 0x74;
const TC_ARRAY = 0x75;
const TC_ENDBLOCKDATA = 0x78;
const SC_SERIALIZABLE = 0x02;
const BASE_HANDLE = 0x7e0000;

interface ClassDesc {
  readonly name: string;
  readonly uid: bigint;
  readonly fields: readonly { readonly code: string; readonly name: string }[];
  readonly superclass: ClassDesc | null;
}

const NUMBER: ClassDesc = { name: "java.lang.Number", uid: 0x86ac951d0b94e08bn, fields: [], superclass: null };
const CLASSES: Record<Exclude<JavaKind, "String">, ClassDesc> = {
  Integer: {
    name: "java.lang.Integer",
    uid: 0x12e2a0a4f7818738n,
    fields: [{ code: "I", name: "value" }],
    superclass: NUMBER,
  },
  Long: {
    name: "java.lang.Long",
    uid: 0x3b8be490cc8f23dfn,
    fields: [{ code: "J", name: "value" }],
    superclass: NUMBER,
  },
  // Java sorts primitive fields by name: leastSigBits comes first.
  UUID: {
    name: "java.util.UUID",
    uid: 0xbc9903f7986d852fn,
    fields: [
      { code: "J", name: "leastSigBits" },
      { code: "J", name: "mostSigBits" },
    ],
    superclass: null,
  },
};
const OBJECT_ARRAY: ClassDesc = { name: "[Ljava.lang.Object;", uid: 0x90ce589f1073296cn, fields: [], superclass: null };

class Writer {
  private readonly bytes: number[] = [...MAGIC];
  private readonly classHandles = new Map<string, number>();
  private nextHandle = BASE_HANDLE;

  u8(v: number): void {
    this.bytes.push(v & 0xff);
  }
  u16(v: number): void {
    this.u8(v >> 8);
    this.u8(v);
  }
  i32(v: number): void {
    for (let shift = 24; shift >= 0; shift -= 8) this.u8(v >> shift);
  }
  i64(v: bigint): void {
    const u = BigInt.asUintN(64, v);
    for (let shift = 56n; shift >= 0n; shift -= 8n) this.u8(Number((u >> shift) & 0xffn));
  }
  utf(s: string): void {
    const encoded = modifiedUtf8(s);
    this.u16(encoded.length);
    for (const b of encoded) this.u8(b);
  }
  handle(): void {
    this.nextHandle++;
  }
  classDesc(desc: ClassDesc | null): void {
    if (desc === null) return this.u8(TC_NULL);
    const known = this.classHandles.get(desc.name);
    if (known !== undefined) {
      this.u8(TC_REFERENCE);
      this.i32(known);
      return;
    }
    this.u8(TC_CLASSDESC);
    this.utf(desc.name);
    this.i64(desc.uid);
    this.classHandles.set(desc.name, this.nextHandle++);
    this.u8(SC_SERIALIZABLE);
    this.u16(desc.fields.length);
    for (const field of desc.fields) {
      this.u8(field.code.charCodeAt(0));
      this.utf(field.name);
    }
    this.u8(TC_ENDBLOCKDATA);
    this.classDesc(desc.superclass);
  }
  hex(): string {
    return Buffer.from(this.bytes).toString("hex");
  }
}

/** Java's modified UTF-8 (NUL as two bytes; characters outside the BMP as two 3-byte surrogates). */
function modifiedUtf8(s: string): number[] {
  const out: number[] = [];
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c >= 1 && c <= 0x7f) out.push(c);
    else if (c <= 0x7ff) out.push(0xc0 | (c >> 6), 0x80 | (c & 0x3f));
    else out.push(0xe0 | (c >> 12), 0x80 | ((c >> 6) & 0x3f), 0x80 | (c & 0x3f));
  }
  return out;
}

function uuidHalves(text: string): [bigint, bigint] {
  const hex = text.replaceAll("-", "");
  return [BigInt.asIntN(64, BigInt(`0x${hex.slice(0, 16)}`)), BigInt.asIntN(64, BigInt(`0x${hex.slice(16)}`))];
}

/**
 * The key as Debezium stores it: ObjectOutputStream's bytes of the Object[] in lower-case hex; null (no
 * row sent yet, no maximum read yet) is Java's serialized null.
 */
export function encodeKey(values: readonly KeyValue[] | null): string {
  const w = new Writer();
  if (values === null) {
    w.u8(TC_NULL);
    return w.hex();
  }
  w.u8(TC_ARRAY);
  w.classDesc(OBJECT_ARRAY);
  w.handle();
  w.i32(values.length);
  for (const { kind, text } of values) {
    if (text === null) {
      w.u8(TC_NULL);
      continue;
    }
    if (kind === "String") {
      w.u8(TC_STRING);
      w.handle();
      w.utf(text);
      continue;
    }
    w.u8(TC_OBJECT);
    w.classDesc(CLASSES[kind]);
    w.handle();
    if (kind === "Integer") w.i32(Number(text));
    else if (kind === "Long") w.i64(BigInt(text));
    else {
      const [most, least] = uuidHalves(text);
      w.i64(least);
      w.i64(most);
    }
  }
  return w.hex();
}

export class KeyDecodingError extends Error {}

/** Reads a key Debezium or Sluice stored (null for a serialized null); throws KeyDecodingError on what neither writes. */
export function decodeKey(hex: string): KeyValue[] | null {
  const r = new Reader(Buffer.from(hex, "hex"));
  for (const b of MAGIC) if (r.u8() !== b) throw new KeyDecodingError("not a Java serialization stream");
  const array = r.content();
  if (array === null) return null;
  if (!Array.isArray(array)) throw new KeyDecodingError("the stored key is not an array");
  return array as KeyValue[];
}

type Decoded = ClassDesc | KeyValue | KeyValue[] | string | null;

class Reader {
  private at = 0;
  private readonly handles: unknown[] = [];
  constructor(private readonly bytes: Buffer) {}

  u8(): number {
    if (this.at >= this.bytes.length) throw new KeyDecodingError("the stored key ends early");
    return this.bytes[this.at++]!;
  }
  u16(): number {
    return (this.u8() << 8) | this.u8();
  }
  private need(n: number): void {
    if (this.at + n > this.bytes.length) throw new KeyDecodingError("the stored key ends early");
  }
  i32(): number {
    this.need(4);
    const v = this.bytes.readInt32BE(this.at);
    this.at += 4;
    return v;
  }
  i64(): bigint {
    this.need(8);
    const v = this.bytes.readBigInt64BE(this.at);
    this.at += 8;
    return v;
  }
  utf(): string {
    const length = this.u16();
    this.need(length);
    const text = this.bytes.subarray(this.at, this.at + length).toString("utf8");
    this.at += length;
    return text;
  }
  content(): Decoded {
    const tc = this.u8();
    switch (tc) {
      case TC_NULL:
        return null;
      case TC_REFERENCE:
        return this.handles[this.i32() - BASE_HANDLE] as Decoded;
      case TC_STRING: {
        const s = this.utf();
        this.handles.push(s);
        return s;
      }
      case TC_CLASSDESC:
        this.at--;
        return this.classDesc();
      case TC_ARRAY: {
        this.classDesc();
        const out: KeyValue[] = [];
        this.handles.push(out);
        const length = this.i32();
        for (let i = 0; i < length; i++) out.push(this.element(this.content()));
        return out;
      }
      case TC_OBJECT:
        return this.object();
      default:
        throw new KeyDecodingError(`unexpected type code 0x${tc.toString(16)} in the stored key`);
    }
  }
  private element(value: Decoded): KeyValue {
    if (value === null) return { kind: "String", text: null };
    if (typeof value === "string") return { kind: "String", text: value };
    if (!Array.isArray(value) && "kind" in value) return value;
    throw new KeyDecodingError("unexpected element in the stored key");
  }
  private classDesc(): ClassDesc | null {
    const tc = this.u8();
    if (tc === TC_NULL) return null;
    if (tc === TC_REFERENCE) return this.handles[this.i32() - BASE_HANDLE] as ClassDesc;
    if (tc !== TC_CLASSDESC) throw new KeyDecodingError(`expected a class description, found 0x${tc.toString(16)}`);
    const name = this.utf();
    const uid = this.i64();
    const slot = this.handles.length;
    this.handles.push(null);
    this.u8(); // flags
    const fields: { code: string; name: string }[] = [];
    for (let n = this.u16(); n > 0; n--) {
      const code = String.fromCharCode(this.u8());
      const fieldName = this.utf();
      if (code === "L" || code === "[") this.content(); // the field's class name
      fields.push({ code, name: fieldName });
    }
    if (this.u8() !== TC_ENDBLOCKDATA) throw new KeyDecodingError("class annotations are not supported");
    const desc: ClassDesc = { name, uid, fields, superclass: null };
    this.handles[slot] = desc;
    (desc as { superclass: ClassDesc | null }).superclass = this.classDesc();
    return desc;
  }
  private object(): KeyValue {
    const desc = this.classDesc();
    if (desc === null) throw new KeyDecodingError("an object without class");
    const slot = this.handles.length;
    this.handles.push(null);
    const chain: ClassDesc[] = [];
    for (let d: ClassDesc | null = desc; d !== null; d = d.superclass) chain.unshift(d);
    const values = new Map<string, bigint>();
    for (const d of chain)
      for (const f of d.fields) {
        if (f.code === "I") values.set(f.name, BigInt(this.i32()));
        else if (f.code === "J") values.set(f.name, this.i64());
        else if (f.code === "S") values.set(f.name, BigInt((this.u16() << 16) >> 16));
        else throw new KeyDecodingError(`field type ${f.code} of ${d.name} is not supported`);
      }
    const value = keyValueOf(desc.name, values);
    this.handles[slot] = value;
    return value;
  }
}

function keyValueOf(className: string, fields: Map<string, bigint>): KeyValue {
  switch (className) {
    case "java.lang.Integer":
    case "java.lang.Short":
      return { kind: "Integer", text: String(fields.get("value")) };
    case "java.lang.Long":
      return { kind: "Long", text: String(fields.get("value")) };
    case "java.util.UUID": {
      const hex = (v: bigint) => BigInt.asUintN(64, v).toString(16).padStart(16, "0");
      const h = hex(fields.get("mostSigBits")!) + hex(fields.get("leastSigBits")!);
      return {
        kind: "UUID",
        text: `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`,
      };
    }
    default:
      throw new KeyDecodingError(`key values of class ${className} are not supported`);
  }
}
