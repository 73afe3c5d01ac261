// Big-endian reads over one protocol message, as the PostgreSQL wire protocol lays its fields out.
// Every read checks the bounds so a truncated message fails with its offset instead of garbage.

export class ProtocolError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "ProtocolError";
  }
}

const utf8 = new TextDecoder("utf-8", { fatal: true });
/** Buffer's UTF-8 reader over any Uint8Array, without a view of the range (invalid bytes become U+FFFD). */
const utf8Slice = (Buffer.prototype as unknown as { utf8Slice(this: Uint8Array, start: number, end: number): string })
  .utf8Slice;

/**
 * Reads one message at a time; reset() points it at the next, so a stream of messages needs one
 * reader. Integers up to 32 bits are read from the bytes directly (no DataView per message).
 */
export class WireReader {
  private bytes: Uint8Array;
  private offset = 0;
  /** For 64-bit reads: a view of the whole ArrayBuffer the bytes are in, made when first needed. */
  private view: DataView | null = null;

  constructor(bytes: Uint8Array) {
    this.bytes = bytes;
  }

  /** Reads `bytes` from the start. */
  reset(bytes: Uint8Array): this {
    if (this.view !== null && this.view.buffer !== bytes.buffer) this.view = null;
    this.bytes = bytes;
    this.offset = 0;
    return this;
  }

  get remaining(): number {
    return this.bytes.length - this.offset;
  }

  uint8(): number {
    this.need(1);
    return this.bytes[this.offset++]!;
  }

  int16(): number {
    return (this.uint16() << 16) >> 16;
  }

  int32(): number {
    this.need(4);
    const b = this.bytes;
    const o = this.offset;
    this.offset = o + 4;
    return (b[o]! << 24) | (b[o + 1]! << 16) | (b[o + 2]! << 8) | b[o + 3]!;
  }

  uint32(): number {
    return this.int32() >>> 0;
  }

  int64(): bigint {
    this.need(8);
    const v = this.wholeView().getBigInt64(this.bytes.byteOffset + this.offset);
    this.offset += 8;
    return v;
  }

  uint64(): bigint {
    this.need(8);
    const v = this.wholeView().getBigUint64(this.bytes.byteOffset + this.offset);
    this.offset += 8;
    return v;
  }

  /** One ASCII character, as message and tuple kinds are sent. */
  char(): string {
    return String.fromCharCode(this.uint8());
  }

  bytesOf(length: number): Uint8Array {
    const start = this.skip(length);
    return this.bytes.subarray(start, start + length);
  }

  /** `length` bytes of UTF-8 text, read where they are. */
  text(length: number): string {
    const start = this.skip(length);
    const text = utf8Slice.call(this.bytes, start, start + length);
    // Only text with a U+FFFD (replaced bytes, or one sent as is) is checked strictly.
    if (text.includes("\uFFFD")) return this.decode(this.bytes.subarray(start, start + length));
    return text;
  }

  /** A NUL-terminated UTF-8 string (the protocol's `String`). */
  cstring(): string {
    const end = this.bytes.indexOf(0, this.offset);
    if (end < 0) throw new ProtocolError(`Unterminated string at offset ${this.offset}`);
    const text = this.text(end - this.offset);
    this.offset = end + 1;
    return text;
  }

  /** The rest of the message. */
  rest(): Uint8Array {
    return this.bytesOf(this.remaining);
  }

  decode(bytes: Uint8Array): string {
    try {
      return utf8.decode(bytes);
    } catch {
      throw new ProtocolError(`Invalid UTF-8 near offset ${this.offset} (is client_encoding UTF8?)`);
    }
  }

  /** Fails unless the whole message was read: trailing bytes mean the layout was misread. */
  end(what: string): void {
    if (this.remaining !== 0) throw new ProtocolError(`${this.remaining} unexpected trailing byte(s) after ${what}`);
  }

  private uint16(): number {
    this.need(2);
    const b = this.bytes;
    const o = this.offset;
    this.offset = o + 2;
    return (b[o]! << 8) | b[o + 1]!;
  }

  /** Moves past `length` bytes; where they start. */
  private skip(length: number): number {
    if (length < 0) throw new ProtocolError(`Negative length ${length} at offset ${this.offset}`);
    this.need(length);
    const start = this.offset;
    this.offset += length;
    return start;
  }

  private wholeView(): DataView {
    return (this.view ??= new DataView(this.bytes.buffer));
  }

  private need(n: number): void {
    if (this.offset + n > this.bytes.length)
      throw new ProtocolError(
        `Message truncated: needed ${n} byte(s) at offset ${this.offset} of ${this.bytes.length}`,
      );
  }
}
