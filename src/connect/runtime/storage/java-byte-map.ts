// The file format of Kafka Connect's FileOffsetBackingStore: an ObjectOutputStream holding one
// java.util.HashMap<byte[], byte[]> (Java Object Serialization Specification, chapter 6). Only that
// subset is read and written, so a standalone offsets file moves between Kafka Connect and Sluice.

const MAGIC = 0xaced;
const VERSION = 5;
const TC_NULL = 0x70;
const TC_REFERENCE = 0x71;
const TC_CLASSDESC = 0x72;
const TC_OBJECT = 0x73;
const TC_ARRAY = 0x75;
const TC_BLOCKDATA = 0x77;
const TC_ENDBLOCKDATA = 0x78;
const BASE_HANDLE = 0x7e0000;
const SC_WRITE_METHOD = 0x01;
const SC_SERIALIZABLE = 0x02;

// The serialVersionUIDs Java gives these classes (HashMap declares its own; byte[]'s is computed).
const HASH_MAP_UID = 362498820763181265n;
const BYTE_ARRAY_UID = -5984413125824719648n;
const LOAD_FACTOR = 0.75;
const PRIMITIVE_SIZES: Record<string, number> = { B: 1, C: 2, D: 8, F: 4, I: 4, J: 8, S: 2, Z: 1 };

export type ByteMapEntry = [key: Uint8Array | null, value: Uint8Array | null];

/** Whether `bytes` start as a Java serialization stream does. */
export const isJavaSerialized = (bytes: Uint8Array) => bytes.length >= 2 && bytes[0] === 0xac && bytes[1] === 0xed;

interface ClassDesc {
  name: string;
  fields: string[]; // type codes, in stream order
}

/** The entries of a serialized HashMap<byte[], byte[]>; throws naming the byte where it is not one. */
export function decodeByteMap(bytes: Uint8Array): ByteMapEntry[] {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const handles: unknown[] = [];
  let at = 0;
  const fail = (what: string): never => {
    throw new Error(`not a Java-serialized HashMap of byte arrays: ${what} at byte ${at}`);
  };
  /** The position of the next `n` bytes, moving past them. */
  const next = (n: number) => (at + n > bytes.length || n < 0 ? fail("the stream ends early") : (at += n) - n);
  const u8 = () => view.getUint8(next(1));
  const u16 = () => view.getUint16(next(2));
  const i32 = () => view.getInt32(next(4));
  const take = (n: number) => bytes.subarray(next(n), at);
  const utf = () => new TextDecoder().decode(take(u16()));
  const expect = (tag: number, what: string) => (u8() === tag ? undefined : (at--, fail(`expected ${what}`)));
  const referenced = () => handles[i32() - BASE_HANDLE] ?? fail("a reference to nothing");

  function classDesc(): ClassDesc | null {
    const tag = u8();
    if (tag === TC_NULL) return null;
    if (tag === TC_REFERENCE) return referenced() as ClassDesc;
    if (tag !== TC_CLASSDESC) return (at--, fail("expected a class description"));
    const name = utf();
    take(8); // serialVersionUID
    const desc: ClassDesc = { name, fields: [] };
    handles.push(desc);
    u8(); // flags: HashMap's say it writes its entries itself, which the reading below follows
    for (let n = u16(); n > 0; n--) {
      const type = String.fromCharCode(u8());
      utf(); // field name
      if (!(type in PRIMITIVE_SIZES)) fail(`a field of object type in ${name}`);
      desc.fields.push(type);
    }
    expect(TC_ENDBLOCKDATA, `the end of ${name}'s annotations`);
    if (classDesc() !== null) fail(`a serializable superclass of ${name}`);
    return desc;
  }

  function byteArray(): Uint8Array | null {
    const tag = u8();
    if (tag === TC_NULL) return null;
    if (tag === TC_REFERENCE) {
      const array = referenced();
      return array instanceof Uint8Array ? array : fail("a reference to something other than a byte array");
    }
    if (tag !== TC_ARRAY) return (at--, fail("expected a byte array"));
    if (classDesc()?.name !== "[B") fail("an array of something other than bytes");
    const array = take(i32()).slice();
    handles.push(array);
    return array;
  }

  if (u16() !== MAGIC || u16() !== VERSION) (at = 0), fail("no Java serialization header");
  expect(TC_OBJECT, "an object");
  const map = classDesc();
  if (map?.name !== "java.util.HashMap") fail(`a ${map?.name ?? "null"} instead of a java.util.HashMap`);
  handles.push(map);
  for (const type of map!.fields) take(PRIMITIVE_SIZES[type]!); // loadFactor, threshold: not needed to read
  expect(TC_BLOCKDATA, "HashMap's capacity and size");
  if (u8() !== 8) fail("HashMap's capacity and size");
  i32(); // capacity
  const size = i32();
  const entries: ByteMapEntry[] = [];
  for (let i = 0; i < size; i++) entries.push([byteArray(), byteArray()]);
  expect(TC_ENDBLOCKDATA, "the end of the HashMap");
  return entries;
}

/** `entries` as Java's ObjectOutputStream writes a HashMap<byte[], byte[]> holding them. */
export function encodeByteMap(entries: ByteMapEntry[]): Uint8Array {
  const out: number[] = [];
  const u8 = (...values: number[]) => out.push(...values);
  const u16 = (v: number) => u8(v >>> 8, v & 0xff);
  const i32 = (v: number) => u8((v >>> 24) & 0xff, (v >>> 16) & 0xff, (v >>> 8) & 0xff, v & 0xff);
  const i64 = (v: bigint) => (i32(Number(BigInt.asIntN(32, v >> 32n))), i32(Number(BigInt.asIntN(32, v))));
  const utf = (s: string) => {
    const encoded = new TextEncoder().encode(s); // class and field names: ASCII, where modified UTF-8 is UTF-8
    u16(encoded.length), u8(...encoded);
  };

  // A HashMap grown by put from the default 16 buckets: its capacity and resize threshold, as Java writes them.
  let capacity = 16;
  while (entries.length > capacity * LOAD_FACTOR) capacity *= 2;
  const threshold = entries.length === 0 ? 0 : capacity * LOAD_FACTOR;

  u16(MAGIC), u16(VERSION);
  u8(TC_OBJECT, TC_CLASSDESC), utf("java.util.HashMap"), i64(HASH_MAP_UID);
  u8(SC_SERIALIZABLE | SC_WRITE_METHOD), u16(2);
  u8("F".charCodeAt(0)), utf("loadFactor");
  u8("I".charCodeAt(0)), utf("threshold");
  u8(TC_ENDBLOCKDATA, TC_NULL);
  const floats = new DataView(new ArrayBuffer(4));
  floats.setFloat32(0, LOAD_FACTOR);
  u8(...new Uint8Array(floats.buffer)), i32(threshold);
  u8(TC_BLOCKDATA, 8), i32(capacity), i32(entries.length);
  // Handles: 0 the HashMap class, 1 the map, 2 the byte[] class, then each array.
  let arrayClassWritten = false;
  const byteArray = (array: Uint8Array | null) => {
    if (array === null) return u8(TC_NULL);
    u8(TC_ARRAY);
    if (arrayClassWritten) u8(TC_REFERENCE), i32(BASE_HANDLE + 2);
    else u8(TC_CLASSDESC), utf("[B"), i64(BYTE_ARRAY_UID), u8(SC_SERIALIZABLE), u16(0), u8(TC_ENDBLOCKDATA, TC_NULL);
    arrayClassWritten = true;
    i32(array.length);
    for (const b of array) out.push(b);
  };
  for (const [key, value] of entries) byteArray(key), byteArray(value);
  u8(TC_ENDBLOCKDATA);
  return Uint8Array.from(out);
}
