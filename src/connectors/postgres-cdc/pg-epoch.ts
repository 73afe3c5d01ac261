// The replication protocol's TimestampTz: microseconds since 2000-01-01 00:00 UTC. Decoded messages
// carry Unix microseconds instead, so callers never meet the PostgreSQL epoch.

const PG_EPOCH_UNIX_MICROS = 946_684_800_000_000n;

export function pgMicrosToUnixMicros(pgMicros: bigint): bigint {
  return pgMicros + PG_EPOCH_UNIX_MICROS;
}

export function unixMicrosToPgMicros(unixMicros: bigint): bigint {
  return unixMicros - PG_EPOCH_UNIX_MICROS;
}

/** Now, in Unix microseconds (Date.now() has milliseconds only; Debezium's ts_us has microseconds). */
export function nowUnixMicros(): bigint {
  return BigInt(Math.floor((performance.timeOrigin + performance.now()) * 1000));
}
