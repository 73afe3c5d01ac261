// Big-endian reads over one protocol message, as the PostgreSQL wire protocol lays its fields out.
// Every read checks the bounds so a truncated message fails with its offset instead of garbage.

export class ProtocolError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "ProtocolError";
  }
}

const utf8 = new TextDecoder("utf-8", { fatal: true });

export class WireReader {
  private readonly view: DataView;
  private offset = 0;

  constructor(private readonly bytes: Uint8Array) {
    this.view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  }

  get remaining(): number {
    return this.bytes.length - this.offset;
  }

  uint8(): number {
    this.need(1);
    return this.view.getUint8(this.offset++);
  }

  int16(): number {
    this.need(2);
    const v = this.view.getInt16(this.offset);
    this.offset += 2;
    return v;
  }

  int32(): number {
    this.need(4);
    const v = this.view.getInt32(this.offset);
    this.offset += 4;
    return v;
  }

  uint32(): number {
    this.need(4);
    const v = this.view.getUint32(this.offset);
    this.offset += 4;
    return v;
  }

  int64(): bigint {
    this.need(8);
    const v = this.view.getBigInt64(this.offset);
    this.offset += 8;
    return v;
  }

  uint64(): bigint {
    this.need(8);
    const v = this.view.getBigUint64(this.offset);
    this.offset += 8;
    return v;
  }

  /** One ASCII character, as message and tuple kinds are sent. */
  char(): string {
    return String.fromCharCode(this.uint8());
  }

  bytesOf(length: number): Uint8Array {
    if (length < 0) throw new ProtocolError(`Negative length ${length} at offset ${this.offset}`);
    this.need(length);
    const slice = this.bytes.subarray(this.offset, this.offset + length);
    this.offset += length;
    return slice;
  }

  /** A NUL-terminated UTF-8 string (the protocol's `String`). */
  cstring(): string {
    const end = this.bytes.indexOf(0, this.offset);
    if (end < 0) throw new ProtocolError(`Unterminated string at offset ${this.offset}`);
    const text = this.decode(this.bytes.subarray(this.offset, end));
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

  private need(n: number): void {
    if (this.offset + n > this.bytes.length)
      throw new ProtocolError(
        `Message truncated: needed ${n} byte(s) at offset ${this.offset} of ${this.bytes.length}`,
      );
  }
}
