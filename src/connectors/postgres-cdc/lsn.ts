// PostgreSQL log sequence numbers: 64-bit WAL positions, written by the server as two hex halves
// ("16/B374D848"). Kept as bigint because positions pass 2^53 on long-lived clusters.

const LSN_TEXT = /^([0-9A-Fa-f]{1,8})\/([0-9A-Fa-f]{1,8})$/;

/** The LSN in "16/B374D848" form; throws on anything else. */
export function parseLsn(text: string): bigint {
  const m = LSN_TEXT.exec(text);
  if (!m) throw new SyntaxError(`Not an LSN: ${JSON.stringify(text)} (expected hex "XXXXXXXX/XXXXXXXX")`);
  return (BigInt("0x" + m[1]) << 32n) | BigInt("0x" + m[2]);
}

/** As the server prints it (`%X/%X`): upper-case hex halves without leading zeros. */
export function formatLsn(lsn: bigint): string {
  if (lsn < 0n || lsn > 0xffffffffffffffffn) throw new RangeError(`LSN out of range: ${lsn}`);
  return `${(lsn >> 32n).toString(16).toUpperCase()}/${(lsn & 0xffffffffn).toString(16).toUpperCase()}`;
}
