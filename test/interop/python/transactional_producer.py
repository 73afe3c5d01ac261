"""Writes transactions to a topic with Python's confluent-kafka: for each "commit:<prefix>:<n>" or
"abort:<prefix>:<n>" argument, one transaction of n records (values <prefix>-0 .. <prefix>-(n-1), keys
the same) that is committed or aborted. Used by the transactional-read tests."""
import sys

from confluent_kafka import Producer


def main() -> None:
    bootstrap, topic, transactional_id, *steps = sys.argv[1:]
    producer = Producer({"bootstrap.servers": bootstrap, "transactional.id": transactional_id})
    producer.init_transactions(30)
    for step in steps:
        outcome, prefix, count = step.split(":")
        producer.begin_transaction()
        for i in range(int(count)):
            value = f"{prefix}-{i}"
            producer.produce(topic, key=value, value=value, partition=0)
        producer.flush(30)
        if outcome == "commit":
            producer.commit_transaction(30)
        else:
            producer.abort_transaction(30)


if __name__ == "__main__":
    main()
