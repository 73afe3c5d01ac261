// Builds protocol messages byte by byte from the documented layouts, for the decoder tests.
export class WireBytes {
  private readonly parts: number[] = [];

  char(c: string): this {
    this.parts.push(c.charCodeAt(0));
    return this;
  }
  uint8(v: number): this {
    this.parts.push(v & 0xff);
    return this;
  }
  int16(v: number): this {
    return this.fixed(2, (view) => view.setInt16(0, v));
  }
  int32(v: number): this {
    return this.fixed(4, (view) => view.setInt32(0, v));
  }
  uint32(v: number): this {
    return this.fixed(4, (view) => view.setUint32(0, v));
  }
  int64(v: bigint): this {
    return this.fixed(8, (view) => view.setBigInt64(0, v));
  }
  uint64(v: bigint): this {
    return this.fixed(8, (view) => view.setBigUint64(0, v));
  }
  cstring(s: string): this {
    this.raw(new TextEncoder().encode(s));
    this.parts.push(0);
    return this;
  }
  raw(bytes: Uint8Array): this {
    for (const b of bytes) this.parts.push(b);
    return this;
  }
  /** A TupleData 't' column: Int32 length, then the text's UTF-8 bytes. */
  text(s: string): this {
    const bytes = new TextEncoder().encode(s);
    return this.char("t").int32(bytes.length).raw(bytes);
  }
  build(): Uint8Array {
    return Uint8Array.from(this.parts);
  }

  private fixed(size: number, write: (view: DataView) => void): this {
    const bytes = new Uint8Array(size);
    write(new DataView(bytes.buffer));
    return this.raw(bytes);
  }
}

export const wire = () => new WireBytes();
