import { describe, expect, test } from "bun:test";
import { BrokerError, GroupError, ProducerFencedError } from "#src/broker/broker.ts";
import { answer, crossError, PendingCalls, uncrossError, type Reply } from "#src/connect/runtime/threads/protocol.ts";

describe("errors crossing a thread boundary", () => {
  test("broker and group errors come back as their classes, with what callers branch on", () => {
    const broker = uncrossError(structuredClone(crossError(new BrokerError("leader not available", true))));
    expect(broker).toBeInstanceOf(BrokerError);
    expect((broker as BrokerError).retriable).toBe(true);
    const group = uncrossError(structuredClone(crossError(new GroupError("unknown member", "reset"))));
    expect(group).toBeInstanceOf(GroupError);
    expect((group as GroupError).kind).toBe("reset");
    const fenced = uncrossError(structuredClone(crossError(new ProducerFencedError("conn-0", "fenced: took over"))));
    expect(fenced).toBeInstanceOf(ProducerFencedError);
    expect((fenced as ProducerFencedError).transactionalId).toBe("conn-0");
    expect((fenced as ProducerFencedError).retriable).toBe(false);
    expect(fenced.message).toBe("fenced: took over");
  });

  test("any other error keeps its message and stack; a thrown non-error its text", () => {
    const original = new TypeError("bad");
    const back = uncrossError(crossError(original));
    expect(back.message).toBe("bad");
    expect(back.stack).toBe(original.stack!);
    expect(uncrossError(crossError("plain")).message).toBe("plain");
  });
});

describe("calls and replies", () => {
  test("each reply settles its own call; a failed one rejects with the error; failAll rejects what is left", async () => {
    const calls = new PendingCalls();
    const sent: number[] = [];
    const a = calls.call((id) => sent.push(id));
    const b = calls.call((id) => sent.push(id));
    const c = calls.call((id) => sent.push(id));
    const replies: Reply[] = [];
    await answer(
      sent[1]!,
      () => "two",
      (r) => replies.push(r),
    );
    await answer(
      sent[0]!,
      () => {
        throw new BrokerError("down", true);
      },
      (r) => replies.push(r),
    );
    for (const reply of replies) calls.settle(reply);
    expect(await b).toBe("two");
    expect(a).rejects.toBeInstanceOf(BrokerError);
    calls.failAll(new Error("thread ended"));
    expect(c).rejects.toThrow("thread ended");
  });
});
