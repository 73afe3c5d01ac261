// Small shared pieces: errors as the service said them, state badges, confirmations, a sparkline.
import type { ComponentChildren } from "preact";
import { useState } from "preact/hooks";
import { ApiError } from "../api.ts";

export function ErrorBox({ error }: { error: unknown }) {
  if (!error) return null;
  const status = error instanceof ApiError ? error.status : undefined;
  const message = error instanceof Error ? error.message : String(error);
  return (
    <div class="error" role="alert">
      {status === 403 ? "Refused (403): " : status ? `Error ${status}: ` : ""}
      {message}
    </div>
  );
}

export function Loading({ when }: { when: boolean }) {
  return when ? <span class="loading">loading…</span> : null;
}

export function State({ state }: { state: string | undefined }) {
  const s = (state ?? "UNKNOWN").toUpperCase();
  return <span class={`state state-${s.toLowerCase()}`}>{s}</span>;
}

/** A write: runs the action, shows its error; `confirm` asks once more before doing it. */
export function Action(props: {
  label: string;
  run: () => Promise<unknown>;
  confirm?: string;
  danger?: boolean;
  done?: () => void;
}) {
  const [asking, setAsking] = useState(false);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>();
  const go = async () => {
    setAsking(false);
    setBusy(true);
    setError(undefined);
    try {
      await props.run();
      props.done?.();
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  };
  return (
    <span class="action">
      {asking ? (
        <span class="confirm">
          {props.confirm}{" "}
          <button type="button" class="danger" onClick={go}>
            Yes, {props.label.toLowerCase()}
          </button>
          <button type="button" onClick={() => setAsking(false)}>
            Cancel
          </button>
        </span>
      ) : (
        <button
          type="button"
          class={props.danger ? "danger" : ""}
          disabled={busy}
          onClick={() => (props.confirm ? setAsking(true) : void go())}
        >
          {props.label}
        </button>
      )}
      <ErrorBox error={error} />
    </span>
  );
}

export function Section({
  title,
  children,
  actions,
}: {
  title: string;
  children: ComponentChildren;
  actions?: ComponentChildren;
}) {
  return (
    <section>
      <h2>
        {title}
        {actions && <span class="section-actions">{actions}</span>}
      </h2>
      {children}
    </section>
  );
}

/** A live line chart of the last values; the label shows the latest. */
export function Spark({
  values,
  label,
  unit,
  width = 160,
  height = 36,
}: {
  values: number[];
  label?: string;
  unit: string;
  width?: number;
  height?: number;
}) {
  // Some headroom: a steady rate is a line below the top, not along it.
  const max = Math.max(1, ...values) * 1.2;
  const step = values.length > 1 ? width / (values.length - 1) : width;
  const points = values
    .map((v, i) => `${(i * step).toFixed(1)},${(height - 2 - (v / max) * (height - 4)).toFixed(1)}`)
    .join(" ");
  const last = values.at(-1);
  return (
    <span class="spark" data-last={last ?? ""}>
      <svg width={width} height={height} viewBox={`0 0 ${width} ${height}`} aria-label={label}>
        <line x1="0" y1={height - 1} x2={width} y2={height - 1} class="axis" />
        {values.length > 1 && <polyline points={points} />}
      </svg>
      <span class="spark-value">
        {last === undefined ? "–" : last < 10 ? last.toFixed(1) : Math.round(last)} {unit}
      </span>
    </span>
  );
}
